import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the sign-in feature asks of the network: a GET or a form POST with a deadline.
/// A protocol so tests can stand in for a provider that cannot be run (or misbehaves).
protocol SignInHTTPClient: Sendable {
    func send(_ request: SignInHTTPRequest) async throws -> SignInHTTPReply
}

struct SignInHTTPRequest: Sendable {
    var method = "GET"
    var url: URL
    var headers: [String: String] = [:]
    /// `application/x-www-form-urlencoded` fields (POST).
    var form: [(String, String)]? = nil
}

struct SignInHTTPReply: Sendable {
    var status: Int
    var body: Data
}

/// A provider could not be reached or answered something unusable; its text never holds a
/// token or secret (URLs with them are not included).
struct ProviderUnavailable: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `SignInHTTPClient` over URLSession (FoundationNetworking on Linux), as PhotoAlbums does.
final class URLSessionSignInClient: SignInHTTPClient {
    private let session: URLSession
    let timeout: TimeInterval

    init(timeout: TimeInterval = 10) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        session = URLSession(configuration: configuration)
        self.timeout = timeout
    }

    func send(_ request: SignInHTTPRequest) async throws -> SignInHTTPReply {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        urlRequest.setValue("OnTheMap/1.0 (self-hosted OnTheMap server; sign-in)", forHTTPHeaderField: "User-Agent")
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let form = request.form {
            urlRequest.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            urlRequest.httpBody = Data(FormEncoding.encode(form).utf8)
        }
        do {
            let (data, response) = try await session.data(for: urlRequest)
            guard let http = response as? HTTPURLResponse else { throw ProviderUnavailable("not an HTTP answer") }
            return SignInHTTPReply(status: http.statusCode, body: data)
        } catch let error as ProviderUnavailable {
            throw error
        } catch let error as URLError {
            // The error's own text may repeat the URL, which can carry a token: only its code.
            throw ProviderUnavailable("\(request.url.host ?? "provider") unreachable (URLError \(error.code.rawValue))")
        }
    }
}

enum FormEncoding {
    /// RFC 3986 unreserved characters stay; everything else is percent-encoded.
    static let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// `base` with these query fields added.
    static func url(_ base: URL, adding fields: [(String, String)]) -> URL {
        var text = base.absoluteString
        text += (base.query == nil ? "?" : "&") + encode(fields)
        return URL(string: text) ?? base
    }
}
