import Hummingbird
import Logging
import NIOCore
import Storage

/// The request context every route sees: who is asking (`caller`, set by `CallerMiddleware`),
/// from which address, and over which scheme. The routes of a class's map read their class
/// from a `ClassRequestContext` built from this one.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The client's IP address, for rate limits, throttling and logs: the peer's, or behind
    /// a trusted proxy the one it reports (`ForwardedClientMiddleware`); "unknown" in router tests.
    public var clientAddress: String
    /// Whether the client reached us over HTTPS (through a trusted proxy, or by the public
    /// URL's scheme): cookies are then `Secure`.
    public var isHTTPS = false
    /// Who is asking, as `CallerMiddleware` resolved the request's credential. A route that
    /// reads it on a group mounted without `CallerMiddleware` is a wiring mistake: the read is
    /// logged and throws (`ContextMissing`, answered 500), never an anonymous stand-in.
    public var caller: Caller {
        get throws {
            guard let resolved = resolvedCallerIfAny else {
                logger.error("a route read the caller on a group without CallerMiddleware")
                throw ContextMissing(what: "caller")
            }
            return resolved
        }
    }
    /// The caller, once `CallerMiddleware` resolved it (nil on a group without it).
    private(set) var resolvedCallerIfAny: Caller?

    /// The slug a `/c/<slug>/…` request named (set by `ClassPrefixResponder`); nil for the
    /// unprefixed routes, which serve the default class.
    public var classSlug: String?
    /// What the client put before the path the routes see: "" or `/c/<slug>`.
    public var pathPrefix = ""
    /// The class the request is for, as `ClassMiddleware` resolved it (nil before it ran).
    /// Routes never read it here: a class-scoped route runs in a `ClassRequestContext`, which
    /// cannot exist without it.
    public internal(set) var requestClass: MapClass?
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.clientAddress = ClientAddress.of(source.channel)
    }

    /// Bodies are collected with an explicit limit per route; this is the transport cap.
    public var maxUploadSize: Int { Self.transportBodyLimit }
    static let transportBodyLimit = 1024 * 1024

    /// Sets who is asking: `CallerMiddleware`'s, once per request.
    mutating func resolveCaller(_ caller: Caller) {
        resolvedCallerIfAny = caller
    }
}
