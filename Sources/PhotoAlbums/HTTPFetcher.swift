import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// GET requests with a hard deadline, through one URLSession shared by the providers and
/// the downloader. Callers bound concurrency themselves.
public final class HTTPFetcher: Sendable {
    public struct Reply: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data

        public func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

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

    /// Wikimedia (and polite use of any API) asks for a User-Agent that says who is asking.
    public static let defaultUserAgent = "OnTheMap/1.0 (self-hosted OnTheMap server; Travel photo albums) Swift-Foundation"

    private let session: URLSession
    public let userAgent: String

    public init(userAgent: String = HTTPFetcher.defaultUserAgent, maximumConnectionsPerHost: Int = 8) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = maximumConnectionsPerHost
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        session = URLSession(configuration: configuration)
        self.userAgent = userAgent
    }

    /// Cancels what is in flight and releases the session.
    public func shutdown() {
        session.invalidateAndCancel()
    }

    public func get(_ url: URL, timeout: TimeInterval, accept: String = "*/*") async throws -> Reply {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        request.setValue(accept, forHTTPHeaderField: "Accept")
        let session = self.session
        let prepared = request
        // URLSession's timeout is an idle timeout; the task group makes it a deadline.
        return try await withThrowingTaskGroup(of: Reply.self) { group in
            group.addTask {
                let (data, response): (Data, URLResponse)
                do {
                    (data, response) = try await session.data(for: prepared)
                } catch let error as URLError where error.code == .cancelled {
                    throw CancellationError()
                } catch let error as URLError where error.code == .timedOut {
                    throw Failure.timedOut(timeout)
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
                try await Task.sleep(for: .seconds(timeout))
                throw Failure.timedOut(timeout)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }

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

extension HTTPFetcher {
    /// A provider's search answer: the JSON body of a 200, or the provider error every
    /// provider reports the same way (no network, 429 with Retry-After, 5xx, other status).
    func searchResults(_ url: URL, timeout: TimeInterval, provider: String) async throws -> Data {
        let reply: Reply
        do {
            reply = try await get(url, timeout: timeout, accept: "application/json")
        } catch let failure as Failure {
            throw PhotoProviderError.unavailable(provider: provider, reason: failure.description)
        }
        switch reply.status {
        case 200:
            return reply.body
        case 429:
            throw PhotoProviderError.rateLimited(provider: provider, retryAfter: reply.header("Retry-After").flatMap { Int($0) })
        case 500...599:
            throw PhotoProviderError.unavailable(provider: provider, reason: "it answered HTTP \(reply.status)")
        default:
            throw PhotoProviderError.badResponse(provider: provider, reason: "HTTP \(reply.status)")
        }
    }
}
