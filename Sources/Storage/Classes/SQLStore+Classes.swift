import Foundation
import OnTheMapModels
import SQLKit

// Classes and their rosters (migration 11).
// (`SQLStore` conforms to `ClassRepository` through `OnTheMapStore`.)
extension SQLStore {
    public func createClass(_ mapClass: MapClass, teacherKey: String?, now: Date) async throws {
        let c = mapClass
        try await withTransaction { db in
            let inserted = try await db.raw(
                """
                INSERT INTO classes (id, slug, name, visibility, join_rule, precision, approval, invite_code, created_at)
                VALUES (\(bind: c.id), \(bind: c.slug), \(bind: c.name), \(bind: c.visibility.rawValue), \(bind: c.joinRule.rawValue),
                        \(bind: c.precision.rawValue), \(bind: c.approval.rawValue), \(bind: c.inviteCode), \(bind: ParseDate.string(from: c.createdAt)))
                ON CONFLICT (slug) DO NOTHING RETURNING id
                """
            ).all()
            if inserted.isEmpty { throw StorageError.slugTaken }
            if let teacherKey {
                try await Self.upsertMember(classId: c.id, accountKey: teacherKey, role: .teacher, now: now, on: db)
            }
        }
    }

    public func mapClass(slug: String) async throws -> MapClass? {
        try await withDatabase { db in
            try await db.raw("SELECT * FROM classes WHERE slug = \(bind: slug)").first().map(Self.mapClass(from:))
        }
    }

    public func mapClass(id: String) async throws -> MapClass? {
        try await withDatabase { db in
            try await db.raw("SELECT * FROM classes WHERE id = \(bind: id)").first().map(Self.mapClass(from:))
        }
    }

