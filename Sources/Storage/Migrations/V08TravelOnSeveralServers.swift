extension Migration {
    // Travel on several servers: a pending photo's download is claimed by one server
    // (`claim_owner`, a per-process id) until `claim_expires_at`, renewed while it runs;
    // an expired claim is taken over. `usage_counters` counts photo searches per window,
    // per account and per provider key, for every server together.
    static let v08 = Migration(
        version: 8,
        shared: [
            "ALTER TABLE photos ADD COLUMN claim_owner TEXT",
            "ALTER TABLE photos ADD COLUMN claim_expires_at TEXT",
            "CREATE INDEX photos_claim ON photos (state, claim_expires_at)",
            """
            CREATE TABLE usage_counters (
                name TEXT NOT NULL,
                window_start TEXT NOT NULL,
                count INTEGER NOT NULL,
                PRIMARY KEY (name, window_start)
            )
            """,
        ]
    )
}
