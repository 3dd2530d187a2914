extension Migration {
    // An approval queue per class: a waiting post is its author's and the moderators' only,
    // so it is left out of the visible posts' index, and the change log tells viewers of a
    // post that starts waiting that it is gone (dialect parts: the triggers).
    static let v13 = Migration(
        version: 13,
        shared: [
            "ALTER TABLE classes ADD COLUMN approval TEXT NOT NULL DEFAULT 'off' CHECK (approval IN ('off', 'new-members', 'all'))",
            "ALTER TABLE student_locations ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0",
            "DROP INDEX student_locations_class_visible",
            """
            CREATE INDEX student_locations_class_visible ON student_locations (class_id, updated_at DESC, object_id DESC)
            WHERE hidden_at IS NULL AND owner_disabled = 0 AND waiting = 0
            """,
            "CREATE INDEX student_locations_class_waiting ON student_locations (class_id, updated_at) WHERE waiting = 1",
        ],
        // A waiting post is not on the map: logged as gone, and as created once approved.
        sqlite: [
            "DROP TRIGGER student_locations_log_insert",
            "DROP TRIGGER student_locations_log_update",
            "DROP TRIGGER student_locations_log_hide",
            ChangeLogTriggers.sqliteLogRecord(
                trigger: "student_locations_log_insert", on: "INSERT", kind: "created",
                when: "NEW.hidden_at IS NULL AND NEW.owner_disabled = 0 AND NEW.waiting = 0"),
            ChangeLogTriggers.sqliteLogRecord(
                trigger: "student_locations_log_update", on: "UPDATE", kind: "updated",
                when: "NEW.hidden_at IS NULL AND NEW.owner_disabled = 0 AND NEW.waiting = 0"),
            ChangeLogTriggers.sqliteLogHidden(when: "NEW.hidden_at IS NOT NULL OR NEW.owner_disabled <> 0 OR NEW.waiting <> 0"),
        ],
        // A waiting post is not on the map (see the SQLite triggers of 13).
        postgres: [
            ChangeLogTriggers.postgresLogFunction(hidden: "NEW.hidden_at IS NOT NULL OR NEW.owner_disabled <> 0 OR NEW.waiting <> 0")
        ]
    )
}
