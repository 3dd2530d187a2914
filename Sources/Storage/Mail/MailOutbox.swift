import Foundation
import OnTheMapModels
import SQLKit

/// An email to write to the outbox: the envelope and the whole RFC 5322 text, composed once,
/// so every attempt sends the same bytes with the same Message-ID.
public struct NewOutboxMail: Sendable, Equatable {
    public var id: String
    /// What caused it (`password_reset`, `invitation`, …), for logs and counts.
    public var kind: String
    public var recipient: String
    public var sender: String
    public var messageID: String
    public var message: String

    public init(
        id: String = Tokens.randomHex(bytes: 12), kind: String, recipient: String, sender: String, messageID: String, message: String
    ) {
        self.id = id
        self.kind = kind
        self.recipient = recipient
        self.sender = sender
        self.messageID = messageID
        self.message = message
    }
}

/// A message a worker has leased to send.
public struct OutboxMail: Sendable, Equatable {
    public var id: String
    public var kind: String
    public var recipient: String
    public var sender: String
    public var messageID: String
    public var message: String
    public var createdAt: Date
    /// Attempts so far, this one included.
    public var attempts: Int
}

/// The durable outbox (`mail_outbox`). A message is sent at least once per acceptance by the
/// relay: a worker marks it sent only after the relay's 250, so a crash between the two sends
/// it again (with the same Message-ID, which mail systems use to tell a duplicate).
public protocol MailOutboxRepository: Sendable {
    /// Writes one message on its own (the cause is already stored, or there is none).
    func enqueueMail(_ mail: NewOutboxMail, now: Date) async throws
    /// Leases up to `limit` messages that are due and not leased by a live worker, counting an
    /// attempt on each. On PostgreSQL `FOR UPDATE SKIP LOCKED`: two servers never lease one
    /// message together; on SQLite the claim is one write transaction.
    func claimDueMail(owner: String, now: Date, leaseSeconds: TimeInterval, limit: Int) async throws -> [OutboxMail]
    /// The relay accepted it: never sent again; its text (and any link in it) is forgotten.
    func markMailSent(id: String, now: Date) async throws
    /// Try again at `nextAttemptAt`.
    func markMailRetry(id: String, owner: String, nextAttemptAt: Date, error: String) async throws
    /// The relay refused it for good.
    func markMailFailed(id: String, now: Date, error: String) async throws
    /// Deletes messages created before `createdBefore` that were never sent, and returns them.
    func dropUnsentMail(createdBefore: Date) async throws -> [OutboxMail]
    /// Deletes sent and failed messages' envelopes finished before `before`.
    func deleteFinishedMail(before: Date) async throws
    /// When the next unsent message is due (nil: none waits).
    func nextMailDue() async throws -> Date?
    /// Messages to `recipient` written since `since` (sent or not), for throttling.
    func mailCount(recipient: String, kind: String, since: Date) async throws -> Int
    /// Writes `mails` (all of one `kind`) in one transaction, unless the messages of that kind
    /// written since `since`, with these, would be more than `limit`: then nothing, and false.
    func enqueueMails(_ mails: [NewOutboxMail], kind: String, now: Date, since: Date, limit: Int) async throws -> Bool
    /// A reset link for the account (its token's digest) and the email carrying it, in one
    /// transaction: both or neither.
    func createPasswordReset(token: String, accountKey: String, now: Date, expiresAt: Date, mail: NewOutboxMail) async throws
}

extension SQLStore {
    /// Writes `mail` on `db`, inside the caller's transaction: the message exists exactly when
    /// what caused it does.
    static func insertMail(_ mail: NewOutboxMail, now: Date, on db: any SQLDatabase) async throws {
        let nowText = ParseDate.string(from: now)
        try await db.raw(
            """
            INSERT INTO mail_outbox (id, kind, recipient, sender, message_id, message, created_at, next_attempt_at, attempts)
            VALUES (\(bind: mail.id), \(bind: mail.kind), \(bind: mail.recipient), \(bind: mail.sender), \(bind: mail.messageID),
                    \(bind: mail.message), \(bind: nowText), \(bind: nowText), 0)
            """
        ).run()
    }

    public func enqueueMail(_ mail: NewOutboxMail, now: Date) async throws {
        try await withTransaction { db in try await Self.insertMail(mail, now: now, on: db) }
    }

    static let outboxColumns = "id, kind, recipient, sender, message_id, message, created_at, attempts"

    static func outboxMail(from row: any SQLRow) throws -> OutboxMail {
        OutboxMail(
            id: try row.decode(column: "id", as: String.self), kind: try row.decode(column: "kind", as: String.self),
            recipient: try row.decode(column: "recipient", as: String.self), sender: try row.decode(column: "sender", as: String.self),
            messageID: try row.decode(column: "message_id", as: String.self), message: try row.decode(column: "message", as: String.self),
            createdAt: ParseDate.date(from: try row.decode(column: "created_at", as: String.self)) ?? .distantPast,
            attempts: try row.decode(column: "attempts", as: Int.self))
    }

