import Foundation
import SQLKit

/// Copies every table of one OnTheMap database into another, empty one: how a community
/// moves from the embedded SQLite file to PostgreSQL (or back). Both stores must be
/// migrated to the same version, which `SQLStore.open` ensures. Photo files stay where they
/// are: they live in the data directory, not in the database.
public enum DatabaseCopy {
    enum Kind { case text, optionalText, double, int, optionalInt }

    /// Tables in an order that satisfies their foreign keys, each with every column and
    /// its key (rows are read in key order, a page at a time; a key of two columns is
    /// written "a,b").
    static let tables: [(name: String, key: String, columns: [(String, Kind)])] = [
        (
            "accounts", "key",
            [
                ("key", .text), ("email", .text), ("password_hash", .text), ("first_name", .text),
                ("last_name", .text), ("created_at", .text), ("is_admin", .int), ("disabled_at", .optionalText),
                ("email_verified", .int), ("language", .optionalText),
            ]
        ),
        (
            "classes", "id",
            [
                ("id", .text), ("slug", .text), ("name", .text), ("visibility", .text), ("join_rule", .text), ("precision", .text),
                ("approval", .text), ("archived_at", .optionalText),
                ("invite_code", .optionalText), ("created_at", .text),
            ]
        ),
        ("class_members", "class_id,account_key", [("class_id", .text), ("account_key", .text), ("role", .text), ("joined_at", .text)]),
        ("class_invitations", "class_id,email", [("class_id", .text), ("email", .text), ("role", .text), ("invited_at", .text)]),
        ("sessions", "id", [("id", .text), ("account_key", .text), ("created_at", .text), ("expires_at", .text)]),
        ("login_devices", "digest", [("digest", .text), ("account_key", .text), ("last_login_at", .text)]),
        (
            "student_locations", "object_id",
            [
                ("object_id", .text), ("owner_key", .optionalText), ("unique_key", .text), ("first_name", .text), ("last_name", .text),
                ("map_string", .text), ("media_url", .text), ("latitude", .double), ("longitude", .double),
                ("created_at", .text), ("updated_at", .text), ("hidden_at", .optionalText), ("hidden_reason", .optionalText),
                ("owner_disabled", .int), ("class_id", .text), ("waiting", .int),
            ]
        ),
        (
            "location_reports", "id",
            [("id", .text), ("object_id", .text), ("reporter_key", .text), ("reason", .text), ("created_at", .text)]
        ),
        (
            "moderation_actions", "id",
            [
                ("id", .text), ("action", .text), ("account_key", .optionalText), ("object_id", .optionalText),
                ("map_string", .optionalText),
                ("reason", .text), ("moderator_key", .optionalText), ("created_at", .text),
            ]
        ),
        (
            "password_resets", "digest",
            [
                ("digest", .text), ("account_key", .text), ("created_at", .text), ("expires_at", .text),
                ("used_at", .optionalText),
            ]
        ),
        (
            "identity_links", "id",
            [
                ("id", .text), ("provider", .text), ("subject", .text), ("account_key", .text), ("email", .text),
                ("created_at", .text), ("origin", .text),
            ]
        ),
        (
            "pins", "id",
            [
                ("id", .text), ("owner_key", .text), ("latitude", .double), ("longitude", .double),
                ("place_name", .text), ("created_at", .text), ("updated_at", .text),
            ]
        ),
        (
            "photos", "id",
            [
                ("id", .text), ("pin_id", .text), ("collection", .int), ("position", .int), ("provider", .text), ("remote_id", .text),
                ("remote_url", .text), ("title", .text), ("author", .text), ("license", .optionalText),
                ("attribution_url", .optionalText), ("file_path", .optionalText), ("content_type", .optionalText),
                ("byte_count", .optionalInt), ("content_hash", .optionalText), ("state", .text), ("failure_reason", .optionalText),
                ("created_at", .text), ("updated_at", .text), ("claim_owner", .optionalText), ("claim_expires_at", .optionalText),
            ]
        ),
        (
            "album_states", "pin_id",
            [
                ("pin_id", .text), ("provider", .text), ("collection", .int), ("page", .int), ("pages", .int), ("total", .int),
                ("status", .text), ("error_code", .optionalText), ("error_message", .optionalText), ("updated_at", .text),
            ]
        ),
        // A session signed in through a provider keeps what logging out there needs.
        (
            "session_sign_ins", "session_id",
            [
                ("session_id", .text), ("provider", .text), ("id_token", .optionalText),
                ("access_token", .optionalText),
            ]
        ),
        // LTI: the registered platforms, the tool's keys, which class each course opens, rosters.
        (
            "lti_platforms", "id",
            [
                ("id", .text), ("issuer", .text), ("client_id", .text), ("name", .text), ("auth_url", .text),
                ("token_url", .text), ("jwks_url", .text), ("token_audience", .optionalText), ("frame_origins", .text),
                ("trust_email", .int), ("created_at", .text),
            ]
        ),
        ("lti_deployments", "platform_id,deployment_id", [("platform_id", .text), ("deployment_id", .text)]),
        ("lti_keys", "kid", [("kid", .text), ("private_key", .text), ("created_at", .text), ("retired_at", .optionalText)]),
        (
            "lti_courses", "platform_id,deployment_id,context_id,class_id",
            [
                ("platform_id", .text), ("deployment_id", .text), ("context_id", .text), ("class_id", .text), ("course_class", .int),
                ("memberships_url", .optionalText), ("synced_at", .optionalText),
            ]
        ),
        (
            "lti_roster", "class_id,platform_id,subject",
            [
                ("class_id", .text), ("platform_id", .text), ("subject", .text), ("name", .text),
                ("roles", .text), ("in_course", .int), ("account_key", .optionalText),
            ]
        ),
        // The words each post is searched by (after the posts they point at).
        ("location_search_terms", "class_id,term,object_id", [("class_id", .text), ("term", .text), ("object_id", .text)]),
        // Emails not yet sent go with the move (their links are the copied database's), sent ones' envelopes too.
        (
            "mail_outbox", "id",
            [
                ("id", .text), ("kind", .text), ("recipient", .text), ("sender", .text), ("message_id", .text), ("message", .text),
                ("created_at", .text), ("next_attempt_at", .text), ("attempts", .int), ("lease_owner", .optionalText),
                ("lease_expires_at", .optionalText), ("last_error", .optionalText), ("sent_at", .optionalText),
                ("failed_at", .optionalText),
            ]
        ),
        // Who asked to be told what by email, and what they were last told (after classes and accounts).
        (
            "class_notices", "class_id,account_key,kind",
            [
                ("class_id", .text), ("account_key", .text), ("kind", .text), ("stop_token", .text),
                ("noticed_through", .text), ("sent_at", .optionalText),
            ]
        ),
    ]

