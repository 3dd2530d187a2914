import Foundation
import OnTheMapModels
import SQLKit

/// "Remind those not yet on the map": a class's reminder emails, at most one round a day per
/// class. A round is its messages in the outbox (kind `class_reminder:<class id>`), so the
/// rule holds across restarts and servers for as long as the outbox keeps a message (a week).
public protocol ClassReminderRepository: Sendable {
    /// When the class's members were last reminded (nil: not within the outbox's memory).
    func lastClassReminder(classId: String) async throws -> Date?
    /// Writes the round's messages in one transaction, unless the class had a round after
    /// `since`: then nothing is written, and the answer is when that round was.
    func enqueueClassReminder(classId: String, mails: [NewOutboxMail], since: Date, now: Date) async throws -> Date?
}

extension ClassReminderRepository {
    /// The outbox kind of a class's reminders.
    public static func classReminderKind(classId: String) -> String { "class_reminder:" + classId }
}

// (`SQLStore` conforms through `OnTheMapStore`.)
extension SQLStore {
    public func lastClassReminder(classId: String) async throws -> Date? {
        try await withDatabase { db in try await Self.lastReminder(classId: classId, on: db) }
    }

    public func enqueueClassReminder(classId: String, mails: [NewOutboxMail], since: Date, now: Date) async throws -> Date? {
        try await withTransaction { db in
            // Two presses at once: the second waits for the first's round, then sees it.
            try await Self.lockClassRoster(classId: classId, on: db)
            if let last = try await Self.lastReminder(classId: classId, on: db), last > since { return last }
            for mail in mails {
                var mail = mail
                mail.kind = SQLStore.classReminderKind(classId: classId)
                try await Self.insertMail(mail, now: now, on: db)
            }
            return nil
        }
    }

    static func lastReminder(classId: String, on db: any SQLDatabase) async throws -> Date? {
        try await db.raw(
            "SELECT MAX(created_at) AS last FROM mail_outbox WHERE kind = \(bind: classReminderKind(classId: classId))"
        ).first()?.decode(column: "last", as: String?.self).flatMap(ParseDate.date(from:))
    }
}
