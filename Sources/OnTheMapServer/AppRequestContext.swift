import Hummingbird
import Logging
import NIOCore

/// The request context every route sees. Plain for now; features read what they need
/// (the session, the body) through small helpers rather than through context state.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's IP address, for per-client rate limits ("unknown" in router tests).
    public let clientAddress: String

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.clientAddress = ClientAddress.of(source.channel)
    }

    /// Bodies are collected with an explicit limit per route; this is the transport cap.
    public var maxUploadSize: Int { 1024 * 1024 }
}
