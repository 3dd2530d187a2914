import Hummingbird
import Logging
import NIOCore

/// The request context every route sees. Plain for now; features read what they need
/// (the session, the body) through small helpers rather than through context state.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The client's IP address, for rate limits, throttling and logs: the peer's, or behind
    /// a trusted proxy the one it reports (`ForwardedClientMiddleware`); "unknown" in router tests.
    public var clientAddress: String
    /// Whether the client reached us over HTTPS (through a trusted proxy, or by the public
    /// URL's scheme): cookies are then `Secure`.
    public var isHTTPS = false

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.clientAddress = ClientAddress.of(source.channel)
    }

    /// Bodies are collected with an explicit limit per route; this is the transport cap.
    public var maxUploadSize: Int { 1024 * 1024 }
}
