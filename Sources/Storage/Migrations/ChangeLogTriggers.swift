/// The change log's triggers on `student_locations` as the migrations that replace them
/// write them (6, 7, 11, 13 and 18): each version keeps the shape and changes which posts are
/// on the map, or (from 11) logs each change's class, so the shape is written once here.
enum ChangeLogTriggers {
    /// A write that puts a record on the map (`created` or `updated`, with the whole record);
    /// `shown`: the rule for being on the map, nil for every record (version 6); `withClass`:
    /// the change names its class (from version 11).
    static func sqliteLogRecord(trigger: String, on event: String, kind: String, when shown: String?, withClass: Bool = true) -> String {
        let head =
            shown.map { "CREATE TRIGGER \(trigger) AFTER \(event) ON student_locations\nWHEN \($0) BEGIN" }
            ?? "CREATE TRIGGER \(trigger) AFTER \(event) ON student_locations BEGIN"
        let classColumn = withClass ? "class_id, " : ""
        let classValue = withClass ? "NEW.class_id, " : ""
        return """
            \(head)
                INSERT INTO location_changes (kind, \(classColumn)object_id, unique_key, first_name, last_name, map_string, media_url,
                                              latitude, longitude, created_at, updated_at)
                VALUES ('\(kind)', \(classValue)NEW.object_id, NEW.unique_key, NEW.first_name, NEW.last_name, NEW.map_string,
                        NEW.media_url, NEW.latitude, NEW.longitude, NEW.created_at, NEW.updated_at);
            END
            """
    }

    /// An update that takes a record off the map: logged as `deleted`.
    static func sqliteLogHidden(when hidden: String, withClass: Bool = true) -> String {
        let values =
            withClass
            ? "(kind, class_id, object_id) VALUES ('deleted', NEW.class_id, NEW.object_id)"
            : "(kind, object_id) VALUES ('deleted', NEW.object_id)"
        return """
            CREATE TRIGGER student_locations_log_hide AFTER UPDATE ON student_locations
            WHEN \(hidden) BEGIN
                INSERT INTO location_changes \(values);
            END
            """
    }

    /// PostgreSQL's function before classes (versions 6 and 7): `create` is `CREATE` the first
    /// time, `CREATE OR REPLACE` after; `hidden` (over `NEW`), when given, logs an update off the
    /// map as `deleted`.
    static func postgresLogFunctionWithoutClass(create: String, hidden: String?) -> String {
        let hiddenBranch =
            hidden.map {
                """
                    ELSIF \($0) THEN
                        EXECUTE format('INSERT INTO %I.location_changes (kind, object_id) VALUES (''deleted'', $1)', TG_TABLE_SCHEMA)
                            USING NEW.object_id;

                """
            } ?? ""
        return """
            \(create) FUNCTION onthemap_log_location_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_advisory_xact_lock(1869902701, hashtext(TG_TABLE_SCHEMA));
                IF TG_OP = 'TRUNCATE' THEN
                    EXECUTE format('INSERT INTO %I.location_changes (kind, object_id) VALUES (''reset'', '''')', TG_TABLE_SCHEMA);
                ELSIF TG_OP = 'DELETE' THEN
                    EXECUTE format('INSERT INTO %I.location_changes (kind, object_id) VALUES (''deleted'', $1)', TG_TABLE_SCHEMA)
                        USING OLD.object_id;
            \(hiddenBranch)    ELSE
                    EXECUTE format('INSERT INTO %I.location_changes (kind, object_id, unique_key, first_name, last_name, map_string, '
                        'media_url, latitude, longitude, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)',
                        TG_TABLE_SCHEMA)
                        USING CASE WHEN TG_OP = 'INSERT' THEN 'created' ELSE 'updated' END, NEW.object_id, NEW.unique_key,
                            NEW.first_name, NEW.last_name, NEW.map_string, NEW.media_url, NEW.latitude, NEW.longitude,
                            NEW.created_at, NEW.updated_at;
                END IF;
                RETURN NULL;
            END
            $$
            """
    }

    /// PostgreSQL's one function for every write: under the log's per-schema lock (versions
    /// visible in order), a `TRUNCATE` as `reset`, a delete or an update off the map (`hidden`,
    /// over `NEW`) as `deleted`, anything else with the whole record. `before`: statements run
    /// first, ahead of the lock.
    static func postgresLogFunction(hidden: String, before: String = "") -> String {
        """
        CREATE OR REPLACE FUNCTION onthemap_log_location_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
        \(before)    PERFORM pg_advisory_xact_lock(1869902701, hashtext(TG_TABLE_SCHEMA));
            IF TG_OP = 'TRUNCATE' THEN
                EXECUTE format('INSERT INTO %I.location_changes (kind, class_id, object_id) VALUES (''reset'', '''', '''')', TG_TABLE_SCHEMA);
            ELSIF TG_OP = 'DELETE' THEN
                EXECUTE format('INSERT INTO %I.location_changes (kind, class_id, object_id) VALUES (''deleted'', $1, $2)', TG_TABLE_SCHEMA)
                    USING OLD.class_id, OLD.object_id;
            ELSIF \(hidden) THEN
                IF TG_OP = 'UPDATE' THEN
                    EXECUTE format('INSERT INTO %I.location_changes (kind, class_id, object_id) VALUES (''deleted'', $1, $2)', TG_TABLE_SCHEMA)
                        USING NEW.class_id, NEW.object_id;
                END IF;
            ELSE
                EXECUTE format('INSERT INTO %I.location_changes (kind, class_id, object_id, unique_key, first_name, last_name, map_string, '
                    'media_url, latitude, longitude, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
                    TG_TABLE_SCHEMA)
                    USING CASE WHEN TG_OP = 'INSERT' THEN 'created' ELSE 'updated' END, NEW.class_id, NEW.object_id, NEW.unique_key,
                        NEW.first_name, NEW.last_name, NEW.map_string, NEW.media_url, NEW.latitude, NEW.longitude,
                        NEW.created_at, NEW.updated_at;
            END IF;
            RETURN NULL;
        END
        $$
        """
    }
}
