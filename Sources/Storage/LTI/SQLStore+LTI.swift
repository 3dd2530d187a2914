import Foundation
import OnTheMapModels
import SQLKit

// LTI 1.3 platforms, keys, logins, course links, rosters and tickets (migration 16).
// (`SQLStore` conforms to `LTIRepository` through `OnTheMapStore`.)
extension SQLStore {
    public func addPlatform(_ platform: LTIPlatform) async throws {
        let p = platform
        try await withTransaction { db in
            let inserted = try await db.raw(
                """
                INSERT INTO lti_platforms (id, issuer, client_id, name, auth_url, token_url, jwks_url, token_audience, frame_origins, trust_email, created_at)
                VALUES (\(bind: p.id), \(bind: p.issuer), \(bind: p.clientID), \(bind: p.name), \(bind: p.authURL), \(bind: p.tokenURL),
                        \(bind: p.jwksURL), \(bind: p.tokenAudience), \(bind: p.frameOrigins.joined(separator: " ")), \(bind: p.trustEmail ? 1 : 0),
                        \(bind: ParseDate.string(from: p.createdAt)))
                ON CONFLICT (issuer, client_id) DO NOTHING RETURNING id
                """
            ).all()
            if inserted.isEmpty { throw StorageError.platformExists }
            for deployment in Set(p.deploymentIDs) {
                try await Self.insertDeployment(platformID: p.id, deploymentID: deployment, on: db)
            }
        }
    }

    private static func insertDeployment(platformID: String, deploymentID: String, on db: any SQLDatabase) async throws {
        try await db.raw(
            """
            INSERT INTO lti_deployments (platform_id, deployment_id) VALUES (\(bind: platformID), \(bind: deploymentID))
            ON CONFLICT (platform_id, deployment_id) DO NOTHING
            """
        ).run()
    }

    public func addDeployment(platformID: String, deploymentID: String) async throws {
        try await withDatabase { db in try await Self.insertDeployment(platformID: platformID, deploymentID: deploymentID, on: db) }
    }

    public func ltiPlatforms() async throws -> [LTIPlatform] {
        try await withDatabase { db in
            let deployments = try await db.raw("SELECT platform_id, deployment_id FROM lti_deployments ORDER BY deployment_id").all()
            var byPlatform: [String: [String]] = [:]
            for row in deployments {
                byPlatform[try row.decode(column: "platform_id", as: String.self), default: []]
                    .append(try row.decode(column: "deployment_id", as: String.self))
            }
            return try await db.raw("SELECT * FROM lti_platforms ORDER BY created_at, id").all().map { row in
                try Self.platform(from: row, deployments: byPlatform)
            }
        }
    }

    public func ltiPlatform(id: String) async throws -> LTIPlatform? {
        try await ltiPlatforms().first { $0.id == id }
    }

    private static func platform(from row: any SQLRow, deployments: [String: [String]]) throws -> LTIPlatform {
        let id = try row.decode(column: "id", as: String.self)
        return LTIPlatform(
            id: id, issuer: try row.decode(column: "issuer", as: String.self),
            clientID: try row.decode(column: "client_id", as: String.self),
            name: try row.decode(column: "name", as: String.self), authURL: try row.decode(column: "auth_url", as: String.self),
            tokenURL: try row.decode(column: "token_url", as: String.self), jwksURL: try row.decode(column: "jwks_url", as: String.self),
            tokenAudience: try row.decode(column: "token_audience", as: String?.self),
            frameOrigins: try row.decode(column: "frame_origins", as: String.self).split(separator: " ").map(String.init),
            trustEmail: try row.decode(column: "trust_email", as: Int.self) != 0, deploymentIDs: deployments[id] ?? [],
            createdAt: ParseDate.date(from: try row.decode(column: "created_at", as: String.self)) ?? .distantPast
        )
    }

    public func updatePlatform(_ platform: LTIPlatform) async throws -> Bool {
        try await withDatabase { db in
            !(try await db.raw(
                """
                UPDATE lti_platforms SET trust_email = \(bind: platform.trustEmail ? 1 : 0), token_audience = \(bind: platform.tokenAudience),
                    frame_origins = \(bind: platform.frameOrigins.joined(separator: " "))
                WHERE id = \(bind: platform.id) RETURNING id
                """
            ).all().isEmpty)
        }
    }

