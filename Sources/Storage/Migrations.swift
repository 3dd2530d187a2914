import OnTheMapModels
import SQLKit

/// Numbered schema migrations, applied once each, in order. Never edit a shipped
/// migration: add the next number. SQL here stays within what SQLite and PostgreSQL share.
enum Migrations {
    static let all: [(version: Int, statements: [SQLQueryString])] = [
        (1, [
            """
            CREATE TABLE accounts (
                key TEXT PRIMARY KEY,
                email TEXT NOT NULL UNIQUE,
                password_hash TEXT NOT NULL,
                first_name TEXT NOT NULL,
                last_name TEXT NOT NULL,
                created_at TEXT NOT NULL
            )
            """,
            """
            CREATE TABLE sessions (
                id TEXT PRIMARY KEY,
                account_key TEXT NOT NULL REFERENCES accounts(key) ON DELETE CASCADE,
                created_at TEXT NOT NULL,
                expires_at TEXT NOT NULL
            )
            """,
            "CREATE INDEX sessions_expires_at ON sessions (expires_at)",
            """
            CREATE TABLE student_locations (
                object_id TEXT PRIMARY KEY,
                owner_key TEXT REFERENCES accounts(key) ON DELETE SET NULL,
                unique_key TEXT NOT NULL,
                first_name TEXT NOT NULL,
                last_name TEXT NOT NULL,
                map_string TEXT NOT NULL,
                media_url TEXT NOT NULL,
                latitude DOUBLE PRECISION NOT NULL,
                longitude DOUBLE PRECISION NOT NULL,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL
            )
            """,
            // `order=-updatedAt` paging is what every client asks for; objectId breaks ties.
            "CREATE INDEX student_locations_updated_at ON student_locations (updated_at DESC, object_id DESC)",
            "CREATE INDEX student_locations_unique_key ON student_locations (unique_key)",
            "CREATE INDEX student_locations_owner_key ON student_locations (owner_key)",
        ]),
    ]

    static func run(on database: any SQLDatabase) async throws {
        try await database.raw("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)").run()
        let applied = Set(try await database.raw("SELECT version FROM schema_migrations").all().map {
            try $0.decode(column: "version", as: Int.self)
        })
        for migration in all where !applied.contains(migration.version) {
            // One connection runs this, so the transaction covers every statement.
            try await database.raw("BEGIN").run()
            do {
                for statement in migration.statements {
                    try await database.raw(statement).run()
                }
                let now = ParseDate.string(from: .now)
                try await database.raw("INSERT INTO schema_migrations (version, applied_at) VALUES (\(bind: migration.version), \(bind: now))").run()
                try await database.raw("COMMIT").run()
            } catch {
                try? await database.raw("ROLLBACK").run()
                throw StorageError.migrationFailed("version \(migration.version): \(error)")
            }
        }
    }
}
