extension Migration {
    // Travel: pins, their photo albums, and per-pin provider state.
    static let v02 = Migration(
        version: 2,
        shared: [
            """
            CREATE TABLE pins (
                id TEXT PRIMARY KEY,
                owner_key TEXT NOT NULL REFERENCES accounts(key) ON DELETE CASCADE,
                latitude DOUBLE PRECISION NOT NULL,
                longitude DOUBLE PRECISION NOT NULL,
                place_name TEXT NOT NULL,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL
            )
            """,
            "CREATE INDEX pins_owner_key ON pins (owner_key, created_at, id)",
            """
            CREATE TABLE photos (
                id TEXT PRIMARY KEY,
                pin_id TEXT NOT NULL REFERENCES pins(id) ON DELETE CASCADE,
                collection INTEGER NOT NULL,
                position INTEGER NOT NULL,
                provider TEXT NOT NULL,
                remote_id TEXT NOT NULL,
                remote_url TEXT NOT NULL,
                title TEXT NOT NULL,
                author TEXT NOT NULL,
                license TEXT,
                attribution_url TEXT,
                file_path TEXT,
                content_type TEXT,
                byte_count BIGINT,
                content_hash TEXT,
                state TEXT NOT NULL CHECK (state IN ('pending', 'ready', 'failed')),
                failure_reason TEXT,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL
            )
            """,
            "CREATE INDEX photos_pin_id ON photos (pin_id, position, id)",
            "CREATE INDEX photos_state ON photos (state, created_at)",
            """
            CREATE TABLE album_states (
                pin_id TEXT PRIMARY KEY REFERENCES pins(id) ON DELETE CASCADE,
                provider TEXT NOT NULL,
                collection INTEGER NOT NULL,
                page INTEGER NOT NULL,
                pages INTEGER NOT NULL,
                total INTEGER NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('searching', 'downloading', 'complete', 'failed')),
                error_code TEXT,
                error_message TEXT,
                updated_at TEXT NOT NULL
            )
            """,
        ]
    )
}
