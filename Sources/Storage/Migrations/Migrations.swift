import OnTheMapModels
import SQLKit

/// Numbered schema migrations, applied once each, in order, one file per version in this
/// folder (`Migration`). Never edit a shipped migration: add the next number. Shared SQL stays
/// within what SQLite and PostgreSQL both take; `statement(_:forPostgres:)` adds the collation
/// PostgreSQL needs on top, and each version's dialect parts hold what is spelled differently
/// (the change log's triggers, PostgreSQL's notifications).
enum Migrations {
    /// Every version, in order. Never edit a shipped one: add the next.
    static let all: [Migration] = [
        .v01, .v02, .v03, .v04, .v05, .v06, .v07, .v08, .v09, .v10, .v11, .v12, .v13, .v14, .v15, .v16, .v17, .v18, .v19, .v20,
        .v21, .v22, .v23,
    ]

    /// The default class of migration 11, created `public` when the database already holds
    /// accounts or locations; `now` is the dialect's current time as a Parse date.
    static func defaultClass(now: String) -> String {
        """
        INSERT INTO classes (id, slug, name, visibility, join_rule, invite_code, created_at)
        SELECT 'default', 'main', 'OnTheMap',
               CASE WHEN EXISTS (SELECT 1 FROM accounts) OR EXISTS (SELECT 1 FROM student_locations) THEN 'public' ELSE 'members' END,
               'open', NULL, \(now)
        """
    }

    /// The columns a change carries besides its version: the record as it is after the
    /// change (all NULL but `object_id` for a delete).
    static let changeColumns = """
        kind TEXT NOT NULL,
        object_id TEXT NOT NULL,
        unique_key TEXT, first_name TEXT, last_name TEXT, map_string TEXT, media_url TEXT,
        latitude DOUBLE PRECISION, longitude DOUBLE PRECISION, created_at TEXT, updated_at TEXT
        """

    /// The notification channel for this connection's schema (a channel name may have at
    /// most 63 bytes; a schema name alone may too, so it is hashed).
    static let changeChannelQuery: SQLQueryString = "SELECT 'otm_' || md5(current_schema()) AS channel"
    /// The channel album changes are announced on, one per schema like the one above.
    static let albumChannelQuery: SQLQueryString = "SELECT 'otma_' || md5(current_schema()) AS channel"

    /// On PostgreSQL text columns get the "C" collation, so ordering and `$lt`/`$gt` compare
    /// by code point as SQLite and Parse do, whatever locale the database was created with.
    static func statement(_ sql: String, forPostgres: Bool) -> SQLQueryString {
        "\(unsafeRaw: forPostgres ? sql.replacingOccurrences(of: " TEXT", with: " TEXT COLLATE \"C\"") : sql)"
    }

    /// Applies what is pending in one transaction on one connection. The transaction first
    /// takes the database's write lock (SQLite: `BEGIN IMMEDIATE`; PostgreSQL: an advisory
    /// lock), so servers starting together on a new database take turns and the second
    /// finds the work done.
    /// `schema` (PostgreSQL only) is created first when missing.
    /// `through`: stop after this version (tests build a database as an older version left it).
    static func run(on database: any SQLDatabase, schema: String? = nil, through last: Int = Int.max) async throws {
        let postgres = database.dialect.name == "postgresql"
        try await database.raw(postgres ? "BEGIN" : "BEGIN IMMEDIATE").run()
        do {
            if postgres {
                try await database.raw("SELECT pg_advisory_xact_lock(\(literal: advisoryLockKey))").run()
                if let schema { try await database.raw("CREATE SCHEMA IF NOT EXISTS \(ident: schema)").run() }
            }
            try await database.raw("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
                .run()
            let applied = Set(
                try await database.raw("SELECT version FROM schema_migrations").all().map {
                    try $0.decode(column: "version", as: Int.self)
                })
            for migration in all where !applied.contains(migration.version) && migration.version <= last {
                do {
                    for sql in migration.statements(postgres: postgres) {
                        try await database.raw(statement(sql, forPostgres: postgres)).run()
                    }
                    let now = ParseDate.string(from: .now)
                    try await database.raw(
                        "INSERT INTO schema_migrations (version, applied_at) VALUES (\(bind: migration.version), \(bind: now))"
                    ).run()
                } catch {
                    throw StorageError.migrationFailed("version \(migration.version): \(String(reflecting: error))")
                }
            }
            try await database.raw("COMMIT").run()
        } catch {
            try? await database.raw("ROLLBACK").run()
            throw error
        }
    }

    /// Any fixed number, the same for every OnTheMap server.
    private static let advisoryLockKey = 0x4F6E_5468_654D_6170
}
