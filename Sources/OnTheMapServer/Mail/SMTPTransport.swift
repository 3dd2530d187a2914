import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import OnTheMapModels

/// Hands messages to a mail relay.
public protocol MailTransport: Sendable {
    /// Sends one message; returns the relay's answer to it (e.g. `250 2.0.0 Ok: queued as 1A2B`).
    /// Throws `MailDeliveryError`.
    func send(_ message: OutgoingMessage) async throws -> String
}

/// Why a message did not go. `isPermanent`: the relay refused this message for good (a 5xx
/// answer to its sender, recipient or content), so sending it again cannot help; anything
/// else (4xx, no connection, TLS, a refused login, a timeout) may work later.
public enum MailDeliveryError: Error, CustomStringConvertible, Equatable {
    /// The relay refused the message itself with a 5xx answer.
    case rejected(code: Int, reply: String)
    /// The relay answered 4xx (try later), or 5xx before the message (its login, its TLS).
    case refused(code: Int, reply: String, during: String)
    /// No relay reached, TLS failed, the connection dropped, or it took too long.
    case connection(String)

    public var isPermanent: Bool {
        if case .rejected = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .rejected(let code, let reply): return "the relay refused the message: \(code) \(reply)"
        case .refused(let code, let reply, let during): return "the relay answered \(code) \(reply) to \(during)"
        case .connection(let why): return "no answer from the relay: \(why)"
        }
    }
}

/// SMTP (RFC 5321) on SwiftNIO, with NIOSSL for STARTTLS (RFC 3207) or implicit TLS
/// (RFC 8314): EHLO, STARTTLS, AUTH PLAIN or LOGIN, MAIL FROM, RCPT TO, DATA (dot-stuffed),
/// QUIT. One connection per message: the outbox sends few, and a fresh connection never
/// inherits a half-broken one's state.
public struct SMTPTransport: MailTransport {
    public let settings: SMTPSettings
    /// The name this server gives in EHLO (the public URL's host).
    public let clientName: String
    /// The longest a whole conversation may take.
    public var timeout: Duration = .seconds(60)

    public init(settings: SMTPSettings, clientName: String) {
        self.settings = settings
        self.clientName = clientName.isEmpty ? "localhost" : clientName
    }

    public func send(_ message: OutgoingMessage) async throws -> String {
        let tls = try makeTLSContext()
        let (replies, continuation) = AsyncThrowingStream<SMTPReply, any Error>.makeStream()
        let implicitTLS = settings.security == .implicitTLS
        let host = settings.host
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(15))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if implicitTLS {
                            try channel.pipeline.syncOperations.addHandler(
                                NIOSSLClientHandler(context: tls, serverHostname: Self.serverName(host)))
                        }
                        try channel.pipeline.syncOperations.addHandler(SMTPReplyHandler(continuation: continuation))
                    }
                }
                .connect(host: settings.host, port: settings.port).get()
        } catch {
            throw MailDeliveryError.connection("cannot connect to \(settings.host):\(settings.port) (\(error))")
        }
        defer { channel.close(promise: nil) }
        let timeout = self.timeout
        return try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                var conversation = SMTPConversation(channel: channel, replies: replies.makeAsyncIterator(), tls: tls)
                return try await conversation.run(message, settings: settings, clientName: clientName)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let answer = try await group.next() ?? nil else {
                throw MailDeliveryError.connection("no answer within \(timeout)")
            }
            return answer
        }
    }

    func makeTLSContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if let caFile = settings.caFile { configuration.trustRoots = .file(caFile) }
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw MailDeliveryError.connection("TLS cannot be set up (\(error))")
        }
    }

    /// The name sent for SNI and checked against the certificate; an IP address is not sent.
    static func serverName(_ host: String) -> String? {
        host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : host
    }
}

/// One reply: its code and its lines' text.
struct SMTPReply: Sendable {
    let code: Int
    let lines: [String]
    var text: String { lines.joined(separator: " ") }
}

/// The conversation for one message, in order.
private struct SMTPConversation {
    let channel: any Channel
    var replies: AsyncThrowingStream<SMTPReply, any Error>.AsyncIterator
    let tls: NIOSSLContext

