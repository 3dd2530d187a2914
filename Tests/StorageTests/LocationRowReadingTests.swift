import Foundation
import NIOPosix
import OnTheMapModels
import SQLKit
import SQLiteNIO
import TestDatabases
import Testing

@testable import Storage

/// List pages and the live map's snapshot pages read rows straight from the driver
/// (`SQLiteSupport`, `PostgresSupport`), not through SQLKit's row decoder: every value must
/// come out exactly as that decoder gives it, and what it refuses must still be refused.
@Suite("Location rows read by position")
struct LocationRowReadingTests {
    static let texts = [
        "", "plain", "Zoë “quoted” \"double\" 'single' \\ back\\slash", "日本語のテキスト", "emoji 🗺️👩🏽‍🎓 and a flag 🇧🇷",
        "line\nbreak\ttab\u{0001}control", "e\u{0301} (combining) vs é", String(repeating: "long ", count: 900),
        "https://example.com/a?b=c&d=%20e#f",
    ]
    static let numbers: [Double] = [0, -0.0, 1, -90, 90, 180, -180, 12.5, 1e-300, -123.456789012345678, 37.386052, 1e15]

    /// Every record as SQLKit's decoder reads it, in object-id order.
    static func throughSQLKit(_ store: SQLStore) async throws -> [StudentInformation] {
        try await store.withDatabase { db in
            try await db.raw("SELECT \(unsafeRaw: SQLStore.locationColumns) FROM student_locations ORDER BY object_id").all()
                .map(SQLStore.location(from:))
        }
    }

    @Test("unusual text and numbers read the same as through SQLKit, on list and snapshot pages", arguments: Backend.available)
    func sameValues(backend: Backend) async throws {
        try await backend.withStore { store in
            for (index, text) in Self.texts.enumerated() {
                for (offset, number) in Self.numbers.enumerated() where offset % Self.texts.count == index || index == 0 {
                    let id = String(format: "row%02d%02d", index, offset)
                    try await store.insertLocation(
                        StoredLocation(
                            record: StudentInformation(
                                objectId: id, uniqueKey: text, firstName: text, lastName: "L" + text, mapString: text,
                                mediaURL: text, latitude: number, longitude: -number,
                                createdAt: "2023-01-01T00:00:00.000Z", updatedAt: "2024-01-01T00:00:\(String(format: "%02d", offset)).000Z"),
                            ownerKey: nil, classId: MapClass.migratedDefaultID))
                }
            }
            let expected = try await Self.throughSQLKit(store)
            #expect(expected.count > Self.texts.count)
            let byObjectId = LocationQuery(sort: [LocationSort(.objectId, descending: false)], limit: 1_000)
            let listed = try await store.locations(byObjectId, in: MapClass.migratedDefaultID, author: nil)
            #expect(listed == expected)
            for (a, b) in zip(listed, expected) {
                // Equal strings may still differ in their bytes (é composed or not): the wire must not.
                #expect(Array(a.firstName.utf8) == Array(b.firstName.utf8) && Array(a.mediaURL.utf8) == Array(b.mediaURL.utf8))
                #expect(a.latitude.bitPattern == b.latitude.bitPattern && a.longitude.bitPattern == b.longitude.bitPattern)
            }
            // The snapshot's pages, small enough to take several.
            var paged: [StudentInformation] = []
            while true {
                let page = try await store.locationsByObjectId(after: paged.last?.objectId ?? "", in: MapClass.migratedDefaultID, limit: 7)
                if page.isEmpty { break }
                paged += page
            }
            #expect(paged == expected)
            // A filtered, sorted page (bound text and numbers, `$regex` through SQLite's function).
            let filtered = LocationQuery(
                filter: .and([
                    .compare(.latitude, .greaterOrEqual, .number(0)), .regex(.mapString, pattern: "^[a-z]", options: "i"),
                    .oneOf(.lastName, [.text("Lplain"), .text("L")]),
                ]),
                sort: [LocationSort(.updatedAt, descending: true)], limit: 5, skip: 1)
            // ("" fails the pattern, so of the two last names only "plain"'s rows are left.)
            let expectedFiltered = Array(
                expected.filter { $0.latitude >= 0 && $0.lastName == "Lplain" }
                    .sorted { ($0.updatedAt, $0.objectId) > ($1.updatedAt, $1.objectId) }.dropFirst().prefix(5))
            #expect(expectedFiltered.count == 1)
            #expect(try await store.locations(filtered, in: MapClass.migratedDefaultID, author: nil) == expectedFiltered)
        }
    }

