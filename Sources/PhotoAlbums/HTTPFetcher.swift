import Foundation
import OutboundHTTP

/// GET requests with a hard deadline for the providers and the downloader, through the
/// server's one outbound client. Callers bound concurrency themselves.
public final class HTTPFetcher: Sendable {
    public typealias Reply = OutboundClient.Reply
    public typealias Failure = OutboundClient.Failure

    /// Wikimedia (and polite use of any API) asks for a User-Agent that says who is asking.
    public static let defaultUserAgent = "OnTheMap/1.0 (self-hosted OnTheMap server; Travel photo albums) Swift-Foundation"

    private let client: OutboundClient
    public var userAgent: String { client.userAgent }

    public init(userAgent: String = HTTPFetcher.defaultUserAgent, maximumConnectionsPerHost: Int = 8) {
        client = OutboundClient(userAgent: userAgent, timeout: 60, maximumConnectionsPerHost: maximumConnectionsPerHost)
    }

    /// Cancels what is in flight and releases the session.
    public func shutdown() {
        client.shutdown()
    }

    public func get(_ url: URL, timeout: TimeInterval, accept: String = "*/*") async throws -> Reply {
        try await client.send(.init(url: url, headers: [("Accept", accept)]), timeout: timeout)
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