    public func classSummaries() async throws -> [ClassSummary] {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT classes.*,
                       (SELECT COUNT(*) FROM class_members WHERE class_members.class_id = classes.id) AS member_count,
                       (SELECT COUNT(*) FROM student_locations WHERE student_locations.class_id = classes.id) AS location_count
                FROM classes ORDER BY slug
                """
            ).all().map { row in
                ClassSummary(
                    mapClass: try Self.mapClass(from: row), memberCount: try row.decode(column: "member_count", as: Int.self),
                    locationCount: try row.decode(column: "location_count", as: Int.self))
            }
        }
    }

    public func changeClass(id: String, _ changes: ClassChanges) async throws -> MapClass? {
        var sets: [SQLQueryString] = []
        if let name = changes.name { sets.append("name = \(bind: name)") }
        if let visibility = changes.visibility { sets.append("visibility = \(bind: visibility.rawValue)") }
        if let join = changes.joinRule { sets.append("join_rule = \(bind: join.rawValue)") }
        if let precision = changes.precision { sets.append("precision = \(bind: precision.rawValue)") }
        if let approval = changes.approval { sets.append("approval = \(bind: approval.rawValue)") }
        if let code = changes.inviteCode {
            sets.append("invite_code = \(bind: code)")
        } else if let code = changes.inviteCodeIfNone {
            sets.append("invite_code = COALESCE(invite_code, \(bind: code))")
        }
        if let archived = changes.archived {
            sets.append(
                archived ? "archived_at = COALESCE(archived_at, \(bind: ParseDate.string(from: changes.now)))" : "archived_at = NULL")
        }
        guard !sets.isEmpty else { return try await mapClass(id: id) }
        let assignments = sets.joined(separator: ", ")
        return try await withDatabase { db in
            try await db.raw("UPDATE classes SET \(assignments) WHERE id = \(bind: id) RETURNING *").first().map(Self.mapClass(from:))
        }
    }

    public func classes(ofAccount accountKey: String) async throws -> [(mapClass: MapClass, role: ClassRole)] {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT classes.*, class_members.role AS member_role FROM class_members JOIN classes ON classes.id = class_members.class_id
                WHERE class_members.account_key = \(bind: accountKey) ORDER BY classes.name, classes.slug
                """
            ).all().map { row in
                (try Self.mapClass(from: row), ClassRole(rawValue: try row.decode(column: "member_role", as: String.self)) ?? .student)
            }
        }
    }

    public func openClasses(notJoinedBy accountKey: String) async throws -> [MapClass] {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT * FROM classes WHERE join_rule = 'open' AND archived_at IS NULL AND NOT EXISTS (
                    SELECT 1 FROM class_members WHERE class_members.class_id = classes.id AND class_members.account_key = \(bind: accountKey))
                ORDER BY name, slug
                """
            ).all().map(Self.mapClass(from:))
        }
    }

    public func members(classId: String) async throws -> [ClassMember] {
        let onMap = VisiblePost.onMap(account: "class_members.account_key", classId: "class_members.class_id")
        let waiting = VisiblePost.waitingForApproval(account: "class_members.account_key", classId: "class_members.class_id")
        return try await withDatabase { db in
            try await db.raw(
                """
                SELECT accounts.key, accounts.email, accounts.first_name, accounts.last_name, class_members.role, class_members.joined_at,
                       accounts.disabled_at,
                       CASE WHEN \(unsafeRaw: onMap) THEN 'on_map' WHEN \(unsafeRaw: waiting) THEN 'waiting' ELSE 'not_yet' END AS map_status,
                       \(unsafeRaw: VisiblePost.lastPost(account: "class_members.account_key", classId: "class_members.class_id")) AS last_post_at
                FROM class_members JOIN accounts ON accounts.key = class_members.account_key
                WHERE class_members.class_id = \(bind: classId)
                ORDER BY CASE class_members.role WHEN 'teacher' THEN 0 WHEN 'moderator' THEN 1 ELSE 2 END,
                         accounts.last_name, accounts.first_name, accounts.key
                """
            ).all().map { row in
                ClassMember(
                    accountKey: try row.decode(column: "key", as: String.self),
                    email: try row.decode(column: "email", as: String.self),
                    firstName: try row.decode(column: "first_name", as: String.self),
                    lastName: try row.decode(column: "last_name", as: String.self),
                    role: ClassRole(rawValue: try row.decode(column: "role", as: String.self)) ?? .student,
                    joinedAt: ParseDate.date(from: try row.decode(column: "joined_at", as: String.self)) ?? .distantPast,
                    mapStatus: ClassMapStatus(rawValue: try row.decode(column: "map_status", as: String.self)) ?? .notYet,
                    lastPostAt: try row.decode(column: "last_post_at", as: String?.self).flatMap(ParseDate.date(from:)),
                    disabled: try row.decode(column: "disabled_at", as: String?.self) != nil
                )
            }
        }
    }

    public func role(classId: String, accountKey: String) async throws -> ClassRole? {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT role FROM class_members WHERE class_id = \(bind: classId) AND account_key = \(bind: accountKey)
                """
            ).first()?.decode(column: "role", as: String.self)
        }.flatMap(ClassRole.init(rawValue:))
    }

    public func memberKeys(classId: String, role: ClassRole) async throws -> [String] {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT account_key FROM class_members WHERE class_id = \(bind: classId) AND role = \(bind: role.rawValue)
                """
            ).all().map { try $0.decode(column: "account_key", as: String.self) }
        }
    }

    public func setMember(classId: String, accountKey: String, role: ClassRole, now: Date) async throws -> MembershipChange {
        try await withTransaction { db in
            try await Self.lockClassRoster(classId: classId, on: db)
            guard try await db.raw("SELECT 1 AS x FROM classes WHERE id = \(bind: classId)").first() != nil,
                try await db.raw("SELECT 1 AS x FROM accounts WHERE key = \(bind: accountKey)").first() != nil
            else { return .notFound }
            if role != .teacher, try await Self.isLastTeacher(classId: classId, accountKey: accountKey, on: db) { return .lastTeacher }
            try await Self.upsertMember(classId: classId, accountKey: accountKey, role: role, now: now, on: db)
            return .done
        }
    }

    public func changeRole(classId: String, accountKey: String, role: ClassRole) async throws -> MembershipChange {
        try await withTransaction { db in
            try await Self.lockClassRoster(classId: classId, on: db)
            guard
                let current = try await db.raw(
                    """
                    SELECT role FROM class_members WHERE class_id = \(bind: classId) AND account_key = \(bind: accountKey)
                    """
                ).first()?.decode(column: "role", as: String.self)
            else { return .notFound }
            if role != .teacher, current == ClassRole.teacher.rawValue,
                try await Self.isLastTeacher(classId: classId, accountKey: accountKey, on: db)
            {
                return .lastTeacher
            }
            try await db.raw(
                """
                UPDATE class_members SET role = \(bind: role.rawValue) WHERE class_id = \(bind: classId) AND account_key = \(bind: accountKey)
                """
            ).run()
            return .done
        }
    }

    public func invite(classId: String, email: String, role: ClassRole, now: Date) async throws {
        try await withDatabase { db in
            try await db.raw(
                """
                INSERT INTO class_invitations (class_id, email, role, invited_at)
                VALUES (\(bind: classId), \(bind: email), \(bind: role.rawValue), \(bind: ParseDate.string(from: now)))
                ON CONFLICT (class_id, email) DO UPDATE SET role = excluded.role, invited_at = excluded.invited_at
                """
            ).run()
        }
    }

    public func invitations(classId: String) async throws -> [ClassInvitation] {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT email, role, invited_at FROM class_invitations WHERE class_id = \(bind: classId) ORDER BY email
                """
            ).all().map { row in
                ClassInvitation(
                    email: try row.decode(column: "email", as: String.self),
                    role: ClassRole(rawValue: try row.decode(column: "role", as: String.self)) ?? .student,
                    invitedAt: ParseDate.date(from: try row.decode(column: "invited_at", as: String.self)) ?? .distantPast)
            }
        }
    }

    @discardableResult
    public func withdrawInvitation(classId: String, email: String) async throws -> Bool {
        try await touchesARow("DELETE FROM class_invitations WHERE class_id = \(bind: classId) AND email = \(bind: email) RETURNING email")
    }

    /// Who may take an invitation of their address: an account whose address a provider
    /// vouched for, or one that already had the address when it was invited (as adding it
    /// directly once did). A password sign-up proves nothing about its address, so one made
    /// after the invitation cannot take it: the teacher invites again, or the student uses the
    /// class's invite link.
    static func mayTakeInvitation(accountKey: String) -> SQLQueryString {
        """
        EXISTS (SELECT 1 FROM accounts WHERE accounts.key = \(bind: accountKey)
                AND (accounts.email_verified = 1 OR accounts.created_at <= class_invitations.invited_at))
        """
    }

    public func classesInviting(email: String, notJoinedBy accountKey: String) async throws -> [MapClass] {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT classes.* FROM class_invitations JOIN classes ON classes.id = class_invitations.class_id
                WHERE class_invitations.email = \(bind: email) AND \(Self.mayTakeInvitation(accountKey: accountKey)) AND NOT EXISTS (
                    SELECT 1 FROM class_members WHERE class_members.class_id = classes.id AND class_members.account_key = \(bind: accountKey))
                ORDER BY classes.name, classes.slug
                """
            ).all().map(Self.mapClass(from:))
        }
    }

    public func acceptInvitation(classId: String, email: String, accountKey: String, now: Date) async throws -> ClassRole? {
        try await withTransaction { db in
            try await Self.lockClassRoster(classId: classId, on: db)
            guard
                let row = try await db.raw(
                    """
                    DELETE FROM class_invitations
                    WHERE class_id = \(bind: classId) AND email = \(bind: email) AND \(Self.mayTakeInvitation(accountKey: accountKey))
                    RETURNING role
                    """
                ).first()
            else { return nil }
            let invited = ClassRole(rawValue: try row.decode(column: "role", as: String.self)) ?? .student
            try await db.raw(
                """
                INSERT INTO class_members (class_id, account_key, role, joined_at)
                VALUES (\(bind: classId), \(bind: accountKey), \(bind: invited.rawValue), \(bind: ParseDate.string(from: now)))
                ON CONFLICT (class_id, account_key) DO NOTHING
                """
            ).run()
            let kept = try await db.raw(
                """
                SELECT role FROM class_members WHERE class_id = \(bind: classId) AND account_key = \(bind: accountKey)
                """
            ).first()?.decode(column: "role", as: String.self)
            return kept.flatMap(ClassRole.init(rawValue:)) ?? invited
        }
    }

    public func join(classId: String, accountKey: String, now: Date) async throws {
        try await withDatabase { db in
            try await db.raw(
                """
                INSERT INTO class_members (class_id, account_key, role, joined_at)
                VALUES (\(bind: classId), \(bind: accountKey), 'student', \(bind: ParseDate.string(from: now)))
                ON CONFLICT (class_id, account_key) DO NOTHING
                """
            ).run()
        }
    }

    public func removeMember(classId: String, accountKey: String) async throws -> MembershipChange {
        try await withTransaction { db in
            try await Self.lockClassRoster(classId: classId, on: db)
            if try await Self.isLastTeacher(classId: classId, accountKey: accountKey, on: db) { return .lastTeacher }
            let removed = try await db.raw(
                """
                DELETE FROM class_members WHERE class_id = \(bind: classId) AND account_key = \(bind: accountKey) RETURNING account_key
                """
            ).all()
            // Their place on this class's map goes with them (and its reports, as a delete does).
            try await db.raw(
                """
                DELETE FROM location_reports WHERE object_id IN (
                    SELECT object_id FROM student_locations WHERE class_id = \(bind: classId) AND owner_key = \(bind: accountKey))
                """
            ).run()
            let locations = try await db.raw(
                """
                DELETE FROM student_locations WHERE class_id = \(bind: classId) AND owner_key = \(bind: accountKey) RETURNING object_id
                """
            ).all()
            // So do the notices they asked for as its moderator or teacher: nobody is told of a
            // class they left (rejoining, they ask again).
            try await db.raw("DELETE FROM class_notices WHERE class_id = \(bind: classId) AND account_key = \(bind: accountKey)").run()
            return removed.isEmpty && locations.isEmpty ? .notFound : .done
        }
    }

    public func rewritePlaces(in classId: String, only objectId: String?, _ place: @Sendable (StudentInformation) -> PlaceRewrite?)
        async throws -> Int
    {
        let one: SQLQueryString = objectId.map { "AND object_id = \(bind: $0)" } ?? ""
        var changed = 0
        var last = ""
        while true {
            let after = last
            let page = try await withDatabase { db in
                try await db.raw(
                    """
                    SELECT \(unsafeRaw: Self.locationColumns) FROM student_locations
                    WHERE class_id = \(bind: classId) \(one) AND object_id > \(bind: after) ORDER BY object_id LIMIT 500
                    """
                ).all().map(Self.location(from:))
            }
            for record in page {
                guard let rewrite = place(record),
                    rewrite.latitude != record.latitude || rewrite.longitude != record.longitude || rewrite.mapString != record.mapString
                else { continue }
                try await withTransaction { db in
                    try await db.raw(
                        """
                        UPDATE student_locations SET latitude = \(bind: rewrite.latitude), longitude = \(bind: rewrite.longitude),
                            map_string = \(bind: rewrite.mapString)
                        WHERE object_id = \(bind: record.objectId) AND class_id = \(bind: classId)
                        """
                    ).run()
                    var moved = record
                    moved.mapString = rewrite.mapString
                    try await Self.writeSearchTerms(of: moved, classId: classId, on: db)
                }
                changed += 1
            }
            guard page.count == 500, let next = page.last?.objectId else { break }
            last = next
        }
        // The log's earlier entries of each record rewritten held the point just replaced: each
        // update's entry replaced them (migration 18), so no server can replay them.
        return changed
    }

    /// Whether the account is the class's only teacher (run inside the changing transaction).
    private static func isLastTeacher(classId: String, accountKey: String, on db: any SQLDatabase) async throws -> Bool {
        let teachers = try await db.raw(
            """
            SELECT account_key FROM class_members WHERE class_id = \(bind: classId) AND role = 'teacher'
            """
        ).all().map { try $0.decode(column: "account_key", as: String.self) }
        return teachers == [accountKey]
    }

    private static func upsertMember(classId: String, accountKey: String, role: ClassRole, now: Date, on db: any SQLDatabase) async throws {
        try await db.raw(
            """
            INSERT INTO class_members (class_id, account_key, role, joined_at)
            VALUES (\(bind: classId), \(bind: accountKey), \(bind: role.rawValue), \(bind: ParseDate.string(from: now)))
            ON CONFLICT (class_id, account_key) DO UPDATE SET role = excluded.role
            """
        ).run()
    }

    static func mapClass(from row: any SQLRow) throws -> MapClass {
        var found = MapClass(
            id: try row.decode(column: "id", as: String.self),
            slug: try row.decode(column: "slug", as: String.self),
            name: try row.decode(column: "name", as: String.self),
            visibility: MapClass.Visibility(rawValue: try row.decode(column: "visibility", as: String.self)) ?? .members,
            joinRule: MapClass.JoinRule(rawValue: try row.decode(column: "join_rule", as: String.self)) ?? .closed,
            precision: MapClass.Precision(rawValue: try row.decode(column: "precision", as: String.self)) ?? .country,
            approval: MapClass.Approval(rawValue: try row.decode(column: "approval", as: String.self)) ?? .all,
            inviteCode: try row.decode(column: "invite_code", as: String?.self),
            createdAt: ParseDate.date(from: try row.decode(column: "created_at", as: String.self)) ?? .distantPast
        )
        found.archivedAt = try row.decode(column: "archived_at", as: String?.self).flatMap(ParseDate.date(from:))
        return found
    }

    public func deleteClass(id: String) async throws -> Bool {
        try await withTransaction { db in
            guard try await db.raw("SELECT 1 AS x FROM classes WHERE id = \(bind: id)").first() != nil else { return false }
            for statement: SQLQueryString in [
                "DELETE FROM location_reports WHERE object_id IN (SELECT object_id FROM student_locations WHERE class_id = \(bind: id))",
                "DELETE FROM student_locations WHERE class_id = \(bind: id)",
                "DELETE FROM class_members WHERE class_id = \(bind: id)",
                "DELETE FROM class_invitations WHERE class_id = \(bind: id)",
                "DELETE FROM lti_courses WHERE class_id = \(bind: id)",
                "DELETE FROM lti_roster WHERE class_id = \(bind: id)",
                // The log's copies of its posts go too; the deletions just logged tell viewers.
                "DELETE FROM location_changes WHERE class_id = \(bind: id) AND kind IN ('created', 'updated')",
                "DELETE FROM classes WHERE id = \(bind: id)",
            ] {
                try await db.raw(statement).run()
            }
            return true
        }
    }
}