    public func addFrameOrigin(_ origin: String, platformID: String) async throws -> Bool {
        try await withDatabase { db in
            !(try await db.raw(
                """
                UPDATE lti_platforms SET frame_origins = CASE WHEN frame_origins = '' THEN \(bind: origin) ELSE frame_origins || ' ' || \(bind: origin) END
                WHERE id = \(bind: platformID) AND (' ' || frame_origins || ' ') NOT LIKE \(bind: "% " + origin + " %")
                RETURNING id
                """
            ).all().isEmpty)
        }
    }

    public func removePlatform(id: String) async throws -> Bool {
        try await withTransaction { db in
            for statement: SQLQueryString in [
                // Its people's ways in through it go; their accounts stay.
                "DELETE FROM identity_links WHERE provider = \(bind: "lti-" + id)",
                "DELETE FROM lti_deployments WHERE platform_id = \(bind: id)",
                "DELETE FROM lti_courses WHERE platform_id = \(bind: id)",
                "DELETE FROM lti_roster WHERE platform_id = \(bind: id)",
                "DELETE FROM lti_logins WHERE platform_id = \(bind: id)",
            ] {
                try await db.raw(statement).run()
            }
            return !(try await db.raw("DELETE FROM lti_platforms WHERE id = \(bind: id) RETURNING id").all().isEmpty)
        }
    }

    // MARK: The tool's keys

    public func ltiToolKeys() async throws -> [LTIToolKey] {
        try await withDatabase { db in
            try await db.raw("SELECT * FROM lti_keys ORDER BY created_at DESC, kid").all().map { row in
                LTIToolKey(
                    kid: try row.decode(column: "kid", as: String.self),
                    privateKeyPEM: try row.decode(column: "private_key", as: String.self),
                    createdAt: ParseDate.date(from: try row.decode(column: "created_at", as: String.self)) ?? .distantPast,
                    retiredAt: try row.decode(column: "retired_at", as: String?.self).flatMap(ParseDate.date(from:))
                )
            }
        }
    }

    public func addToolKey(_ key: LTIToolKey, retiringOthersAt now: Date) async throws {
        try await withTransaction { db in
            try await db.raw("UPDATE lti_keys SET retired_at = \(bind: ParseDate.string(from: now)) WHERE retired_at IS NULL").run()
            try await db.raw(
                """
                INSERT INTO lti_keys (kid, private_key, created_at) VALUES (\(bind: key.kid), \(bind: key.privateKeyPEM), \(bind: ParseDate.string(from: key.createdAt)))
                """
            ).run()
        }
    }

    @discardableResult
    public func deleteToolKeys(retiredBefore before: Date) async throws -> Int {
        try await withDatabase { db in
            try await db.raw("DELETE FROM lti_keys WHERE retired_at < \(bind: ParseDate.string(from: before)) RETURNING kid").all().count
        }
    }

    // MARK: Logins under way

    public func saveLTILogin(_ login: LTIPendingLogin) async throws {
        try await withDatabase { db in
            try await db.raw(
                """
                INSERT INTO lti_logins (state_digest, platform_id, nonce, browser_digest, target_link_uri, expires_at)
                VALUES (\(bind: login.stateDigest), \(bind: login.platformID), \(bind: login.nonce), \(bind: login.browserDigest),
                        \(bind: login.targetLinkURI), \(bind: ParseDate.string(from: login.expiresAt)))
                """
            ).run()
        }
    }

    public func takeLTILogin(stateDigest: String) async throws -> LTIPendingLogin? {
        try await withDatabase { db in
            guard let row = try await db.raw("DELETE FROM lti_logins WHERE state_digest = \(bind: stateDigest) RETURNING *").first() else {
                return nil
            }
            return LTIPendingLogin(
                stateDigest: try row.decode(column: "state_digest", as: String.self),
                platformID: try row.decode(column: "platform_id", as: String.self),
                nonce: try row.decode(column: "nonce", as: String.self),
                browserDigest: try row.decode(column: "browser_digest", as: String.self),
                targetLinkURI: try row.decode(column: "target_link_uri", as: String.self),
                expiresAt: ParseDate.date(from: try row.decode(column: "expires_at", as: String.self)) ?? .distantPast
            )
        }
    }

    @discardableResult
    public func deleteExpiredLTILogins(now: Date) async throws -> Int {
        let text = ParseDate.string(from: now)
        return try await withDatabase { db in
            let logins = try await db.raw("DELETE FROM lti_logins WHERE expires_at < \(bind: text) RETURNING state_digest").all().count
            let tickets = try await db.raw("DELETE FROM lti_tickets WHERE expires_at < \(bind: text) RETURNING digest").all().count
            return logins + tickets
        }
    }