    @Test("snapshot pages come in the bytes' order of their objectIds, as the store says (both databases)", arguments: Backend.available)
    func bytesOrder(backend: Backend) async throws {
        try await backend.withStore { store in
            // Upper case before lower, digits before both, "V" where the live map splits its read,
            // and ids from elsewhere: a language's collation orders these otherwise.
            let ids = ["b", "B", "a1", "A2", "V", "U", "Uz", "u", "Ä", "ä", "z", "0", "_x", "-y", "Ab", "aB"]
            for id in ids { try await store.insertLocation(record(id)) }
            #expect(store.ordersObjectIdsByBytes)
            let read = try await store.locationsByObjectId(after: "", in: MapClass.migratedDefaultID, limit: 100).map(\.objectId)
            #expect(read == ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            // A range read from a byte bound, as the live map reads its upper half.
            let upper = try await store.locationsByObjectId(after: "U\u{7F}", in: MapClass.migratedDefaultID, limit: 100).map(\.objectId)
            #expect(upper == ["V", "_x", "a1", "aB", "b", "u", "z", "Ä", "ä"])
        }
    }

    @Test("a value SQLKit's decoder refuses is refused too (SQLite: a blob where text belongs)")
    func refusedValue() async throws {
        try await Backend.sqlite.withStore { store in
            try await store.insertLocation(record("blob1"))
            try await store.withDatabase { db in try await db.raw("UPDATE student_locations SET first_name = X'4142'").run() }
            await #expect(throws: DecodingError.self) { try await Self.throughSQLKit(store) }
            await #expect(throws: DecodingError.self) {
                try await store.locations(LocationQuery(), in: MapClass.migratedDefaultID, author: nil)
            }
            await #expect(throws: DecodingError.self) {
                try await store.locationsByObjectId(after: "", in: MapClass.migratedDefaultID, limit: 10)
            }
        }
    }

    @Test("a list read past the deadline is reported as queryTimeout, and the connection serves the next read (SQLite)")
    func listDeadline() async throws {
        try await Backend.sqlite.withStore(limits: QueryLimits(timeout: 0.2)) { store in
            let long = String(repeating: "a", count: 4_000)
            for index in 0..<60 {
                try await store.insertLocation(record("r\(index)", mapString: long))
            }
            await #expect(throws: StorageError.queryTimeout) {
                try await store.locations(
                    LocationQuery(filter: .regex(.mapString, pattern: "(a*a){40}!", options: "")), in: MapClass.migratedDefaultID,
                    author: nil)
            }
            #expect(try await store.locations(LocationQuery(limit: 1_000), in: MapClass.migratedDefaultID, author: nil).count == 60)
        }
    }
}

/// The SQLite connections list and snapshot pages read on (`SQLiteReadConnections`).
@Suite("SQLite read connections")
struct SQLiteReadConnectionsTests {
    @Test("more reads at once than read connections: the others take the pool's, and all answer; the store then closes")
    func manyReadsAtOnce() async throws {
        try await Backend.sqlite.withStore { store in
            for index in 0..<30 {
                try await store.insertLocation(record(String(format: "many%03d", index)))
            }
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<48 {
                    group.addTask {
                        if index % 4 == 0 {
                            return try await store.locationsByObjectId(after: "", in: MapClass.migratedDefaultID, limit: 100).count
                        }
                        return try await store.locations(LocationQuery(limit: 100), in: MapClass.migratedDefaultID, author: nil).count
                    }
                }
                for try await count in group { #expect(count == 30) }
            }
        }
    }

    @Test("a read finds a read connection busy and uses the pool; shutting down waits for the one in use, then closes it")
    func busyAndShutdown() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-reads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let threads = NIOThreadPool(numberOfThreads: 2)
        threads.start()
        let reads = SQLiteReadConnections(
            source: ServerSQLiteSource(path: directory.appendingPathComponent("reads.sqlite").path, threadPool: threads), limit: 1,
            logger: TestDatabases.logger("test"))
        let holding = AsyncStream<Void>.makeStream()
        let release = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await reads.withConnection(
                { connection in
                    try await connection.query("SELECT 1", []) { _ in }
                    holding.continuation.yield()
                    for await _ in release.stream { break }
                    return "read connection"
                }, otherwise: { "pool" })
        }
        for await _ in holding.stream { break }
        #expect(try await reads.withConnection({ _ in "read connection" }, otherwise: { "pool" }) == "pool")
        let shutdown = Task { await reads.shutdown() }
        // Busy, and (once the task runs) shutting down: either way a read goes to the pool.
        #expect(try await reads.withConnection({ _ in "read connection" }, otherwise: { "pool" }) == "pool")
        release.continuation.yield()
        #expect(try await holder.value == "read connection")
        await shutdown.value
        try await threads.shutdownGracefully()
    }
}
