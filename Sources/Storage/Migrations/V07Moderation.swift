extension Migration {
    // Running a community: administrators and disabled accounts, moderated (hidden) posts
    // and posts hidden with their disabled author, reports, the moderation log authors
    // read their notices from, and one-time password-reset links (stored as digests).
    // The oldest account becomes the administrator, as a new server's first sign-up does.
    static let v07 = Migration(
        version: 7,
        shared: [
            "ALTER TABLE accounts ADD COLUMN is_admin INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE accounts ADD COLUMN disabled_at TEXT",
            "UPDATE accounts SET is_admin = 1 WHERE key = (SELECT key FROM accounts ORDER BY created_at, key LIMIT 1)",
            "ALTER TABLE student_locations ADD COLUMN hidden_at TEXT",
            "ALTER TABLE student_locations ADD COLUMN hidden_reason TEXT",
            "ALTER TABLE student_locations ADD COLUMN owner_disabled INTEGER NOT NULL DEFAULT 0",
            """
            CREATE TABLE location_reports (
                id TEXT PRIMARY KEY,
                object_id TEXT NOT NULL REFERENCES student_locations(object_id) ON DELETE CASCADE,
                reporter_key TEXT NOT NULL REFERENCES accounts(key) ON DELETE CASCADE,
                reason TEXT NOT NULL,
                created_at TEXT NOT NULL,
                UNIQUE (object_id, reporter_key)
            )
            """,
            "CREATE INDEX location_reports_reporter ON location_reports (reporter_key, created_at)",
            """
            CREATE TABLE moderation_actions (
                id TEXT PRIMARY KEY,
                action TEXT NOT NULL,
                account_key TEXT,
                object_id TEXT,
                map_string TEXT,
                reason TEXT NOT NULL,
                moderator_key TEXT,
                created_at TEXT NOT NULL
            )
            """,
            "CREATE INDEX moderation_actions_account ON moderation_actions (account_key, created_at)",
            """
            CREATE TABLE password_resets (
                digest TEXT PRIMARY KEY,
                account_key TEXT NOT NULL REFERENCES accounts(key) ON DELETE CASCADE,
                created_at TEXT NOT NULL,
                expires_at TEXT NOT NULL,
                used_at TEXT
            )
            """,
        ],
        // Moderation meets the live map: a record hidden by a moderator, or by its author's
        // account being disabled, leaves every viewer's map as a `deleted` change, and comes
        // back as an `updated` one when shown again.
        sqlite: [
            "DROP TRIGGER student_locations_log_update",
            ChangeLogTriggers.sqliteLogRecord(
                trigger: "student_locations_log_update", on: "UPDATE", kind: "updated",
                when: "NEW.hidden_at IS NULL AND NEW.owner_disabled = 0", withClass: false),
            ChangeLogTriggers.sqliteLogHidden(when: "NEW.hidden_at IS NOT NULL OR NEW.owner_disabled <> 0", withClass: false),
        ],
        // As on SQLite: hidden records leave the live map as `deleted` changes.
        postgres: [
            ChangeLogTriggers.postgresLogFunctionWithoutClass(
                create: "CREATE OR REPLACE", hidden: "NEW.hidden_at IS NOT NULL OR NEW.owner_disabled <> 0")
        ]
    )
}
