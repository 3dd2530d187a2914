extension Migration {
    // Teachers' notices: who of a class's moderators and teachers asked to be told by email
    // (`kind`: posts waiting for approval, posts reported), what they were last told of
    // (`noticed_through`, the newest event a notice counted) and when (`sent_at`, at most one
    // an hour). `stop_token` is the one-click "stop these emails" link's secret: it can do
    // nothing but end this one notice.
    static let v22 = Migration(
        version: 22,
        shared: [
            """
            CREATE TABLE class_notices (
                class_id TEXT NOT NULL REFERENCES classes(id) ON DELETE CASCADE,
                account_key TEXT NOT NULL REFERENCES accounts(key) ON DELETE CASCADE,
                kind TEXT NOT NULL CHECK (kind IN ('waiting', 'reported')),
                stop_token TEXT NOT NULL UNIQUE,
                noticed_through TEXT NOT NULL,
                sent_at TEXT,
                PRIMARY KEY (class_id, account_key, kind)
            )
            """,
            "CREATE INDEX location_reports_created ON location_reports (created_at)",
        ]
    )
}
