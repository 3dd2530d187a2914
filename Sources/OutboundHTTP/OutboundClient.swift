import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The server's one way out to other services (sign-in providers, photo providers and their
/// images, the object store, an upstream geocoder): URLSession under one deadline and one
/// error mapping. A call ends within its deadline whatever stalls (DNS, a trickled body),
/// and its failures never repeat the URL, which can carry a token. A call that carries
/// credentials (an `Authorization` header) follows a redirect only on its own origin
/// (`RedirectGuard`): any other redirect is the answer, so the credentials never travel to
/// another host, nor from https to http.
///
/// URLSession rather than AsyncHTTPClient: every caller lives in a Foundation-only target
/// (`Geocoding`, `PhotoAlbums`, `ObjectStorage`) that the SDK's side of the house shares the
/// rules of, and the calls are few and small (a search, a token exchange, an image of at
/// most a few megabytes), so an event-loop client would add a build of its own to every
/// CI run for no measurable gain here.
public final class OutboundClient: Sendable {
    /// What goes out.
    public struct Request: Sendable {
        public var method: String
        public var url: URL
        public var headers: [(name: String, value: String)]
        public var body: Data?

        public init(method: String = "GET", url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
        }
    }

    /// What came back: any status (callers decide what a status means for them).
    public struct Reply: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data

        public init(status: Int, headers: [String: String], body: Data) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// A header, whatever its case.
        public func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// Why no answer came: the deadline passed, or the network failed (said without the URL).
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case timedOut(TimeInterval)
        case transport(String)

        public var description: String {
            switch self {
            case .timedOut(let seconds): "no answer within \(Self.format(seconds)) s"
            case .transport(let reason): reason
            }
        }

        static func format(_ seconds: TimeInterval) -> String {
            seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
        }
    }

    /// The raw exchange; tests stand in for the network here, under the same deadline.
    public typealias Exchange = @Sendable (URLRequest) async throws -> (Data, URLResponse)

    public let userAgent: String
    public let timeout: TimeInterval
    private let session: URLSession
    private let exchange: Exchange?

    /// - Parameters:
    ///   - timeout: each call's deadline unless the call names another.
    ///   - exchange: nil sends through this client's URLSession.
    public init(userAgent: String, timeout: TimeInterval, maximumConnectionsPerHost: Int = 8, exchange: Exchange? = nil) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = maximumConnectionsPerHost
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        session = URLSession(configuration: configuration, delegate: RedirectGuard(), delegateQueue: nil)
        self.userAgent = userAgent
        self.timeout = timeout
        self.exchange = exchange
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Cancels what is in flight and releases the session.
    public func shutdown() {
        session.invalidateAndCancel()
    }

    public func send(_ request: Request, timeout: TimeInterval? = nil) async throws -> Reply {
        let deadline = timeout ?? self.timeout
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: deadline)
        urlRequest.httpMethod = request.method
        urlRequest.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        for header in request.headers { urlRequest.setValue(header.value, forHTTPHeaderField: header.name) }
        urlRequest.httpBody = request.body
        let prepared = urlRequest
        let session = self.session
        let exchange = self.exchange ?? { try await Self.data(session, for: $0) }
        // URLSession's timeout is an idle timeout; the race makes it a deadline.
        return try await withThrowingTaskGroup(of: Reply.self) { group in
            group.addTask {
                let (data, response): (Data, URLResponse)
                do {
                    (data, response) = try await exchange(prepared)
                } catch let error as URLError where error.code == .cancelled {
                    throw CancellationError()
                } catch let error as URLError where error.code == .timedOut {
                    throw Failure.timedOut(deadline)
                } catch let error as URLError {
                    throw Failure.transport(Self.describe(error))
                }
                guard let http = response as? HTTPURLResponse else { throw Failure.transport("not an HTTP answer") }
                var headers: [String: String] = [:]
                for (key, value) in http.allHeaderFields {
                    if let key = key as? String, let value = value as? String { headers[key] = value }
                }
                return Reply(status: http.statusCode, headers: headers, body: data)
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int(max(deadline, 0.01) * 1000)))
                throw Failure.timedOut(deadline)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }

    /// One exchange on `session`, cancelled with the calling task. Not URLSession's own async
    /// `data(for:)`: on Linux (swift-corelibs-foundation) its cancellation handler cancels the
    /// transfer synchronously on the session's queue while the Swift runtime holds the task's
    /// lock, and a transfer finishing at that moment waits on the session's queue for the same
    /// lock to resume the task: the process hung for good at a graceful stop with album
    /// downloads in flight. Here the transfer is cancelled from another queue, after the
    /// handler has returned.
    static func data(_ session: URLSession, for request: URLRequest) async throws -> (Data, URLResponse) {
        let transfer = Transfer()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                transfer.start(task)
            }
        } onCancel: {
            transfer.cancel()
        }
    }

    /// A transfer and whether its caller was cancelled, whichever comes first.
    private final class Transfer: @unchecked Sendable {
        private let lock = NSLock()
        private var task: URLSessionDataTask?
        private var cancelled = false

        func start(_ task: URLSessionDataTask) {
            let cancelled = lock.withLock {
                self.task = task
                return self.cancelled
            }
            task.resume()
            if cancelled { Self.cancelLater(task) }
        }

        func cancel() {
            let task = lock.withLock {
                cancelled = true
                return self.task
            }
            if let task { Self.cancelLater(task) }
        }

        /// `URLSessionTask.cancel` waits for the session's queue: never from inside the
        /// runtime's cancellation handler.
        private static func cancelLater(_ task: URLSessionDataTask) {
            DispatchQueue.global().async { task.cancel() }
        }
    }

    /// A network failure in words, never the URL (it can carry a token).
    static func describe(_ error: URLError) -> String {
        switch error.code {
        case .cannotConnectToHost: "connection refused"
        case .cannotFindHost, .dnsLookupFailed: "unknown host"
        case .notConnectedToInternet: "no network"
        case .networkConnectionLost: "the connection closed before the answer was complete"
        case .timedOut: "timed out"
        default: "network error (URLError \(error.code.rawValue))"
        }
    }
}

/// Decides each redirect of the client's session. URLSession follows redirects by itself,
/// every header included (swift-corelibs-foundation keeps `Authorization` whatever the new
/// host and scheme), unless its delegate says otherwise; a session-wide delegate is the one
/// both Foundation implementations consult (Linux ignores a task's own for redirects).
final class RedirectGuard: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(Self.allows(from: task.originalRequest, to: request) ? request : nil)
    }

    /// A redirect is followed unless the call carries credentials and the new address is on
    /// another origin (scheme, host and port) than the call's.
    static func allows(from original: URLRequest?, to next: URLRequest) -> Bool {
        guard let original, original.value(forHTTPHeaderField: "Authorization") != nil else { return true }
        guard let from = original.url.flatMap(origin(of:)), let to = next.url.flatMap(origin(of:)) else { return false }
        return from == to
    }

    /// `scheme://host:port`, the port spelled out (an absent one is the scheme's default).
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }
}