    /// Tables deliberately not copied, and why. Every table of the source must be copied or
    /// listed here (`copy` refuses otherwise), so a table added later cannot be lost quietly.
    static let skipped: [(name: String, reason: String)] = [
        ("schema_migrations", "the destination is migrated to this version when it is opened"),
        ("store_upkeep", "work an opening owes: the source's opening did it, and the copy brings the search words along"),
        ("location_changes", "the live map's change log: the destination's own triggers log every row copied into it"),
        ("location_log_horizon", "where the source's change log was pruned: the destination's log starts with the copy"),
        ("pending_sign_ins", "sign-ins under way expire within minutes; one caught by the move starts again"),
        ("sign_in_handoffs", "an app's one-time sign-in codes live two minutes"),
        ("login_failures", "failed-login counters restart (a copy is made with the servers stopped)"),
        ("usage_counters", "photo-search allowances are per minute and per hour, and restart"),
        ("lti_logins", "LTI launches under way expire within minutes; one caught by the move starts again from the course"),
        ("lti_tickets", "one-time LTI hand-offs live minutes (a registration invite a day): the host makes a new one"),
    ]

    static let pageSize = 500

    /// Copies everything from `source` into `destination` and returns the rows copied per
    /// table. Refuses a destination that already holds data, so nothing is ever merged or
    /// overwritten, and writes it in one transaction: a failure part-way leaves it empty.
    @discardableResult
    public static func copy(from source: SQLStore, to destination: SQLStore) async throws -> [(table: String, rows: Int)] {
        let known = Set(tables.map(\.name) + skipped.map(\.name))
        for name in try await tableNames(in: source) where !known.contains(name) {
            throw StorageError.migrationFailed("copying: the table \(name) is neither copied nor deliberately skipped by this version")
        }
        for table in tables { try await checkColumns(of: table, in: source) }
        return try await destination.withTransaction { db in
            var copied: [(table: String, rows: Int)] = []
            for table in tables {
                if table.name == "classes" {
                    // The destination's migration made its own default class; the source's replaces it.
                    try await db.raw("DELETE FROM classes WHERE NOT EXISTS (SELECT 1 FROM class_members WHERE class_id = classes.id)")
                        .run()
                }
                let count =
                    try await db.raw("SELECT COUNT(*) AS n FROM \(ident: table.name)").first()?.decode(column: "n", as: Int.self) ?? 0
                guard count == 0 else { throw StorageError.destinationNotEmpty(table.name) }
                copied.append((table.name, try await copyRows(of: table, from: source, into: db)))
            }
            return copied
        }
    }

