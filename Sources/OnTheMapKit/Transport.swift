import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a completion-handler call returns: cancel it to stop the request. Cancelling makes
/// the completion run with `OnTheMapError.cancelled` (unless it already ran).
public final class RequestHandle: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var onCancel: (@Sendable () -> Void)?
    private var isCancelled = false

    init() {}

    public func cancel() {
        lock.lock()
        isCancelled = true
        let task = self.task
        let onCancel = self.onCancel
        lock.unlock()
        task?.cancel()
        onCancel?()
    }

    /// Whether `cancel()` has been called.
    public var cancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isCancelled
    }

    func attach(_ task: URLSessionTask) {
        lock.lock()
        self.task = task
        let cancelled = isCancelled
        lock.unlock()
        if cancelled { task.cancel() }
    }

    func attach(onCancel: @escaping @Sendable () -> Void) {
        lock.lock()
        self.onCancel = onCancel
        let cancelled = isCancelled
        lock.unlock()
        if cancelled { onCancel() }
    }
}

/// The three error dialects the server speaks (docs/api/): Udacity session routes (with the
/// 5-byte prefix), Parse StudentLocation routes, and this project's own `/api` routes.
enum APIDialect: Sendable {
    case udacity
    case parse
    case service
}

/// A complete HTTP answer, prefix already removed for the Udacity dialect.
struct HTTPAnswer: Sendable {
    var status: Int
    var body: Data
    /// Cookies the answer set (name → value).
    var cookies: [String: String]
}

/// Shared plumbing of both clients: builds requests, runs them on URLSession, and turns
/// transport errors and non-2xx answers into `OnTheMapError`.
final class HTTPTransport: Sendable {
    let urlSession: URLSession
    let configuration: OnTheMapConfiguration
    let callbackQueue: DispatchQueue?

    init(configuration: OnTheMapConfiguration, urlSession: URLSession?, callbackQueue: DispatchQueue?) {
        self.configuration = configuration
        self.urlSession = urlSession ?? configuration.makeURLSession()
        self.callbackQueue = callbackQueue
    }

    // MARK: Building requests

