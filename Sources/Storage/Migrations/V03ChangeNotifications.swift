extension Migration {
    // Version 3 is PostgreSQL's alone (its `postgres` part); SQLite records it as done.
    static let v03 = Migration(
        version: 3,
        shared: [],
        // Every write to student_locations, by any server or by hand, notifies the channel
        // `changeChannelQuery` names once its transaction commits; list caches listen on it.
        postgres: [
            """
            CREATE FUNCTION onthemap_announce_location_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('otm_' || md5(TG_TABLE_SCHEMA), '');
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER student_locations_announce_change
                AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON student_locations
                FOR EACH STATEMENT EXECUTE FUNCTION onthemap_announce_location_change()
            """,
        ]
    )
}
