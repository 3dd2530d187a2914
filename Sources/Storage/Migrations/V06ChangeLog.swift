extension Migration {
    // The live map's change log: every write to student_locations, by any server or by
    // hand, appends a row whose `version` the database assigns, so every server streams
    // the same changes in the same order. Dialect-specific (its `sqlite` and
    // `postgres` parts): the autoincrement column and the triggers are spelled differently.
    static let v06 = Migration(
        version: 6,
        shared: [],
        // AUTOINCREMENT: a version is never reused, even after the log is pruned to nothing.
        // SQLite has one writer at a time, so versions are assigned in commit order.
        sqlite: [
            "CREATE TABLE location_changes (version INTEGER PRIMARY KEY AUTOINCREMENT, \(Migrations.changeColumns))",
            ChangeLogTriggers.sqliteLogRecord(
                trigger: "student_locations_log_insert", on: "INSERT", kind: "created", when: nil, withClass: false),
            ChangeLogTriggers.sqliteLogRecord(
                trigger: "student_locations_log_update", on: "UPDATE", kind: "updated", when: nil, withClass: false),
            """
            CREATE TRIGGER student_locations_log_delete AFTER DELETE ON student_locations BEGIN
                INSERT INTO location_changes (kind, object_id) VALUES ('deleted', OLD.object_id);
            END
            """,
        ],
        // A sequence alone would not do: versions are taken when a row is written but become
        // visible when its transaction commits, so 12 could be seen before 11 and a reader
        // that moved on to 12 would never see 11. Each writer takes a per-schema transaction
        // lock before its version, so versions become visible in order (writes to this table
        // are serialized; students post rarely). The table is named with the trigger's own
        // schema, so a hand-made write with another search_path logs in the right place.
        postgres: [
            "CREATE TABLE location_changes (version BIGSERIAL PRIMARY KEY, \(Migrations.changeColumns))",
            ChangeLogTriggers.postgresLogFunctionWithoutClass(create: "CREATE", hidden: nil),
            """
            CREATE TRIGGER student_locations_log_change
                AFTER INSERT OR UPDATE OR DELETE ON student_locations
                FOR EACH ROW EXECUTE FUNCTION onthemap_log_location_change()
            """,
            // TRUNCATE has no rows to name: logged as a `reset`, which tells viewers to reload.
            """
            CREATE TRIGGER student_locations_log_truncate
                AFTER TRUNCATE ON student_locations
                FOR EACH STATEMENT EXECUTE FUNCTION onthemap_log_location_change()
            """,
        ]
    )
}
