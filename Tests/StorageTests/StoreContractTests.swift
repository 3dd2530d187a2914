import Foundation
import OnTheMapModels
import Storage
import Logging
import Testing

/// The contract every storage backend must keep. Each test runs once per backend in
/// `backends`; a PostgreSQL entry joins the list when that backend exists.
enum Backend: String, CaseIterable, CustomTestStringConvertible {
    case sqlite
    var testDescription: String { rawValue }

    func withStore<T>(_ body: (SQLStore) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLStore.open(url: "sqlite://" + directory.appendingPathComponent("test.sqlite").path, logger: Logger(label: "test"))
        do {
            let result = try await body(store)
            try await store.close()
            return result
        } catch {
            try? await store.close()
            throw error
        }
    }
}

func record(_ id: String, key: String = "k", first: String = "F", updated: String = "2024-01-01T00:00:00.000Z",
            latitude: Double = 10, mapString: String = "Somewhere") -> StoredLocation {
    StoredLocation(record: StudentInformation(
        objectId: id, uniqueKey: key, firstName: first, lastName: "L", mapString: mapString, mediaURL: "https://x.y",
        latitude: latitude, longitude: 20, createdAt: "2023-01-01T00:00:00.000Z", updatedAt: updated
    ), ownerKey: nil)
}

@Suite("Storage contract")
struct StoreContractTests {
    @Test("accounts: create, find by email and key, refuse a taken email", arguments: Backend.allCases)
    func accounts(backend: Backend) async throws {
        try await backend.withStore { store in
            let account = Account(key: "1234567890", email: "a@b.co", passwordHash: "h", firstName: "A", lastName: "B", createdAt: Date())
            try await store.createAccount(account)
            #expect(try await store.account(email: "a@b.co")?.key == "1234567890")
            #expect(try await store.account(key: "1234567890")?.email == "a@b.co")
            #expect(try await store.account(email: "nobody@b.co") == nil)
            var duplicate = account
            duplicate.key = "999"
            await #expect(throws: StorageError.emailTaken) { try await store.createAccount(duplicate) }
        }
    }

    @Test("sessions: found until they expire, deleted on logout, swept when expired", arguments: Backend.allCases)
    func sessions(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.createAccount(Account(key: "1", email: "a@b.co", passwordHash: "h", firstName: "A", lastName: "B", createdAt: Date()))
            let now = Date()
            try await store.createSession(Session(id: "live", accountKey: "1", createdAt: now, expiresAt: now.addingTimeInterval(60)))
            try await store.createSession(Session(id: "old", accountKey: "1", createdAt: now, expiresAt: now.addingTimeInterval(-1)))
            #expect(try await store.session(id: "live", now: now)?.accountKey == "1")
            #expect(try await store.session(id: "live", now: now.addingTimeInterval(61)) == nil)
            #expect(try await store.session(id: "old", now: now) == nil)
            #expect(try await store.deleteExpiredSessions(now: now) == 1)
            #expect(try await store.deleteSession(id: "live"))
            #expect(try await !store.deleteSession(id: "live"))
        }
    }

    @Test("locations: insert, get, patch, delete", arguments: Backend.allCases)
    func locationLifecycle(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.insertLocation(record("a"))
            #expect(try await store.location(objectId: "a")?.record.firstName == "F")
            let updated = try await store.updateLocation(objectId: "a", patch: LocationPatch(firstName: "G", latitude: -5), updatedAt: Date(timeIntervalSince1970: 1_800_000_000))
            #expect(updated?.firstName == "G")
            #expect(updated?.latitude == -5)
            #expect(updated?.lastName == "L")
            #expect(updated?.updatedAt == "2027-01-15T08:00:00.000Z")
            #expect(try await store.updateLocation(objectId: "missing", patch: LocationPatch(firstName: "x"), updatedAt: Date()) == nil)
            #expect(try await store.deleteLocation(objectId: "a"))
            #expect(try await store.location(objectId: "a") == nil)
            #expect(try await !store.deleteLocation(objectId: "a"))
        }
    }

    @Test("queries: order with a stable tie-break, limit/skip pages, filters, count", arguments: Backend.allCases)
    func queries(backend: Backend) async throws {
        try await backend.withStore { store in
            // Equal timestamps everywhere: paging must still neither repeat nor skip rows.
            for index in 0..<250 {
                try await store.insertLocation(record(String(format: "id%04d", index), key: index % 2 == 0 ? "even" : "odd",
                                                      first: "N\(index)", latitude: Double(index % 90)))
            }
            var seen: [String] = []
            for skip in stride(from: 0, to: 250, by: 100) {
                seen += try await store.locations(LocationQuery(sort: [LocationSort(.updatedAt, descending: true)], limit: 100, skip: skip)).map(\.objectId)
            }
            #expect(seen.count == 250 && Set(seen).count == 250)
            #expect(try await store.countLocations(.compare(.uniqueKey, .equal, .text("even"))) == 125)
            #expect(try await store.countLocations(.oneOf(.objectId, [.text("id0001"), .text("id0002"), .text("nope")])) == 2)
            #expect(try await store.countLocations(.and([.compare(.latitude, .greaterOrEqual, .number(80)), .compare(.uniqueKey, .equal, .text("odd"))])) == 10)
            #expect(try await store.countLocations(.or([.compare(.firstName, .equal, .text("N1")), .compare(.firstName, .equal, .text("N2"))])) == 2)
            #expect(try await store.countLocations(.not(.compare(.uniqueKey, .equal, .text("even")))) == 125)
            #expect(try await store.countLocations(.regex(.firstName, pattern: "^n1\\d$", options: "i")) == 10)
            #expect(try await store.countLocations(.regex(.firstName, pattern: "^n1\\d$", options: "")) == 0)
            #expect(try await store.countLocations(.never) == 0)
            #expect(try await store.countLocations(.always) == 250)
        }
    }

    @Test("text binds are data, never SQL", arguments: Backend.allCases)
    func injection(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.insertLocation(record("a", first: "x'); DROP TABLE student_locations; --"))
            #expect(try await store.countLocations(.compare(.firstName, .equal, .text("x' OR '1'='1"))) == 0)
            #expect(try await store.location(objectId: "a")?.record.firstName == "x'); DROP TABLE student_locations; --")
        }
    }

    @Test("reopening a database keeps its data and does not re-run migrations")
    func reopen() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-reopen-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = "sqlite://" + directory.appendingPathComponent("db.sqlite").path
        let first = try await SQLStore.open(url: url, logger: Logger(label: "test"))
        try await first.insertLocation(record("kept"))
        try await first.close()
        let second = try await SQLStore.open(url: url, logger: Logger(label: "test"))
        #expect(try await second.location(objectId: "kept") != nil)
        try await second.close()
        await #expect(throws: StorageError.self) { try await SQLStore.open(url: "mysql://nope", logger: Logger(label: "test")) }
    }
}
