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

    static let reads = FixedSizeRecvByteBufferAllocator(capacity: 1024)

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // Reads of 1 KB at a time: a connection keeps its read buffer while idle, and most of a
        // server's connections are idle live-map viewers. NIO's default (2 KB, growing sixteenfold
        // after a read that fills it) kept 2 KB or more on each; a request over 1 KB now takes one
        // more read (BENCHMARKS.md: 1 KB less per connection, about 3 us more for such a request).
        try? context.channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: Self.reads)
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
    /// Returns whether these bytes start one.
    fileprivate func bytesArrived() -> Bool {
        guard phase == .idle, let context else { return false }
        phase = .head
        arm(context, bounds.headTimeout)
        return true
    }

    /// Whether the bytes arriving now belong to a request's head.
    fileprivate var readingHead: Bool { phase == .head }

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
        switch RouteFamily.of(path).errors {
        case .udacity: text = udacityResponsePrefix + #"{"status":503,"error":"\#(message)"}"#
        case .parse: text = #"{"code":155,"error":"\#(message)"}"#
        case .api, .other: text = #"{"error":{"code":"too_many_connections","message":"\#(message)"}}"#
        }
        return (.serviceUnavailable, ByteBuffer(string: text))
    }
}

/// Sits before the HTTP decoder, which says nothing until a head is complete: tells the
/// guard when a request's first bytes arrive (the head deadline starts), and answers a head
/// too large for the decoder itself, in the route family's own format: 414 when the request
/// line alone is too long, 431 when the headers are. (The decoder would otherwise answer an
/// empty 400 that no client can read.)
private final class FirstByteWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// Below the decoder's own limit (80 KB), so this answer comes first.
    static let maximumHeadBytes = 64 * 1024

    private weak var owner: ConnectionGuardHandler?
    /// Bytes of the head under way, the start of its request line, and whether its line ended.
    private var headBytes = 0
    private var requestLineStart: [UInt8] = []
    private var lineEnded = false
    private var lineBytes = 0
    private var tail: [UInt8] = []
    private var refused = false

    init(owner: ConnectionGuardHandler) {
        self.owner = owner
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refused { return }
        let startsHead = owner?.bytesArrived() ?? false
        if startsHead {
            headBytes = 0
            requestLineStart = []
            lineEnded = false
            lineBytes = 0
            tail = []
        }
        if owner?.readingHead == true {
            let buffer = unwrapInboundIn(data)
            let bytes = Array(buffer.readableBytesView)
            var counted = bytes.count
            // Only the head counts: stop at its blank line, which may straddle two reads.
            let joined = tail + bytes
            if let end = Self.blankLine(in: joined) { counted = max(0, end - tail.count) }
            if !lineEnded {
                if let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                    lineEnded = true
                    lineBytes += newline
                    requestLineStart += bytes[..<min(newline, max(0, 2048 - requestLineStart.count))]
                } else {
                    lineBytes += bytes.count
                    requestLineStart += bytes.prefix(max(0, 2048 - requestLineStart.count))
                }
            }
            headBytes += counted
            tail = Array(joined.suffix(3))
            if headBytes > Self.maximumHeadBytes {
                refuse(context)
                return
            }
        }
        context.fireChannelRead(data)
    }

    /// The index just past "\r\n\r\n" (or "\n\n"), if the bytes hold one.
    static func blankLine(in bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") { return index + 2 }
                if index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\r"), bytes[index + 2] == UInt8(ascii: "\n") {
                    return index + 3
                }
            }
            index += 1
        }
        return nil
    }

    private func refuse(_ context: ChannelHandlerContext) {
        refused = true
        let line = String(decoding: requestLineStart, as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 2)
        let path = parts.count > 1 ? String(parts[1].prefix(256)) : "/"
        let (status, body) = Self.answer(path: path, lineTooLong: !lineEnded || lineBytes > Self.maximumHeadBytes)
        var text = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n"
        text += "Content-Type: application/json; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        text += body
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(NIOAny(ByteBuffer(string: text)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// 414 or 431 in the format of the API family the path belongs to.
    static func answer(path: String, lineTooLong: Bool) -> (HTTPResponse.Status, String) {
        let status: HTTPResponse.Status = lineTooLong ? .uriTooLong : .requestHeaderFieldsTooLarge
        let message =
            lineTooLong
            ? "The request's URL is too long (the request line may be at most 64 KB); send the query in fewer or shorter parameters."
            : "The request's headers are too large (at most 64 KB in all)."
        switch RouteFamily.of(path).errors {
        case .udacity: return (status, udacityResponsePrefix + #"{"status":\#(status.code),"error":"\#(message)"}"#)
        case .parse: return (status, #"{"code":116,"error":"\#(message)"}"#)
        case .api, .other:
            let code = lineTooLong ? "url_too_long" : "headers_too_large"
            return (status, #"{"error":{"code":"\#(code)","message":"\#(message)"}}"#)
        }
    }
}