    public func claimDueMail(owner: String, now: Date, leaseSeconds: TimeInterval, limit: Int) async throws -> [OutboxMail] {
        let nowText = ParseDate.string(from: now)
        let leaseEnd = ParseDate.string(from: now.addingTimeInterval(leaseSeconds))
        let skipLocked: SQLQueryString = isPostgres ? " FOR UPDATE SKIP LOCKED" : ""
        return try await withTransaction { db in
            try await db.raw(
                """
                UPDATE mail_outbox SET lease_owner = \(bind: owner), lease_expires_at = \(bind: leaseEnd), attempts = attempts + 1
                WHERE id IN (
                    SELECT id FROM mail_outbox
                    WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= \(bind: nowText)
                      AND (lease_expires_at IS NULL OR lease_expires_at <= \(bind: nowText))
                    ORDER BY next_attempt_at, id LIMIT \(literal: max(1, limit))\(skipLocked))
                RETURNING \(unsafeRaw: Self.outboxColumns)
                """
            ).all().map(Self.outboxMail(from:)).sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        }
    }

    public func markMailSent(id: String, now: Date) async throws {
        // Whoever holds the lease now: the relay has it, so no one sends it again.
        try await withDatabase { db in
            try await db.raw(
                """
                UPDATE mail_outbox SET sent_at = \(bind: ParseDate.string(from: now)), message = '', lease_owner = NULL,
                       lease_expires_at = NULL, last_error = NULL
                WHERE id = \(bind: id) AND sent_at IS NULL
                """
            ).run()
        }
    }

    public func markMailRetry(id: String, owner: String, nextAttemptAt: Date, error: String) async throws {
        try await withDatabase { db in
            try await db.raw(
                """
                UPDATE mail_outbox SET next_attempt_at = \(bind: ParseDate.string(from: nextAttemptAt)), lease_owner = NULL,
                       lease_expires_at = NULL, last_error = \(bind: String(error.prefix(500)))
                WHERE id = \(bind: id) AND lease_owner = \(bind: owner) AND sent_at IS NULL
                """
            ).run()
        }
    }

    public func markMailFailed(id: String, now: Date, error: String) async throws {
        try await withDatabase { db in
            try await db.raw(
                """
                UPDATE mail_outbox SET failed_at = \(bind: ParseDate.string(from: now)), message = '', lease_owner = NULL,
                       lease_expires_at = NULL, last_error = \(bind: String(error.prefix(500)))
                WHERE id = \(bind: id) AND sent_at IS NULL
                """
            ).run()
        }
    }

    public func dropUnsentMail(createdBefore: Date) async throws -> [OutboxMail] {
        let before = ParseDate.string(from: createdBefore)
        return try await withTransaction { db in
            try await db.raw(
                """
                DELETE FROM mail_outbox WHERE sent_at IS NULL AND failed_at IS NULL AND created_at < \(bind: before)
                RETURNING \(unsafeRaw: Self.outboxColumns)
                """
            ).all().map(Self.outboxMail(from:))
        }
    }

    public func deleteFinishedMail(before: Date) async throws {
        let text = ParseDate.string(from: before)
        try await withDatabase { db in
            try await db.raw(
                "DELETE FROM mail_outbox WHERE (sent_at IS NOT NULL AND sent_at < \(bind: text)) OR (failed_at IS NOT NULL AND failed_at < \(bind: text))"
            ).run()
        }
    }

    public func nextMailDue() async throws -> Date? {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT MIN(CASE WHEN lease_expires_at IS NOT NULL AND lease_expires_at > next_attempt_at
                                THEN lease_expires_at ELSE next_attempt_at END) AS due
                FROM mail_outbox WHERE sent_at IS NULL AND failed_at IS NULL
                """
            ).first()?.decode(column: "due", as: String?.self).flatMap(ParseDate.date(from:))
        }
    }

    public func createPasswordReset(token: String, accountKey: String, now: Date, expiresAt: Date, mail: NewOutboxMail) async throws {
        try await withTransaction { db in
            try await db.raw(
                """
                INSERT INTO password_resets (digest, account_key, created_at, expires_at)
                VALUES (\(bind: SessionToken.digest(token)), \(bind: accountKey), \(bind: ParseDate.string(from: now)),
                        \(bind: ParseDate.string(from: expiresAt)))
                """
            ).run()
            try await Self.insertMail(mail, now: now, on: db)
        }
    }

    public func enqueueMails(_ mails: [NewOutboxMail], kind: String, now: Date, since: Date, limit: Int) async throws -> Bool {
        try await withTransaction { db in
            let written =
                try await db.raw(
                    "SELECT COUNT(*) AS n FROM mail_outbox WHERE kind = \(bind: kind) AND created_at >= \(bind: ParseDate.string(from: since))"
                ).first()?.decode(column: "n", as: Int.self) ?? 0
            guard written + mails.count <= limit else { return false }
            for mail in mails { try await Self.insertMail(mail, now: now, on: db) }
            return true
        }
    }

    public func mailCount(recipient: String, kind: String, since: Date) async throws -> Int {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT COUNT(*) AS n FROM mail_outbox
                WHERE recipient = \(bind: recipient) AND kind = \(bind: kind) AND created_at >= \(bind: ParseDate.string(from: since))
                """
            ).first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }
}