    // MARK: Courses

    public func courseLinks(platformID: String, deploymentID: String, contextID: String) async throws -> [LTICourseLink] {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT * FROM lti_courses
                WHERE platform_id = \(bind: platformID) AND deployment_id = \(bind: deploymentID) AND context_id = \(bind: contextID)
                ORDER BY course_class DESC, class_id
                """
            ).all().map(Self.courseLink(from:))
        }
    }

    public func courseLinks(classID: String) async throws -> [LTICourseLink] {
        try await withDatabase { db in
            try await db.raw(
                "SELECT * FROM lti_courses WHERE class_id = \(bind: classID) ORDER BY course_class DESC, platform_id, context_id"
            )
            .all().map(Self.courseLink(from:))
        }
    }

    private static func courseLink(from row: any SQLRow) throws -> LTICourseLink {
        LTICourseLink(
            platformID: try row.decode(column: "platform_id", as: String.self),
            deploymentID: try row.decode(column: "deployment_id", as: String.self),
            contextID: try row.decode(column: "context_id", as: String.self), classID: try row.decode(column: "class_id", as: String.self),
            courseClass: try row.decode(column: "course_class", as: Int.self) != 0,
            membershipsURL: try row.decode(column: "memberships_url", as: String?.self),
            syncedAt: try row.decode(column: "synced_at", as: String?.self).flatMap(ParseDate.date(from:))
        )
    }

    public func addCourseLink(_ link: LTICourseLink) async throws -> Bool {
        try await withDatabase { db in
            !(try await db.raw(
                """
                INSERT INTO lti_courses (platform_id, deployment_id, context_id, class_id, course_class, memberships_url)
                VALUES (\(bind: link.platformID), \(bind: link.deploymentID), \(bind: link.contextID), \(bind: link.classID),
                        \(bind: link.courseClass ? 1 : 0), \(bind: link.membershipsURL))
                ON CONFLICT DO NOTHING RETURNING class_id
                """
            ).all().isEmpty)
        }
    }

    public func setMembershipsURL(_ url: String?, platformID: String, deploymentID: String, contextID: String) async throws {
        try await withDatabase { db in
            try await db.raw(
                """
                UPDATE lti_courses SET memberships_url = \(bind: url)
                WHERE platform_id = \(bind: platformID) AND deployment_id = \(bind: deploymentID) AND context_id = \(bind: contextID)
                """
            ).run()
        }
    }

    // MARK: Rosters

    private static func rolesText(_ roles: [String]) -> String {
        (try? String(decoding: JSONEncoder().encode(roles), as: UTF8.self)) ?? "[]"
    }

    public func recordLaunch(classID: String, platformID: String, entry: LTIRosterEntry, accountKey: String) async throws {
        try await withDatabase { db in
            try await db.raw(
                """
                INSERT INTO lti_roster (class_id, platform_id, subject, name, roles, in_course, account_key)
                VALUES (\(bind: classID), \(bind: platformID), \(bind: entry.subject), \(bind: entry.name), \(bind: Self.rolesText(entry.roles)), 1, \(bind: accountKey))
                ON CONFLICT (class_id, platform_id, subject) DO UPDATE SET
                    name = excluded.name, roles = excluded.roles, in_course = 1, account_key = excluded.account_key
                """
            ).run()
        }
    }

    public func replaceRoster(classID: String, platformID: String, entries: [LTIRosterEntry], now: Date) async throws -> [String] {
        try await withTransaction { db in
            let present = Set(entries.map(\.subject))
            let before = try await db.raw(
                """
                SELECT subject, account_key FROM lti_roster WHERE class_id = \(bind: classID) AND platform_id = \(bind: platformID)
                """
            ).all()
            var gone: [String] = []
            for row in before {
                let subject = try row.decode(column: "subject", as: String.self)
                guard !present.contains(subject) else { continue }
                if let key = try row.decode(column: "account_key", as: String?.self) { gone.append(key) }
            }
            try await db.raw("DELETE FROM lti_roster WHERE class_id = \(bind: classID) AND platform_id = \(bind: platformID)").run()
            let keys = Dictionary(
                try before.map {
                    (try $0.decode(column: "subject", as: String.self), try $0.decode(column: "account_key", as: String?.self))
                },
                uniquingKeysWith: { first, _ in first })
            for entry in entries {
                try await db.raw(
                    """
                    INSERT INTO lti_roster (class_id, platform_id, subject, name, roles, in_course, account_key)
                    VALUES (\(bind: classID), \(bind: platformID), \(bind: entry.subject), \(bind: entry.name), \(bind: Self.rolesText(entry.roles)), 1,
                            \(bind: keys[entry.subject] ?? nil))
                    ON CONFLICT (class_id, platform_id, subject) DO NOTHING
                    """
                ).run()
            }
            try await db.raw(
                """
                UPDATE lti_courses SET synced_at = \(bind: ParseDate.string(from: now))
                WHERE class_id = \(bind: classID) AND platform_id = \(bind: platformID)
                """
            ).run()
            return gone
        }
    }

    public func roster(classID: String) async throws -> (syncedAt: Date?, lines: [LTIRosterLine]) {
        try await withDatabase { db in
            let synced = try await db.raw("SELECT MAX(synced_at) AS synced FROM lti_courses WHERE class_id = \(bind: classID)").first()?
                .decode(column: "synced", as: String?.self).flatMap(ParseDate.date(from:))
            let lines = try await db.raw(
                """
                SELECT lti_roster.subject, lti_roster.name, lti_roster.roles, class_members.role,
                       \(unsafeRaw: VisiblePost.onMap(account: "lti_roster.account_key", classId: "lti_roster.class_id")) AS on_map
                FROM lti_roster
                LEFT JOIN class_members ON class_members.class_id = lti_roster.class_id AND class_members.account_key = lti_roster.account_key
                WHERE lti_roster.class_id = \(bind: classID) AND lti_roster.in_course = 1
                ORDER BY lti_roster.name, lti_roster.subject
                """
            ).all().map { row in
                let roles =
                    (try? JSONDecoder().decode([String].self, from: Data(try row.decode(column: "roles", as: String.self).utf8))) ?? []
                return LTIRosterLine(
                    entry: LTIRosterEntry(
                        subject: try row.decode(column: "subject", as: String.self), name: try row.decode(column: "name", as: String.self),
                        roles: roles),
                    role: try row.decode(column: "role", as: String?.self).flatMap(ClassRole.init(rawValue:)),
                    onMap: try row.decode(column: "on_map", as: Bool.self)
                )
            }
            return (synced, lines)
        }
    }

    // MARK: One-time tickets

    public func saveTicket(digest: String, _ ticket: LTITicket) async throws {
        try await withDatabase { db in
            try await db.raw(
                """
                INSERT INTO lti_tickets (digest, kind, account_key, payload, expires_at)
                VALUES (\(bind: digest), \(bind: ticket.kind.rawValue), \(bind: ticket.accountKey), \(bind: ticket.payload),
                        \(bind: ParseDate.string(from: ticket.expiresAt)))
                """
            ).run()
        }
    }

    public func peekTicket(digest: String, kind: LTITicketKind, now: Date) async throws -> LTITicket? {
        try await withDatabase { db in
            guard
                let row = try await db.raw(
                    """
                    SELECT * FROM lti_tickets WHERE digest = \(bind: digest) AND kind = \(bind: kind.rawValue) AND expires_at > \(bind: ParseDate.string(from: now))
                    """
                ).first()
            else { return nil }
            return LTITicket(
                kind: kind, accountKey: try row.decode(column: "account_key", as: String?.self),
                payload: try row.decode(column: "payload", as: String.self),
                expiresAt: ParseDate.date(from: try row.decode(column: "expires_at", as: String.self)) ?? .distantPast
            )
        }
    }

    public func takeTicket(digest: String, kind: LTITicketKind, now: Date) async throws -> LTITicket? {
        try await withDatabase { db in
            guard
                let row = try await db.raw(
                    """
                    DELETE FROM lti_tickets WHERE digest = \(bind: digest) AND kind = \(bind: kind.rawValue) RETURNING *
                    """
                ).first()
            else { return nil }
            let ticket = LTITicket(
                kind: kind, accountKey: try row.decode(column: "account_key", as: String?.self),
                payload: try row.decode(column: "payload", as: String.self),
                expiresAt: ParseDate.date(from: try row.decode(column: "expires_at", as: String.self)) ?? .distantPast
            )
            return ticket.expiresAt > now ? ticket : nil
        }
    }
}