    /// One table, a page at a time in key order.
    private static func copyRows(
        of table: (name: String, key: String, columns: [(String, Kind)]), from source: SQLStore,
        into db: any SQLDatabase
    ) async throws -> Int {
        let columnList = table.columns.map(\.0).joined(separator: ", ")
        let keys = table.key.split(separator: ",").map(String.init)
        let keyIndexes = keys.map { key in table.columns.firstIndex { $0.0 == key }! }
        let keyList = keys.joined(separator: ", ")
        var after: [String]?
        var total = 0
        while true {
            let last = after
            let page: [[any Encodable & Sendable]] = try await source.withDatabase { sourceDB in
                var query: SQLQueryString = "SELECT \(unsafeRaw: columnList) FROM \(ident: table.name)"
                // Row values compare column by column (both databases), so a two-column key pages too.
                if let last { query += " WHERE (\(unsafeRaw: keyList)) > (\(binds: last))" }
                query += " ORDER BY \(unsafeRaw: keyList) LIMIT \(literal: pageSize)"
                return try await sourceDB.raw(query).all().map { row in try values(of: row, columns: table.columns) }
            }
            guard let lastRow = page.last else { return total }
            let rows: [SQLQueryString] = page.map { "(\(binds: $0))" }
            try await db.raw("INSERT INTO \(ident: table.name) (\(unsafeRaw: columnList)) VALUES " + rows.joined(separator: ", ")).run()
            total += page.count
            after = keyIndexes.map { lastRow[$0] as? String ?? "" }
        }
    }

    /// The tables of a store's database (its schema on PostgreSQL), SQLite's own left out.
    static func tableNames(in store: SQLStore) async throws -> [String] {
        try await store.withDatabase { db in
            let query: SQLQueryString =
                db.dialect.name == "postgresql"
                ? "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
                : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            return try await db.raw(query).all().map { try $0.decode(column: "name", as: String.self) }.sorted()
        }
    }

    /// The column list above must be the table's whole list, or a column would be lost.
    private static func checkColumns(of table: (name: String, key: String, columns: [(String, Kind)]), in store: SQLStore) async throws {
        let actual = try await store.withDatabase { db in
            try await db.raw("SELECT * FROM \(ident: table.name) LIMIT 1").first()?.allColumns
        }
        guard let actual else { return }
        let expected = table.columns.map(\.0)
        guard Set(actual) == Set(expected) else {
            throw StorageError.migrationFailed(
                "copying \(table.name): its columns \(actual.sorted()) are not the \(expected.sorted()) this version copies")
        }
    }

    static func values(of row: any SQLRow, columns: [(String, Kind)]) throws -> [any Encodable & Sendable] {
        try columns.map { name, kind -> any Encodable & Sendable in
            switch kind {
            case .text: try row.decode(column: name, as: String.self)
            case .optionalText: try row.decode(column: name, as: String?.self)
            case .double: try row.decode(column: name, as: Double.self)
            case .int: try row.decode(column: name, as: Int.self)
            case .optionalInt: try row.decode(column: name, as: Int?.self)
            }
        }
    }
}
