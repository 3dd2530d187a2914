extension Migration {
    static let v01 = Migration(
        version: 1,
        shared: [
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
        ]
    )
}
