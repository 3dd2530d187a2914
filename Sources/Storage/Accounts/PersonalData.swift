import Foundation
import OnTheMapModels
import SQLKit

/// A student's location as its owner downloads it: with its class and whether a moderator hid it.
public struct OwnedLocation: Sendable, Equatable {
    public var classSlug: String
    public var record: StudentInformation
    public var hiddenReason: String?
}

/// A report the account made.
public struct ReportMade: Sendable, Equatable {
    public var objectId: String
    public var reason: String
    public var createdAt: Date
}

/// What deleting an account removed that lives outside the database: its pins' photo folders.
public struct AccountDeletion: Sendable, Equatable {
    public var pinIDs: [String]
    public var locationCount: Int
}

/// What a student may take away, and deleting all of it (GDPR articles 15, 17 and 20).
public protocol PersonalDataRepository: Sendable {
    /// Every location the account owns, in every class, hidden ones included.
    func ownedLocations(accountKey: String) async throws -> [OwnedLocation]
    func reportsMade(accountKey: String) async throws -> [ReportMade]
    /// Deletes the account and everything naming it, in one transaction: its locations in every
    /// class (viewers see them go) and the change log's copies of them, the reports it made and those on its posts, pins and photo
    /// records, sessions, devices, sign-in links and hand-offs, reset links, roster places,
    /// throttling counters and search allowances. Lines of the moderation log about it stay,
    /// with every field that named it cleared, and one anonymous line records the deletion. A
    /// class it was the only teacher of passes to the server's administrators. Nil when there
    /// is no such account. Throws `StorageError.lastAdministrator` (nothing changed) for the last
    /// enabled administrator, checked in the same transaction, as `setAdmin` does.
    func deleteAccount(key: String, now: Date) async throws -> AccountDeletion?
}

