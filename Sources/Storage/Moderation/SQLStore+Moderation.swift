import Foundation
import OnTheMapModels
import SQLKit

// (`SQLStore` conforms to `ModerationRepository` through `OnTheMapStore`.)
extension SQLStore {
    public func accountSummaries() async throws -> [AccountSummary] {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT accounts.*, (SELECT COUNT(*) FROM student_locations WHERE owner_key = accounts.key) AS location_count
                FROM accounts ORDER BY created_at, key
                """
            ).all().map { row in
                AccountSummary(account: try Self.account(from: row), locationCount: try row.decode(column: "location_count", as: Int.self))
            }
        }
    }

    @discardableResult
    public func setAdmin(accountKey: String, _ isAdmin: Bool) async throws -> AccountChange {
        try await withDatabase { db in
            let changed = try await !db.raw(
                """
                \(unsafeRaw: self.enabledAdministrators)
                UPDATE accounts SET is_admin = \(bind: isAdmin ? 1 : 0) WHERE key = \(bind: accountKey)
                  AND (\(bind: isAdmin ? 1 : 0) = 1 OR \(self.leavesAnotherAdministrator(accountKey))) RETURNING key
                """
            ).all().isEmpty
            return changed ? .done(endedSessions: 0) : try await Self.refusal(accountKey: accountKey, on: db)
        }
    }

    public func setDisabled(accountKey: String, _ disabled: Bool, now: Date) async throws -> AccountChange {
        let stamp: String? = disabled ? ParseDate.string(from: now) : nil
        return try await withDatabase { db in
            // The flag first: from here on no login succeeds and no session resolves (see
            // `session(id:now:)`), so deleting the sessions next cannot miss one.
            guard
                try await !db.raw(
                    """
                    \(unsafeRaw: self.enabledAdministrators)
                    UPDATE accounts SET disabled_at = \(bind: stamp) WHERE key = \(bind: accountKey)
                      AND (\(bind: disabled ? 0 : 1) = 1 OR \(self.leavesAnotherAdministrator(accountKey))) RETURNING key
                    """
                ).all().isEmpty
            else { return try await Self.refusal(accountKey: accountKey, on: db) }
            // A write to student_locations, so other servers' list caches hear of it.
            try await db.raw(
                "UPDATE student_locations SET owner_disabled = \(bind: disabled ? 1 : 0) WHERE owner_key = \(bind: accountKey)"
            ).run()
            guard disabled else { return .done(endedSessions: 0) }
            try await Self.spendPasswordResets(accountKey: accountKey, now: now, on: db)
            return .done(
                endedSessions: try await db.raw("DELETE FROM sessions WHERE account_key = \(bind: accountKey) RETURNING id").all().count)
        }
    }

    /// At least one enabled administrator always remains. The check is part of the UPDATE
    /// that takes the role away or disables: the target is not an enabled administrator, or
    /// another one exists. On PostgreSQL the enabled administrators' rows are first locked in
    /// key order (`enabledAdministrators`), so of two statements racing to remove the last two,
    /// the second waits for the first, then sees its change and refuses; SQLite runs one
    /// writing statement at a time.
    func leavesAnotherAdministrator(_ accountKey: String) -> SQLQueryString {
        let others: SQLQueryString =
            isPostgres
            ? "EXISTS (SELECT 1 FROM enabled_admins WHERE enabled_admins.key <> \(bind: accountKey))"
            : "EXISTS (SELECT 1 FROM accounts other WHERE other.is_admin = 1 AND other.disabled_at IS NULL AND other.key <> \(bind: accountKey))"
        return "is_admin = 0 OR disabled_at IS NOT NULL OR " + others
    }

    var enabledAdministrators: String {
        isPostgres
            ? "WITH enabled_admins AS (SELECT key FROM accounts WHERE is_admin = 1 AND disabled_at IS NULL ORDER BY key FOR UPDATE)" : ""
    }

    private static func refusal(accountKey: String, on db: any SQLDatabase) async throws -> AccountChange {
        try await db.raw("SELECT key FROM accounts WHERE key = \(bind: accountKey)").first() == nil ? .notFound : .lastAdministrator
    }

    public func moderatedLocation(objectId: String, in classId: String) async throws -> ModeratedLocation? {
        let found = try await withDatabase { db in
            try await db.raw(
                """
                SELECT \(unsafeRaw: Self.moderatedColumns) FROM student_locations WHERE object_id = \(bind: objectId) AND class_id = \(bind: classId)
                """
            ).first().map(Self.moderated(from:))
        }
        guard let found else { return nil }
        return try await withReasons(found)
    }

    public func moderationList(_ view: ModerationView, in classId: String, limit: Int) async throws -> [ModeratedLocation] {
        let limit = max(0, min(limit, 500))
        let rows = try await withDatabase { db in
            switch view {
            case .newest:
                try await db.raw(
                    """
                    SELECT \(unsafeRaw: Self.moderatedColumns) FROM student_locations WHERE class_id = \(bind: classId)
                    ORDER BY created_at DESC, object_id DESC LIMIT \(literal: limit)
                    """
                ).all().map(Self.moderated(from:))
            case .waiting:
                try await db.raw(
                    """
                    SELECT \(unsafeRaw: Self.moderatedColumns) FROM student_locations
                    WHERE class_id = \(bind: classId) AND \(unsafeRaw: VisiblePost.waiting)
                    ORDER BY updated_at, object_id LIMIT \(literal: limit)
                    """
                ).all().map(Self.moderated(from:))
            case .reported:
                try await db.raw(
                    """
                    SELECT \(unsafeRaw: Self.moderatedColumns) FROM student_locations
                    WHERE class_id = \(bind: classId) AND object_id IN (SELECT object_id FROM location_reports)
                    ORDER BY report_count DESC, updated_at DESC, object_id DESC LIMIT \(literal: limit)
                    """
                ).all().map(Self.moderated(from:))
            }
        }
        var result: [ModeratedLocation] = []
        for row in rows { result.append(try await withReasons(row)) }
        return result
    }

    public func setHidden(objectId: String, in classId: String, _ hidden: Bool, reason: String, moderatorKey: String?, now: Date)
        async throws -> Bool
    {
        let stamp = ParseDate.string(from: now)
        return try await withDatabase { db in
            let updated = try await db.raw(
                """
                UPDATE student_locations SET hidden_at = \(bind: hidden ? stamp : nil), hidden_reason = \(bind: hidden ? reason : nil)
                WHERE object_id = \(bind: objectId) AND class_id = \(bind: classId) RETURNING owner_key, map_string
                """
            ).first()
            guard let updated else { return false }
            try await Self.log(
                hidden ? .hide : .unhide, objectId: objectId, row: updated, reason: reason,
                moderatorKey: moderatorKey, at: stamp, on: db)
            return true
        }
    }

    public func moderatorDelete(objectId: String, in classId: String, reason: String, moderatorKey: String?, now: Date) async throws -> Bool
    {
        let stamp = ParseDate.string(from: now)
        return try await withTransaction { db in
            let deleted = try await db.raw(
                "DELETE FROM student_locations WHERE object_id = \(bind: objectId) AND class_id = \(bind: classId) RETURNING owner_key, map_string"
            ).first()
            guard let deleted else { return false }
            try await db.raw("DELETE FROM location_reports WHERE object_id = \(bind: objectId)").run()
            try await Self.log(.delete, objectId: objectId, row: deleted, reason: reason, moderatorKey: moderatorKey, at: stamp, on: db)
            return true
        }
    }

    public func approve(objectId: String, in classId: String, moderatorKey: String?, now: Date) async throws -> Bool {
        let stamp = ParseDate.string(from: now)
        return try await withTransaction { db in
            guard
                let approved = try await db.raw(
                    """
                    UPDATE student_locations SET waiting = 0
                    WHERE object_id = \(bind: objectId) AND class_id = \(bind: classId) AND waiting = 1 RETURNING owner_key, map_string
                    """
                ).first()
            else { return false }
            try await Self.log(
                .approve, objectId: objectId, row: approved, reason: "Approved by a moderator.", moderatorKey: moderatorKey,
                at: stamp, on: db)
            return true
        }
    }

    public func reject(objectId: String, in classId: String, reason: String, moderatorKey: String?, now: Date) async throws -> Bool {
        let stamp = ParseDate.string(from: now)
        return try await withTransaction { db in
            guard
                let rejected = try await db.raw(
                    """
                    DELETE FROM student_locations
                    WHERE object_id = \(bind: objectId) AND class_id = \(bind: classId) AND waiting = 1 RETURNING owner_key, map_string
                    """
                ).first()
            else { return false }
            try await db.raw("DELETE FROM location_reports WHERE object_id = \(bind: objectId)").run()
            try await Self.log(.reject, objectId: objectId, row: rejected, reason: reason, moderatorKey: moderatorKey, at: stamp, on: db)
            return true
        }
    }

    public func moderationNotices(accountKey: String, limit: Int) async throws -> [ModerationNotice] {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT * FROM moderation_actions WHERE account_key = \(bind: accountKey)
                ORDER BY created_at DESC, id DESC LIMIT \(literal: max(0, min(limit, 100)))
                """
            ).all().compactMap { row in
                guard let action = ModerationNotice.Action(rawValue: try row.decode(column: "action", as: String.self)) else { return nil }
                return ModerationNotice(
                    action: action,
                    objectId: try row.decode(column: "object_id", as: String?.self),
                    mapString: try row.decode(column: "map_string", as: String?.self),
                    reason: try row.decode(column: "reason", as: String.self),
                    createdAt: ParseDate.date(from: try row.decode(column: "created_at", as: String.self)) ?? .distantPast
                )
            }
        }
    }

    public func report(objectId: String, in classId: String, reporterKey: String, reason: String, now: Date) async throws -> ReportOutcome {
        let id = UUID().uuidString.lowercased()
        return try await withDatabase { db in
            // Only posts the reporter can see; one report per reporter and post (the race-free way).
            guard
                try await db.raw(
                    "SELECT object_id FROM student_locations WHERE object_id = \(bind: objectId) AND class_id = \(bind: classId) AND \(unsafeRaw: VisiblePost.condition)"
                ).first() != nil
            else { return .notFound }
            let inserted = try await db.raw(
                """
                INSERT INTO location_reports (id, object_id, reporter_key, reason, created_at)
                VALUES (\(bind: id), \(bind: objectId), \(bind: reporterKey), \(bind: reason), \(bind: ParseDate.string(from: now)))
                ON CONFLICT (object_id, reporter_key) DO NOTHING RETURNING id
                """
            ).all()
            return inserted.isEmpty ? .alreadyReported : .reported
        }
    }

    public func reportCount(reporterKey: String, since: Date) async throws -> Int {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT COUNT(*) AS n FROM location_reports
                WHERE reporter_key = \(bind: reporterKey) AND created_at > \(bind: ParseDate.string(from: since))
                """
            ).first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    public func createPasswordReset(token: String, accountKey: String, now: Date, expiresAt: Date) async throws {
        try await withDatabase { db in
            try await db.raw(
                """
                INSERT INTO password_resets (digest, account_key, created_at, expires_at)
                VALUES (\(bind: SessionToken.digest(token)), \(bind: accountKey), \(bind: ParseDate.string(from: now)),
                        \(bind: ParseDate.string(from: expiresAt)))
                """
            ).run()
        }
    }

    public func passwordResetAccount(token: String, now: Date) async throws -> String? {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT account_key FROM password_resets
                WHERE digest = \(bind: SessionToken.digest(token)) AND used_at IS NULL AND expires_at > \(bind: ParseDate.string(from: now))
                """
            ).first()?.decode(column: "account_key", as: String.self)
        }
    }

    public func consumePasswordReset(token: String, now: Date) async throws -> String? {
        let nowText = ParseDate.string(from: now)
        return try await withDatabase { db in
            // One UPDATE both checks and spends the link, so two uses racing cannot both win.
            try await db.raw(
                """
                UPDATE password_resets SET used_at = \(bind: nowText)
                WHERE digest = \(bind: SessionToken.digest(token)) AND used_at IS NULL AND expires_at > \(bind: nowText)
                RETURNING account_key
                """
            ).first()?.decode(column: "account_key", as: String.self)
        }
    }

    // MARK: Helpers

    private static let moderatedColumns =
        locationColumns + """
            , owner_key, hidden_at, hidden_reason, owner_disabled, waiting,
            (SELECT COUNT(*) FROM location_reports WHERE location_reports.object_id = student_locations.object_id) AS report_count
            """

    private static func moderated(from row: any SQLRow) throws -> ModeratedLocation {
        ModeratedLocation(
            record: try location(from: row),
            ownerKey: try row.decode(column: "owner_key", as: String?.self),
            hiddenAt: try row.decode(column: "hidden_at", as: String?.self).flatMap(ParseDate.date(from:)),
            hiddenReason: try row.decode(column: "hidden_reason", as: String?.self),
            ownerDisabled: try row.decode(column: "owner_disabled", as: Int.self) != 0,
            waiting: try row.decode(column: "waiting", as: Int.self) != 0,
            reportCount: try row.decode(column: "report_count", as: Int.self),
            reportReasons: []
        )
    }

    private func withReasons(_ location: ModeratedLocation) async throws -> ModeratedLocation {
        guard location.reportCount > 0 else { return location }
        var result = location
        let objectId = location.record.objectId
        result.reportReasons = try await withDatabase { db in
            try await db.raw(
                """
                SELECT reason FROM location_reports WHERE object_id = \(bind: objectId)
                ORDER BY created_at DESC, id DESC LIMIT 5
                """
            ).all().map { try $0.decode(column: "reason", as: String.self) }
        }
        return result
    }

    private static func log(
        _ action: ModerationNotice.Action, objectId: String, row: any SQLRow, reason: String,
        moderatorKey: String?, at stamp: String, on db: any SQLDatabase
    ) async throws {
        let owner = try row.decode(column: "owner_key", as: String?.self)
        let mapString = try row.decode(column: "map_string", as: String.self)
        try await db.raw(
            """
            INSERT INTO moderation_actions (id, action, account_key, object_id, map_string, reason, moderator_key, created_at)
            VALUES (\(bind: UUID().uuidString.lowercased()), \(bind: action.rawValue), \(bind: owner),
                    \(bind: objectId), \(bind: mapString), \(bind: reason), \(bind: moderatorKey), \(bind: stamp))
            """
        ).run()
    }
}
