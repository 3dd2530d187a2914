import Foundation
import Logging
import OnTheMapModels
import ServiceLifecycle
import Storage
import Synchronization

/// Turns what a feature wants to say into an outbox row: composed once (Date, Message-ID),
/// written by the feature in the same transaction as its cause. nil when email is not set up.
public struct Mailer: Sendable {
    public let sender: MailAddress
    /// Every link in an email starts with it (`--public-url`'s origin).
    public let publicOrigin: String
    let wake: MailOutboxWake

    init?(configuration: Configuration, wake: MailOutboxWake) {
        guard configuration.smtp != nil, let sender = configuration.mailSender, let origin = configuration.publicOrigin else { return nil }
        self.sender = sender
        self.publicOrigin = origin
        self.wake = wake
    }

    /// The outbox row for `content` to `recipient`.
    public func mail(kind: String, to recipient: String, content: MailContent, now: Date) -> NewOutboxMail {
        let message = MailComposer.compose(from: sender, to: recipient, content: content, date: now)
        return NewOutboxMail(
            kind: kind, recipient: recipient, sender: sender.address, messageID: message.messageID, message: message.data)
    }

    /// After the transaction that wrote a message commits: the worker looks now, not at its next poll.
    public func messageWritten() { wake.signal() }
}

/// Wakes the worker early (a message was just written); signals while it works are kept as one.
final class MailOutboxWake: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    func signal() { continuation.yield() }

    /// Returns after `seconds`, or at once when signalled (or shutting down).
    func wait(seconds: TimeInterval) async {
        let stream = self.stream
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in stream { return }
            }
            group.addTask { try? await Task.sleep(for: .milliseconds(Int64(max(0.01, seconds) * 1000))) }
            _ = await group.next()
            group.cancelAll()
        }
    }
}

/// Sends what the outbox holds, as a background service: leases due messages, hands each to
/// the relay, marks it sent once the relay accepted it; a 4xx or no relay puts it off with
/// exponential backoff (30 s, 1 min, 2 min, … at most an hour); a 5xx to the message ends it;
/// a message still unsent a week after it was written is dropped with a log line.
///
/// Delivery is at least once at the relay boundary: a server killed (or a lease run out)
/// between the relay's 250 and the mark sends that message again, with the same Message-ID.
/// A lease (`leaseSeconds`, longer than a send may take) keeps other servers off a message
/// while it is being sent.
struct MailOutboxWorker: Service {
    let outbox: any MailOutboxRepository
    let transport: any MailTransport
    let clock: WallClock
    let metrics: ServerMetrics
    let logger: Logger
    let wake: MailOutboxWake
    var settings = Settings()
    /// This server's name on the leases it takes.
    let owner = "server-" + Tokens.randomHex(bytes: 8)

    struct Settings: Sendable {
        /// Longest wait between two looks at the outbox (another server may have written).
        var pollSeconds: TimeInterval = 10
        /// Longer than one send may take (`SMTPTransport.timeout`).
        var leaseSeconds: TimeInterval = 120
        var firstRetrySeconds: TimeInterval = 30
        var longestRetrySeconds: TimeInterval = 3600
        var maximumAge: TimeInterval = 7 * 86_400
        var batch = 10
    }

    struct Round: Sendable, Equatable {
        var sent = 0
        var retried = 0
        var failed = 0
        var dropped = 0
    }

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            var round = Round()
            do {
                round = try await deliverDue()
            } catch {
                logger.warning("mail outbox: cannot read the outbox", metadata: ["error": "\(error)"])
            }
            // A full batch: more may be waiting.
            if round.sent + round.retried + round.failed >= settings.batch { continue }
            var wait = settings.pollSeconds
            if let due = try? await outbox.nextMailDue() { wait = min(wait, max(0.05, due.timeIntervalSince(clock.now()))) }
            let seconds = wait
            try? await cancelWhenGracefulShutdown {
                await wake.wait(seconds: seconds)
                try Task.checkCancellation()
            }
        }
    }

    /// One look at the outbox: drops what is too old, then sends one batch of what is due.
    @discardableResult
    func deliverDue() async throws -> Round {
        var round = Round()
        let now = clock.now()
        for dropped in try await outbox.dropUnsentMail(createdBefore: now.addingTimeInterval(-settings.maximumAge)) {
            round.dropped += 1
            metrics.mailDropped.increment()
            logger.warning(
                "mail outbox: dropped a message not sent within a week",
                metadata: [
                    "mail_id": "\(dropped.id)", "kind": "\(dropped.kind)", "attempts": "\(dropped.attempts)",
                    "written_at": "\(ParseDate.string(from: dropped.createdAt))",
                ])
        }
        try await outbox.deleteFinishedMail(before: now.addingTimeInterval(-settings.maximumAge))
        let due = try await outbox.claimDueMail(owner: owner, now: now, leaseSeconds: settings.leaseSeconds, limit: settings.batch)
        for mail in due {
            let message = OutgoingMessage(sender: mail.sender, recipient: mail.recipient, messageID: mail.messageID, data: mail.message)
            do {
                let answer = try await transport.send(message)
                try await outbox.markMailSent(id: mail.id, now: clock.now())
                round.sent += 1
                metrics.mailSent.increment()
                logger.info("mail sent", metadata: ["mail_id": "\(mail.id)", "kind": "\(mail.kind)", "relay": "\(answer.prefix(120))"])
            } catch let error as MailDeliveryError where error.isPermanent {
                try await outbox.markMailFailed(id: mail.id, now: clock.now(), error: error.description)
                round.failed += 1
                metrics.mailFailed.increment()
                logger.warning(
                    "mail refused by the relay; not sent", metadata: ["mail_id": "\(mail.id)", "kind": "\(mail.kind)", "error": "\(error)"])
            } catch {
                let delay = retryDelay(afterAttempt: mail.attempts)
                try await outbox.markMailRetry(
                    id: mail.id, owner: owner, nextAttemptAt: clock.now().addingTimeInterval(delay), error: "\(error)")
                round.retried += 1
                metrics.mailRetried.increment()
                logger.notice(
                    "mail not sent yet; trying again",
                    metadata: [
                        "mail_id": "\(mail.id)", "kind": "\(mail.kind)", "attempt": "\(mail.attempts)", "in_seconds": "\(Int(delay))",
                        "error": "\(error)",
                    ])
            }
        }
        return round
    }

    /// 30 s after the first attempt, doubling, at most an hour.
    func retryDelay(afterAttempt attempt: Int) -> TimeInterval {
        min(settings.longestRetrySeconds, settings.firstRetrySeconds * pow(2, Double(max(0, min(attempt - 1, 20)))))
    }
}
