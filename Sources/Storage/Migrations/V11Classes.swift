extension Migration {
    // Classes: many private maps on one server. Every location (and every logged change)
    // belongs to a class; today's map moves into the class `default` (slug `main`). A new
    // database's default class is members-only and open (every account is a member); an
    // existing community keeps its public map until the host says otherwise. The partial
    // index serves "one class's visible locations, newest first" without reading the table.
    static let v11 = Migration(
        version: 11,
        shared: [
            """
            CREATE TABLE classes (
                id TEXT PRIMARY KEY,
                slug TEXT NOT NULL UNIQUE,
                name TEXT NOT NULL,
                visibility TEXT NOT NULL CHECK (visibility IN ('members', 'server', 'public')),
                join_rule TEXT NOT NULL CHECK (join_rule IN ('invite', 'open', 'closed')),
                invite_code TEXT UNIQUE,
                created_at TEXT NOT NULL
            )
            """,
            """
            CREATE TABLE class_members (
                class_id TEXT NOT NULL REFERENCES classes(id) ON DELETE CASCADE,
                account_key TEXT NOT NULL REFERENCES accounts(key) ON DELETE CASCADE,
                role TEXT NOT NULL CHECK (role IN ('teacher', 'moderator', 'student')),
                joined_at TEXT NOT NULL,
                PRIMARY KEY (class_id, account_key)
            )
            """,
            "CREATE INDEX class_members_account ON class_members (account_key)",
            "ALTER TABLE student_locations ADD COLUMN class_id TEXT NOT NULL DEFAULT 'default'",
            "ALTER TABLE location_changes ADD COLUMN class_id TEXT NOT NULL DEFAULT 'default'",
            """
            CREATE INDEX student_locations_class_visible ON student_locations (class_id, updated_at DESC, object_id DESC)
            WHERE hidden_at IS NULL AND owner_disabled = 0
            """,
            "CREATE INDEX student_locations_class_owner ON student_locations (class_id, unique_key)",
        ],
        // Each change names its class.
        sqlite: [
            Migrations.defaultClass(now: "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"),
            "DROP TRIGGER student_locations_log_insert",
            "DROP TRIGGER student_locations_log_update",
            "DROP TRIGGER student_locations_log_delete",
            "DROP TRIGGER student_locations_log_hide",
            ChangeLogTriggers.sqliteLogRecord(
                trigger: "student_locations_log_insert", on: "INSERT", kind: "created",
                when: "NEW.hidden_at IS NULL AND NEW.owner_disabled = 0"),
            ChangeLogTriggers.sqliteLogRecord(
                trigger: "student_locations_log_update", on: "UPDATE", kind: "updated",
                when: "NEW.hidden_at IS NULL AND NEW.owner_disabled = 0"),
            """
            CREATE TRIGGER student_locations_log_delete AFTER DELETE ON student_locations BEGIN
                INSERT INTO location_changes (kind, class_id, object_id) VALUES ('deleted', OLD.class_id, OLD.object_id);
            END
            """,
            ChangeLogTriggers.sqliteLogHidden(when: "NEW.hidden_at IS NOT NULL OR NEW.owner_disabled <> 0"),
        ],
        postgres: [
            Migrations.defaultClass(now: #"to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#),
            ChangeLogTriggers.postgresLogFunction(hidden: "NEW.hidden_at IS NOT NULL OR NEW.owner_disabled <> 0"),
        ]
    )
}