    mutating func run(_ message: OutgoingMessage, settings: SMTPSettings, clientName: String) async throws -> String {
        _ = try await expectReply(220, during: "the greeting")
        var extensions = try await hello(clientName)
        var secure = settings.security == .implicitTLS
        if !secure, extensions.keys.contains("STARTTLS") {
            _ = try await command("STARTTLS", expect: 220)
            let host = settings.host
            let tls = self.tls
            let channel = self.channel
            try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.addHandler(
                    NIOSSLClientHandler(context: tls, serverHostname: SMTPTransport.serverName(host)), position: .first)
            }.get()
            secure = true
            extensions = try await hello(clientName)
        } else if !secure, settings.security == .startTLSRequired {
            throw MailDeliveryError.connection("the relay does not offer STARTTLS, and the SMTP URL says tls=required")
        }
        if let username = settings.username {
            guard secure || settings.isLoopback else {
                throw MailDeliveryError.connection(
                    "the relay offers no TLS, so the password is not sent (use a relay with STARTTLS, or smtps://)")
            }
            try await authenticate(username: username, password: settings.password ?? "", mechanisms: extensions["AUTH"] ?? [])
        }
        try await envelope("MAIL FROM:<\(message.sender)>", expect: [250])
        try await envelope("RCPT TO:<\(message.recipient)>", expect: [250, 251])
        try await envelope("DATA", expect: [354])
        try await channel.writeAndFlush(ByteBuffer(string: Self.dotStuffed(message.data) + ".\r\n"))
        let accepted = try await reply()
        guard accepted.code == 250 else { throw Self.failure(accepted, during: "the message", messageStage: true) }
        // The message is the relay's now; a failed goodbye changes nothing.
        if (try? await channel.writeAndFlush(ByteBuffer(string: "QUIT\r\n"))) != nil { _ = try? await reply() }
        return "\(accepted.code) \(accepted.text)"
    }

    /// EHLO (HELO when the relay knows no EHLO); the extensions offered, by keyword.
    mutating func hello(_ name: String) async throws -> [String: [String]] {
        try await send("EHLO \(name)")
        let answer = try await reply()
        if answer.code == 250 {
            var extensions: [String: [String]] = [:]
            for line in answer.lines.dropFirst() {
                let words = line.uppercased().split(separator: " ").map(String.init)
                if let keyword = words.first { extensions[keyword] = Array(words.dropFirst()) }
            }
            return extensions
        }
        _ = try await command("HELO \(name)", expect: 250)
        return [:]
    }

    mutating func authenticate(username: String, password: String, mechanisms: [String]) async throws {
        func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
        if mechanisms.contains("PLAIN") || !mechanisms.contains("LOGIN") {
            // The password never reaches a log: failures quote only the relay's reply.
            try await send("AUTH PLAIN " + base64("\0\(username)\0\(password)"))
            _ = try await expectReply(235, during: "the login (AUTH PLAIN)")
        } else {
            _ = try await command("AUTH LOGIN", expect: 334)
            try await send(base64(username))
            _ = try await expectReply(334, during: "the login (AUTH LOGIN user)")
            try await send(base64(password))
            _ = try await expectReply(235, during: "the login (AUTH LOGIN)")
        }
    }

    /// MAIL, RCPT, DATA: a 5xx here refuses this message for good.
    mutating func envelope(_ line: String, expect codes: Set<Int>) async throws {
        try await send(line)
        let answer = try await reply()
        guard codes.contains(answer.code) else {
            throw Self.failure(answer, during: String(line.prefix(4)), messageStage: true)
        }
    }

    mutating func command(_ line: String, expect code: Int) async throws -> SMTPReply {
        try await send(line)
        return try await expectReply(code, during: line)
    }

    mutating func expectReply(_ code: Int, during what: String) async throws -> SMTPReply {
        let reply = try await reply()
        guard reply.code == code else { throw Self.failure(reply, during: what, messageStage: false) }
        return reply
    }

    func send(_ line: String) async throws {
        do {
            try await channel.writeAndFlush(ByteBuffer(string: line + "\r\n"))
        } catch {
            throw MailDeliveryError.connection("the connection broke (\(error))")
        }
    }

    mutating func reply() async throws -> SMTPReply {
        do {
            guard let reply = try await replies.next() else { throw MailDeliveryError.connection("the relay closed the connection") }
            return reply
        } catch let error as MailDeliveryError {
            throw error
        } catch {
            throw MailDeliveryError.connection("\(error)")
        }
    }

    static func failure(_ reply: SMTPReply, during what: String, messageStage: Bool) -> MailDeliveryError {
        if messageStage, (500...599).contains(reply.code) { return .rejected(code: reply.code, reply: reply.text) }
        return .refused(code: reply.code, reply: reply.text, during: what)
    }

    /// CRLF lines, a `.` doubled at the start of any line (RFC 5321 4.5.2); ends with CRLF.
    static func dotStuffed(_ data: String) -> String {
        let normalized = data.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        var lines = normalized.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasPrefix(".") ? "." + $0 : String($0) }
        if lines.last == "" { lines.removeLast() }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}

/// Splits what the relay says into replies (`250-…` lines continue one, `250 …` ends it).
private final class SMTPReplyHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let continuation: AsyncThrowingStream<SMTPReply, any Error>.Continuation
    private var pending: [UInt8] = []
    private var lines: [String] = []

    init(continuation: AsyncThrowingStream<SMTPReply, any Error>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        pending.append(contentsOf: buffer.readableBytesView)
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            var line = pending[..<newline]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            pending.removeSubrange(...newline)
            let text = String(decoding: line, as: UTF8.self)
            guard text.count >= 3, let code = Int(text.prefix(3)) else {
                fail(context, MailDeliveryError.connection("the relay said something that is not SMTP: \(text.prefix(80))"))
                return
            }
            lines.append(String(text.dropFirst(4)))
            if text.count == 3 || text.dropFirst(3).first == " " {
                continuation.yield(SMTPReply(code: code, lines: lines))
                lines = []
            }
        }
        if pending.count > 64 * 1024 || lines.count > 1_000 {
            fail(context, MailDeliveryError.connection("the relay's reply is too long"))
        }
    }

    private func fail(_ context: ChannelHandlerContext, _ error: any Error) {
        continuation.finish(throwing: error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(context, error)
    }
}
