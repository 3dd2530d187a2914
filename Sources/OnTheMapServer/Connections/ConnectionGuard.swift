import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes
import OnTheMapModels

/// The address a connection comes from (its peer; behind a proxy, `ForwardedClientMiddleware`
/// then finds the real client per request).
enum ClientAddress {
    static func of(_ channel: any Channel) -> String {
        channel.remoteAddress?.ipAddress ?? "unknown"
    }
}

/// Counts open connections per client address and in all, across every event loop.
/// `@unchecked Sendable`: all state is guarded by `lock`.
final class ConnectionLimiter: @unchecked Sendable {
    let perAddress: Int
    let total: Int
    /// Trusted proxies carry many clients' connections, so only the total cap applies to them.
    let uncapped: TrustedProxies
    private let lock = NSLock()
    private var open: [String: Int] = [:]
    private var openTotal = 0

    init(perAddress: Int, total: Int, uncapped: TrustedProxies = .none) {
        self.perAddress = max(1, perAddress)
        self.total = max(1, total)
        self.uncapped = uncapped
    }

    /// Takes a slot for `address`, or returns false when a cap is reached.
    func admit(_ address: String) -> Bool {
        lock.withLock {
            let current = open[address, default: 0]
            guard current < perAddress || uncapped.contains(address), openTotal < total else { return false }
            open[address] = current + 1
            openTotal += 1
            return true
        }
    }

    func release(_ address: String) {
        lock.withLock {
            guard let current = open[address] else { return }
            if current <= 1 { open[address] = nil } else { open[address] = current - 1 }
            openTotal -= 1
        }
    }

    var openConnections: Int { lock.withLock { openTotal } }
}

/// The connection bounds of one server.
struct ConnectionBounds: Sendable {
    var idleTimeout: TimeAmount
    var headTimeout: TimeAmount
    var bodyTimeout: TimeAmount
    var limiter: ConnectionLimiter
    /// How long a refused connection may take to send the request we answer 503.
    var refusedGrace: TimeAmount = .seconds(2)

    init(configuration: Configuration, trustedProxies: TrustedProxies) {
        func amount(_ seconds: TimeInterval) -> TimeAmount { .milliseconds(Int64(max(0.001, seconds) * 1000)) }
        idleTimeout = amount(configuration.idleTimeout)
        headTimeout = amount(configuration.requestHeadTimeout)
        bodyTimeout = amount(configuration.requestBodyTimeout)
        limiter = ConnectionLimiter(
            perAddress: configuration.maxConnectionsPerAddress, total: configuration.resolvedMaxConnections, uncapped: trustedProxies)
    }
}

/// Bounds one HTTP/1 connection: it counts against the per-address and total caps (over cap:
/// the first request is answered 503 with `Retry-After`, then the connection closes), and it
/// is closed when idle between requests past `idleTimeout`, when a request head takes longer
/// than `headTimeout` from its first byte, or a body longer than `bodyTimeout` from the head.
/// Deadlines are totals, not gaps between bytes, so a client trickling a byte every few
/// seconds is cut off too. Sits after Hummingbird's HTTP codec; a small companion at the
/// front of the pipeline reports the first raw byte of each request head.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    enum Phase { case idle, head, body, responding, refused }

    private let bounds: ConnectionBounds
    private var phase = Phase.idle
    private var pendingResponses = 0
    private var timer: Scheduled<Void>?
    /// Set while this connection holds a slot in the limiter.
    private var admittedAddress: String?
    /// This handler's context, for the first-byte watcher (set while in the pipeline).
    private var context: ChannelHandlerContext?

    init(bounds: ConnectionBounds) {
        self.bounds = bounds
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let address = ClientAddress.of(context.channel)
        if bounds.limiter.admit(address) {
            admittedAddress = address
            arm(context, bounds.idleTimeout)
            try? context.pipeline.syncOperations.addHandler(FirstByteWatcher(owner: self), position: .first)
        } else {
            phase = .refused
            arm(context, bounds.refusedGrace)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    private func finish() {
        timer?.cancel()
        timer = nil
        if let address = admittedAddress {
            admittedAddress = nil
            bounds.limiter.release(address)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if phase == .refused {
            if case .head(let head) = part { refuse(context, path: head.path ?? "/") }
            return
        }
        switch part {
        case .head:
            pendingResponses += 1
            phase = .body
            arm(context, bounds.bodyTimeout)
        case .body:
            break
        case .end:
            // The server is working on it now; the query deadline bounds that.
            phase = .responding
            disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            pendingResponses = max(0, pendingResponses - 1)
            if pendingResponses == 0, phase == .responding {
                phase = .idle
                arm(context, bounds.idleTimeout)
            }
        }
        context.write(data, promise: promise)
    }

    /// Called by `FirstByteWatcher` when bytes arrive: an idle connection starts a head.
    fileprivate func bytesArrived() {
        guard phase == .idle, let context else { return }
        phase = .head
        arm(context, bounds.headTimeout)
    }

    private func arm(_ context: ChannelHandlerContext, _ delay: TimeAmount) {
        timer?.cancel()
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: delay) { [weak self] in
            self?.timer = nil
            context.close(promise: nil)
        }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
    }

    /// Answers an over-cap connection's request and closes it.
    private func refuse(_ context: ChannelHandlerContext, path: String) {
        let (status, body) = Self.refusal(path: path)
        var fields = HTTPFields()
        fields[.contentType] = "application/json; charset=utf-8"
        fields[.contentLength] = "\(body.readableBytes)"
        fields[.retryAfter] = "5"
        fields[.connection] = "close"
        context.write(wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        phase = .refused
    }

    /// 503 in the format of the API family the path belongs to.
    static func refusal(path: String) -> (HTTPResponse.Status, ByteBuffer) {
        let message = "Too many open connections; try again shortly."
        let text: String
        switch ErrorFormatMiddleware<AppRequestContext>.family(of: path) {
        case .udacity: text = udacityResponsePrefix + #"{"status":503,"error":"\#(message)"}"#
        case .parse: text = #"{"code":155,"error":"\#(message)"}"#
        case .api, .other: text = #"{"error":{"code":"too_many_connections","message":"\#(message)"}}"#
        }
        return (.serviceUnavailable, ByteBuffer(string: text))
    }
}

/// Sits before the HTTP decoder, which says nothing until a head is complete, and tells the
/// guard when a request's first bytes arrive so the head deadline can start.
private final class FirstByteWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private weak var owner: ConnectionGuardHandler?

    init(owner: ConnectionGuardHandler) {
        self.owner = owner
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        owner?.bytesArrived()
        context.fireChannelRead(data)
    }
}