// (`SQLStore` conforms to `PersonalDataRepository` through `OnTheMapStore`.)
extension SQLStore {
    public func ownedLocations(accountKey: String) async throws -> [OwnedLocation] {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT student_locations.*, classes.slug AS class_slug FROM student_locations
                JOIN classes ON classes.id = student_locations.class_id
                WHERE student_locations.owner_key = \(bind: accountKey) ORDER BY classes.slug, student_locations.object_id
                """
            ).all().map { row in
                OwnedLocation(
                    classSlug: try row.decode(column: "class_slug", as: String.self), record: try Self.location(from: row),
                    hiddenReason: try row.decode(column: "hidden_reason", as: String?.self))
            }
        }
    }

    public func reportsMade(accountKey: String) async throws -> [ReportMade] {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT object_id, reason, created_at FROM location_reports WHERE reporter_key = \(bind: accountKey) ORDER BY created_at, id
                """
            ).all().map { row in
                ReportMade(
                    objectId: try row.decode(column: "object_id", as: String.self),
                    reason: try row.decode(column: "reason", as: String.self),
                    createdAt: ParseDate.date(from: try row.decode(column: "created_at", as: String.self)) ?? .distantPast)
            }
        }
    }

    /// What a moderation line about a deleted account's posts says instead of its moderator's
    /// words (which may name the person): the action, its time and its moderator stay.
    static let removedReason = "(removed with the account)"

    public func deleteAccount(key: String, now: Date) async throws -> AccountDeletion? {
        let stamp = ParseDate.string(from: now)
        let deletion: AccountDeletion? = try await withTransaction { db in
            guard
                let email = try await db.raw("SELECT email FROM accounts WHERE key = \(bind: key)").first()?
                    .decode(column: "email", as: String.self)
            else { return nil }
            guard
                try await db.raw(
                    """
                    \(unsafeRaw: self.enabledAdministrators) SELECT key FROM accounts WHERE key = \(bind: key) AND (\(self.leavesAnotherAdministrator(key)))
                    """
                ).first() != nil
            else { throw StorageError.lastAdministrator }
            let pins = try await db.raw("SELECT id FROM pins WHERE owner_key = \(bind: key)").all()
                .map { try $0.decode(column: "id", as: String.self) }
            // Classes it was the only teacher of pass to the server's (other, enabled) administrators.
            try await db.raw(
                """
                INSERT INTO class_members (class_id, account_key, role, joined_at)
                SELECT mine.class_id, admins.key, 'teacher', \(bind: stamp)
                FROM class_members AS mine, accounts AS admins
                WHERE mine.account_key = \(bind: key) AND mine.role = 'teacher'
                  AND NOT EXISTS (SELECT 1 FROM class_members AS other WHERE other.class_id = mine.class_id
                                  AND other.role = 'teacher' AND other.account_key <> \(bind: key))
                  AND admins.is_admin = 1 AND admins.disabled_at IS NULL AND admins.key <> \(bind: key)
                ON CONFLICT (class_id, account_key) DO UPDATE SET role = 'teacher'
                """
            ).run()
            try await db.raw(
                """
                DELETE FROM location_reports WHERE reporter_key = \(bind: key)
                   OR object_id IN (SELECT object_id FROM student_locations WHERE owner_key = \(bind: key) OR unique_key = \(bind: key))
                """
            ).run()
            let locations = try await db.raw(
                """
                DELETE FROM student_locations WHERE owner_key = \(bind: key) OR unique_key = \(bind: key) RETURNING object_id
                """
            ).all().count
            try await db.raw(
                """
                UPDATE moderation_actions SET account_key = NULL, object_id = NULL, map_string = NULL, reason = \(bind: Self.removedReason)
                WHERE account_key = \(bind: key)
                """
            ).run()
            try await db.raw("UPDATE moderation_actions SET moderator_key = NULL WHERE moderator_key = \(bind: key)").run()
            try await db.raw(
                """
                INSERT INTO moderation_actions (id, action, account_key, object_id, map_string, reason, moderator_key, created_at)
                VALUES (\(bind: UUID().uuidString.lowercased()), 'account_deleted', NULL, NULL, NULL, 'An account was deleted by its owner.', NULL, \(bind: stamp))
                """
            ).run()
            try await db.raw("DELETE FROM session_sign_ins WHERE session_id IN (SELECT id FROM sessions WHERE account_key = \(bind: key))")
                .run()
            for statement: SQLQueryString in [
                "DELETE FROM sessions WHERE account_key = \(bind: key)",
                "DELETE FROM login_devices WHERE account_key = \(bind: key)",
                "DELETE FROM sign_in_handoffs WHERE account_key = \(bind: key)",
                "DELETE FROM pending_sign_ins WHERE link_account_key = \(bind: key)",
                "DELETE FROM identity_links WHERE account_key = \(bind: key)",
                "DELETE FROM password_resets WHERE account_key = \(bind: key)",
                "DELETE FROM class_members WHERE account_key = \(bind: key)",
                "DELETE FROM class_notices WHERE account_key = \(bind: key)",
                "DELETE FROM class_invitations WHERE email = \(bind: email)",
                "UPDATE lti_roster SET account_key = NULL WHERE account_key = \(bind: key)",
                "DELETE FROM lti_tickets WHERE account_key = \(bind: key)",
                "DELETE FROM login_failures WHERE kind = 'account' AND subject = \(bind: email)",
                "DELETE FROM login_failures WHERE kind = 'deletion' AND subject = \(bind: key)",
                "DELETE FROM usage_counters WHERE name = \(bind: "search:" + key)",
                "DELETE FROM photos WHERE pin_id IN (SELECT id FROM pins WHERE owner_key = \(bind: key))",
                "DELETE FROM album_states WHERE pin_id IN (SELECT id FROM pins WHERE owner_key = \(bind: key))",
                "DELETE FROM pins WHERE owner_key = \(bind: key)",
                // The live map's log kept the records as they were written: names, places, the key.
                "DELETE FROM location_changes WHERE unique_key = \(bind: key)",
                // Its memberships' ends named it; its sessions' ends (by digest) close its streams.
                "DELETE FROM location_changes WHERE kind = 'ended' AND object_id = \(bind: key)",
                "DELETE FROM accounts WHERE key = \(bind: key)",
            ] {
                try await db.raw(statement).run()
            }
            return AccountDeletion(pinIDs: pins, locationCount: locations)
        }
        // The photo files go once the rows are gone (a crash between leaves orphans the photo sweep removes).
        for pin in deletion?.pinIDs ?? [] { await photoStorage.removePin(pinID: pin) }
        return deletion
    }
}
