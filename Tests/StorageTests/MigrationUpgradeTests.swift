import Foundation
import OnTheMapModels
import SQLKit
import TestDatabases
import Testing

@testable import Storage

/// A database made by an earlier version migrates to today's schema, on every backend: the
/// same tables, indexes and triggers as a new database, its data kept, and what the newer
/// versions change in the data done (the change log compacted, its pruning horizon set).
@Suite("Upgrading a database")
struct MigrationUpgradeTests {
    /// Tables, indexes and triggers by name (PostgreSQL: in the store's schema).
    static func schemaObjects(_ store: SQLStore) async throws -> [String] {
        try await store.withDatabase { db in
            let rows =
                db.dialect.name == "postgresql"
                ? try await db.raw(
                    """
                    SELECT 'table ' || table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()
                    UNION ALL SELECT 'index ' || indexname FROM pg_indexes WHERE schemaname = current_schema()
                    UNION ALL SELECT 'trigger ' || tgname FROM pg_trigger JOIN pg_class ON pg_class.oid = pg_trigger.tgrelid
                        JOIN pg_namespace ON pg_namespace.oid = pg_class.relnamespace
                        WHERE NOT tgisinternal AND pg_namespace.nspname = current_schema()
                    UNION ALL SELECT 'function ' || proname FROM pg_proc JOIN pg_namespace ON pg_namespace.oid = pg_proc.pronamespace
                        WHERE pg_namespace.nspname = current_schema()
                    """
                ).all()
                : try await db.raw(
                    """
                    SELECT type || ' ' || name AS name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'
                    """
                ).all()
            return try rows.map { try $0.decode(column: "name", as: String.self) }.sorted()
        }
    }

    static func insertAsVersion17(_ location: StoredLocation, on store: SQLStore) async throws {
        let r = location.record
        try await store.withDatabase { db in
            try await db.raw(
                """
                INSERT INTO student_locations (object_id, owner_key, unique_key, first_name, last_name, map_string,
                                               media_url, latitude, longitude, created_at, updated_at, class_id, waiting)
                VALUES (\(bind: r.objectId), \(bind: location.ownerKey), \(bind: r.uniqueKey), \(bind: r.firstName),
                        \(bind: r.lastName), \(bind: r.mapString), \(bind: r.mediaURL), \(bind: r.latitude),
                        \(bind: r.longitude), \(bind: r.createdAt), \(bind: r.updatedAt), \(bind: MapClass.migratedDefaultID), 0)
                """
            ).run()
        }
    }

    @Test(
        "a database of version 17 migrates to a new database's schema, its data kept and its change log compacted",
        arguments: Backend.available)
    func upgrade(backend: Backend) async throws {
        try await backend.withStore(migratingThrough: 17) { store in
            try await ClassStoreTests.account("1000000001", on: store)
            var posted = record("upgrade001", key: "1000000001", mapString: "Flat 4B, 5 Avenue Anatole France")
            posted.ownerKey = "1000000001"
            // Written as version 17 wrote posts (today's store also writes their search words).
            try await Self.insertAsVersion17(posted, on: store)
            try await store.withDatabase { db in
                try await db.raw(
                    "UPDATE student_locations SET map_string = 'Paris, France', updated_at = '2024-02-01T00:00:00.000Z' WHERE object_id = 'upgrade001'"
                ).run()
            }
            try await Self.insertAsVersion17(record("upgrade002", mapString: "Doxxed: 12 Via Roma"), on: store)
            #expect(
                try await store.setHidden(
                    objectId: "upgrade002", in: MapClass.migratedDefaultID, true, reason: "doxxing",
                    moderatorKey: nil, now: Date()))
            #expect(try await store.locationChanges(after: 0, limit: 100).count == 4, "version 17 logged every write")

            try await store.migrate()
            let upgraded = try await Self.schemaObjects(store)
            try await backend.withStore { fresh in
                let new = try await Self.schemaObjects(fresh)
                #expect(upgraded == new)
            }
            #expect(upgraded.contains("table class_invitations") && upgraded.contains("table location_log_horizon"))
            let log = try await store.locationChanges(after: 0, limit: 100)
            #expect(log.map(\.objectId) == ["upgrade001", "upgrade002"], "each record's newest change only")
            #expect(log.first?.record?.mapString == "Paris, France")
            #expect(log.last?.kind == .deleted && log.last?.record == nil)
            #expect(try await store.locationLogHorizon() == 0, "nothing was pruned")
            #expect(
                try await store.location(objectId: "upgrade001", in: MapClass.migratedDefaultID, author: nil)?.record.mapString
                    == "Paris, France")
        }
    }
}
