extension Migration {
    // The live map's log keeps only the newest change of each record, so a replay can
    // never serve a copy the store has since replaced, hidden or deleted (an exact point
    // before its class showed towns, a post before its author deleted it); it also logs
    // when someone's access ends (`ended`: a membership with its account's key, a session
    // with its token's digest, a disabled account, a class's visibility or its end), so
    // every server closes the matching streams. The
    // earlier copies kept until now go, and a kept copy of a record no one may see any
    // more becomes a plain deletion (dialect parts: the triggers).
    static let v18 = Migration(
        version: 18,
        shared: [
            "CREATE INDEX location_changes_object ON location_changes (object_id, version)",
            // Below which version the log was pruned: its gaps above are records' earlier
            // changes, replaced by their newest; below, changes that are not kept at all.
            "CREATE TABLE location_log_horizon (id INTEGER PRIMARY KEY CHECK (id = 1), pruned_through BIGINT NOT NULL)",
            "INSERT INTO location_log_horizon (id, pruned_through) SELECT 1, COALESCE(MIN(version) - 1, 0) FROM location_changes",
            """
            DELETE FROM location_changes WHERE kind IN ('created', 'updated', 'deleted') AND version < (
                SELECT MAX(newer.version) FROM location_changes AS newer
                WHERE newer.object_id = location_changes.object_id AND newer.kind IN ('created', 'updated', 'deleted'))
            """,
            """
            UPDATE location_changes SET kind = 'deleted', unique_key = NULL, first_name = NULL, last_name = NULL, map_string = NULL,
                media_url = NULL, latitude = NULL, longitude = NULL, created_at = NULL, updated_at = NULL
            WHERE kind IN ('created', 'updated') AND NOT EXISTS (
                SELECT 1 FROM student_locations AS shown WHERE shown.object_id = location_changes.object_id
                AND shown.class_id = location_changes.class_id
                AND shown.hidden_at IS NULL AND shown.owner_disabled = 0 AND shown.waiting = 0)
            """,
        ],
        // A record's newest change replaces its earlier ones; an edit of a post that is not on
        // the map (hidden, or its author disabled, or waiting) tells viewers nothing; ended
        // access is logged for the streams to close.
        sqlite: [
            "DROP TRIGGER student_locations_log_hide",
            ChangeLogTriggers.sqliteLogHidden(
                when: """
                    (NEW.hidden_at IS NOT NULL OR NEW.owner_disabled <> 0 OR NEW.waiting <> 0)
                        AND OLD.hidden_at IS NULL AND OLD.owner_disabled = 0 AND OLD.waiting = 0
                    """),
            """
            CREATE TRIGGER location_changes_compact AFTER INSERT ON location_changes
            WHEN NEW.kind IN ('created', 'updated', 'deleted') BEGIN
                DELETE FROM location_changes
                WHERE object_id = NEW.object_id AND version < NEW.version AND kind IN ('created', 'updated', 'deleted');
            END
            """,
            """
            CREATE TRIGGER class_members_access_ended AFTER DELETE ON class_members BEGIN
                INSERT INTO location_changes (kind, class_id, object_id) VALUES ('ended', OLD.class_id, OLD.account_key);
            END
            """,
            """
            CREATE TRIGGER sessions_access_ended AFTER DELETE ON sessions BEGIN
                INSERT INTO location_changes (kind, class_id, object_id) VALUES ('ended', '', OLD.id);
            END
            """,
            """
            CREATE TRIGGER accounts_access_ended AFTER UPDATE OF disabled_at ON accounts
            WHEN NEW.disabled_at IS NOT NULL AND OLD.disabled_at IS NULL BEGIN
                INSERT INTO location_changes (kind, class_id, object_id) VALUES ('ended', '', NEW.key);
            END
            """,
            """
            CREATE TRIGGER classes_access_ended AFTER UPDATE ON classes
            WHEN NEW.visibility IS NOT OLD.visibility OR NEW.archived_at IS NOT OLD.archived_at BEGIN
                INSERT INTO location_changes (kind, class_id, object_id) VALUES ('ended', NEW.id, '');
            END
            """,
            """
            CREATE TRIGGER classes_access_ended_delete AFTER DELETE ON classes BEGIN
                INSERT INTO location_changes (kind, class_id, object_id) VALUES ('ended', OLD.id, '');
            END
            """,
        ],
        // As on SQLite (18): a record's newest change replaces its earlier ones, edits of posts
        // not on the map are not logged, and ended access is logged, each under the log's lock.
        postgres: [
            ChangeLogTriggers.postgresLogFunction(
                hidden: "NEW.hidden_at IS NOT NULL OR NEW.owner_disabled <> 0 OR NEW.waiting <> 0",
                before: """
                        IF TG_OP = 'UPDATE' AND (NEW.hidden_at IS NOT NULL OR NEW.owner_disabled <> 0 OR NEW.waiting <> 0)
                            AND (OLD.hidden_at IS NOT NULL OR OLD.owner_disabled <> 0 OR OLD.waiting <> 0) THEN
                            RETURN NULL;
                        END IF;

                    """),
            """
            CREATE FUNCTION onthemap_compact_location_changes() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                EXECUTE format('DELETE FROM %I.location_changes WHERE object_id = $1 AND version < $2 '
                    'AND kind IN (''created'', ''updated'', ''deleted'')', TG_TABLE_SCHEMA)
                    USING NEW.object_id, NEW.version;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER location_changes_compact AFTER INSERT ON location_changes
                FOR EACH ROW WHEN (NEW.kind IN ('created', 'updated', 'deleted'))
                EXECUTE FUNCTION onthemap_compact_location_changes()
            """,
            """
            CREATE FUNCTION onthemap_log_access_ended() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                ended_class varchar := '';
                ended_account varchar := '';
            BEGIN
                IF TG_TABLE_NAME = 'class_members' THEN
                    ended_class := OLD.class_id;
                    ended_account := OLD.account_key;
                ELSIF TG_TABLE_NAME = 'sessions' THEN
                    ended_account := OLD.id;
                ELSIF TG_TABLE_NAME = 'accounts' THEN
                    ended_account := NEW.key;
                ELSIF TG_OP = 'DELETE' THEN
                    ended_class := OLD.id;
                ELSE
                    ended_class := NEW.id;
                END IF;
                PERFORM pg_advisory_xact_lock(1869902701, hashtext(TG_TABLE_SCHEMA));
                EXECUTE format('INSERT INTO %I.location_changes (kind, class_id, object_id) VALUES (''ended'', $1, $2)', TG_TABLE_SCHEMA)
                    USING ended_class, ended_account;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER class_members_access_ended AFTER DELETE ON class_members
                FOR EACH ROW EXECUTE FUNCTION onthemap_log_access_ended()
            """,
            """
            CREATE TRIGGER sessions_access_ended AFTER DELETE ON sessions
                FOR EACH ROW EXECUTE FUNCTION onthemap_log_access_ended()
            """,
            """
            CREATE TRIGGER accounts_access_ended AFTER UPDATE OF disabled_at ON accounts
                FOR EACH ROW WHEN (NEW.disabled_at IS NOT NULL AND OLD.disabled_at IS NULL)
                EXECUTE FUNCTION onthemap_log_access_ended()
            """,
            """
            CREATE TRIGGER classes_access_ended AFTER UPDATE ON classes
                FOR EACH ROW WHEN (NEW.visibility IS DISTINCT FROM OLD.visibility OR NEW.archived_at IS DISTINCT FROM OLD.archived_at)
                EXECUTE FUNCTION onthemap_log_access_ended()
            """,
            """
            CREATE TRIGGER classes_access_ended_delete AFTER DELETE ON classes
                FOR EACH ROW EXECUTE FUNCTION onthemap_log_access_ended()
            """,
        ]
    )
}