    func request(
        _ url: URL, method: String = "GET", query: [(String, String)] = [],
        json body: Data? = nil, headers: [String: String] = [:]
    ) -> URLRequest {
        var url = url
        if !query.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.percentEncodedQuery =
                query
                .map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }
                .joined(separator: "&")
            url = components.url ?? url
        }
        var request = URLRequest(
            url: url, cachePolicy: .reloadIgnoringLocalCacheData,
            timeoutInterval: configuration.timeout)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// Strict query encoding: only unreserved characters stay literal, so `+`, `&`, `=` and
    /// JSON punctuation survive every server's decoder.
    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    // MARK: Running requests

    /// Runs `request`, calls `completion` exactly once (on `callbackQueue` if set).
    @discardableResult
    func send(
        _ request: URLRequest, dialect: APIDialect, handle: RequestHandle = RequestHandle(),
        completion: @escaping @Sendable (Result<HTTPAnswer, OnTheMapError>) -> Void
    ) -> RequestHandle {
        let queue = callbackQueue
        let task = urlSession.dataTask(with: request) { data, response, error in
            let result = Self.classify(data: data, response: response, error: error, dialect: dialect)
            if let queue { queue.async { completion(result) } } else { completion(result) }
        }
        handle.attach(task)
        task.resume()
        return handle
    }

    /// `send` as an `async` call; cancelling the Swift task cancels the request.
    func send(_ request: URLRequest, dialect: APIDialect) async -> Result<HTTPAnswer, OnTheMapError> {
        let handle = RequestHandle()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let task = urlSession.dataTask(with: request) { data, response, error in
                    continuation.resume(
                        returning: Self.classify(
                            data: data, response: response,
                            error: error, dialect: dialect))
                }
                handle.attach(task)
                task.resume()
            }
        } onCancel: {
            // From another queue, after the runtime's handler returns: on Linux,
            // `URLSessionTask.cancel` waits for the session's queue, which may at that moment be
            // finishing this very transfer and need the task this handler runs under (the
            // process hung there for good).
            DispatchQueue.global().async { handle.cancel() }
        }
    }

    /// Delivers `result` to a completion handler on the callback queue.
    func deliver<T: Sendable>(
        _ result: Result<T, OnTheMapError>,
        to completion: @escaping @Sendable (Result<T, OnTheMapError>) -> Void
    ) {
        if let callbackQueue { callbackQueue.async { completion(result) } } else { completion(result) }
    }

    // MARK: Classifying answers

    static func classify(
        data: Data?, response: URLResponse?, error: (any Error)?,
        dialect: APIDialect
    ) -> Result<HTTPAnswer, OnTheMapError> {
        if let error { return .failure(.from(transport: error)) }
        guard let http = response as? HTTPURLResponse else {
            return .failure(.unreadableResponse(detail: "not an HTTP answer"))
        }
        var body = data ?? Data()
        if dialect == .udacity { body = stripUdacityPrefix(body) }
        let status = http.statusCode
        guard (200..<300).contains(status) else {
            return .failure(Self.error(status: status, body: body, dialect: dialect))
        }
        return .success(HTTPAnswer(status: status, body: body, cookies: cookies(of: http)))
    }

    /// Drops the 5 security bytes the Udacity API puts before every body; a body shorter than
    /// that becomes empty rather than a crash. A body that already starts with a JSON object
    /// (a proxy's error page, a server without the prefix) is kept as is.
    static func stripUdacityPrefix(_ data: Data) -> Data {
        if data.first == UInt8(ascii: "{") { return data }
        guard data.count >= 5 else { return Data() }
        return data.subdata(in: data.startIndex.advanced(by: 5)..<data.endIndex)
    }

    /// Turns a non-2xx answer into the error the user must be told.
    static func error(status: Int, body: Data, dialect: APIDialect) -> OnTheMapError {
        let details = errorDetails(in: body)
        let message = details.message
        switch status {
        case 401, 403:
            return .unauthorized(
                code: details.code,
                message: message ?? (status == 401 ? "not logged in" : "access denied"))
        case 500...:
            return .serverFailure(status: status, message: message)
        default:
            return .rejected(
                status: status, code: details.code,
                message: message ?? HTTPURLResponse.localizedString(forStatusCode: status))
        }
    }

    /// Reads `{"code":N,"error":"…"}`, `{"status":N,"error":"…"}`, `{"error":{"code","message"}}`
    /// or `{"message":"…"}`; nil parts when the body is none of them.
    static func errorDetails(in body: Data) -> (code: Int?, message: String?) {
        guard !body.isEmpty,
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        else {
            let text = String(decoding: body.prefix(200), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            // A short plain-text body is still a message; HTML is not.
            if !text.isEmpty, !text.hasPrefix("<"), !text.contains("\n") { return (nil, text) }
            return (nil, nil)
        }
        let code = (object["code"] as? NSNumber)?.intValue
        if let message = object["error"] as? String { return (code, message) }
        if let nested = object["error"] as? [String: Any] {
            return (code, (nested["message"] as? String) ?? (nested["code"] as? String))
        }
        return (code, object["message"] as? String)
    }

    static func cookies(of response: HTTPURLResponse) -> [String: String] {
        var result: [String: String] = [:]
        var fields: [String: String] = [:]
        for (key, value) in response.allHeaderFields {
            if let key = key as? String, let value = value as? String { fields[key] = value }
        }
        if let url = response.url {
            for cookie in HTTPCookie.cookies(withResponseHeaderFields: fields, for: url) {
                result[cookie.name] = cookie.value
            }
        }
        return result
    }
}

/// JSON helpers shared by the clients.
enum JSONBody {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    static func encode<T: Encodable>(_ value: T) -> Data {
        // Encoding our own plain structs cannot fail.
        (try? encoder.encode(value)) ?? Data("{}".utf8)
    }

    static func decode<T: Decodable>(
        _ type: T.Type, from data: Data,
        what: String
    ) -> Result<T, OnTheMapError> {
        guard !data.isEmpty else { return .failure(.unreadableResponse(detail: "empty \(what)")) }
        do {
            return .success(try JSONDecoder().decode(type, from: data))
        } catch let DecodingError.keyNotFound(key, _) {
            return .failure(.unreadableResponse(detail: "\(what) without \"\(key.stringValue)\""))
        } catch let DecodingError.typeMismatch(_, context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return .failure(.unreadableResponse(detail: "\(what) with a wrong type at \"\(path)\""))
        } catch {
            return .failure(.unreadableResponse(detail: "\(what) is not valid JSON"))
        }
    }

    static func object(from data: Data, what: String) -> Result<[String: Any], OnTheMapError> {
        guard !data.isEmpty else { return .failure(.unreadableResponse(detail: "empty \(what)")) }
        guard let object = try? JSONSerialization.jsonObject(with: data) else {
            return .failure(.unreadableResponse(detail: "\(what) is not valid JSON"))
        }
        guard let dictionary = object as? [String: Any] else {
            return .failure(.unreadableResponse(detail: "\(what) is not a JSON object"))
        }
        return .success(dictionary)
    }
}
