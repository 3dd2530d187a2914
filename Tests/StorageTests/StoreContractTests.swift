import Foundation
import Logging
import OnTheMapModels
import TestDatabases
import Testing

@testable import Storage

/// The contract every storage backend must keep. Each test runs once per backend:
/// SQLite always, PostgreSQL when `ONTHEMAP_TEST_POSTGRES_URL` names a server to use
/// (`bash Scripts/with-postgres.sh swift test` starts a throwaway one; CI always does, and
/// sets `ONTHEMAP_TEST_REQUIRE_POSTGRES=1` so a missing server fails instead of skipping).
enum Backend: String, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }

    static var available: [Backend] {
        let required = ProcessInfo.processInfo.environment["ONTHEMAP_TEST_REQUIRE_POSTGRES"] == "1"
        return TestDatabases.postgresServerURL != nil || required ? [.sqlite, .postgres] : [.sqlite]
    }

    /// A new, empty database for one test: a SQLite file in a temporary folder, or a
    /// PostgreSQL schema of its own. `cleanup` removes it.
    func freshDatabase() throws -> (url: String, cleanup: @Sendable () async -> Void) {
        switch self {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-store-\(UUID().uuidString)")
            return (
                "sqlite://" + directory.appendingPathComponent("test.sqlite").path,
                { try? FileManager.default.removeItem(at: directory) }
            )
        case .postgres:
            guard let server = TestDatabases.postgresServerURL else {
                throw BackendUnavailable()
            }
            let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            return (
                TestDatabases.databaseURL(schema: schema, on: server),
                { try? await TestDatabases.execute("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE") }
            )
        }
    }

    /// Deadlines far from anything these tests do, so a loaded CI machine cannot trip them;
    /// the deadline tests set their own.
    static let generousLimits = QueryLimits(timeout: 30)

    /// `body` with a store on a fresh database, migrated through version `last` only when
    /// given (a database as an earlier version left it, for `store.migrate()` to finish).
    func withStore<T>(
        limits: QueryLimits = Backend.generousLimits, migratingThrough last: Int = Int.max,
        _ body: (SQLStore) async throws -> T
    ) async throws -> T {
        let database = try freshDatabase()
        let store = try await SQLStore.open(
            url: database.url, dataDirectory: NSTemporaryDirectory(), photoStorage: nil, limits: limits,
            logger: TestDatabases.logger("test"), migratingThrough: last)
        do {
            let result = try await body(store)
            try await store.close()
            await database.cleanup()
            return result
        } catch {
            try? await store.close()
            await database.cleanup()
            throw error
        }
    }
}

struct BackendUnavailable: Error, CustomStringConvertible {
    var description: String { "ONTHEMAP_TEST_REQUIRE_POSTGRES=1 but ONTHEMAP_TEST_POSTGRES_URL is not set (see Scripts/with-postgres.sh)" }
}

func record(
    _ id: String, key: String = "k", first: String = "F", updated: String = "2024-01-01T00:00:00.000Z",
    latitude: Double = 10, mapString: String = "Somewhere"
) -> StoredLocation {
    StoredLocation(
        record: StudentInformation(
            objectId: id, uniqueKey: key, firstName: first, lastName: "L", mapString: mapString, mediaURL: "https://x.y",
            latitude: latitude, longitude: 20, createdAt: "2023-01-01T00:00:00.000Z", updatedAt: updated
        ), ownerKey: nil)
}

@Suite("Storage contract")
struct StoreContractTests {
    @Test("accounts: create, find by email and key, refuse a taken email", arguments: Backend.available)
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

    @Test("sessions: found until they expire, deleted on logout, swept when expired", arguments: Backend.available)
    func sessions(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.createAccount(
                Account(key: "1", email: "a@b.co", passwordHash: "h", firstName: "A", lastName: "B", createdAt: Date()))
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

    @Test("sessions are kept as digests: a token read out of the database logs nobody in", arguments: Backend.available)
    func sessionDigestsAtRest(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.createAccount(
                Account(key: "1", email: "a@b.co", passwordHash: "h", firstName: "A", lastName: "B", createdAt: Date()))
            let now = Date()
            let token = "1700000000S0123456789abcdef0123456789abcdef"
            try await store.createSession(Session(id: token, accountKey: "1", createdAt: now, expiresAt: now.addingTimeInterval(60)))
            let stored = try await store.withDatabase { db in
                try await db.raw("SELECT id FROM sessions").all().map { try $0.decode(column: "id", as: String.self) }
            }
            #expect(stored == [SessionToken.digest(token)])
            #expect(!stored.contains(token))
            #expect(try await store.session(id: stored[0], now: now) == nil)
            #expect(try await store.session(id: token, now: now)?.id == token)
        }
    }

    @Test("log out everywhere: every session of one account ends, but the one kept and other accounts'", arguments: Backend.available)
    func deleteAccountSessions(backend: Backend) async throws {
        try await backend.withStore { store in
            let now = Date()
            for key in ["1", "2"] {
                try await store.createAccount(
                    Account(key: key, email: "\(key)@b.co", passwordHash: "h", firstName: "A", lastName: "B", createdAt: now))
                for n in 0..<3 {
                    try await store.createSession(
                        Session(id: "\(key)-\(n)", accountKey: key, createdAt: now, expiresAt: now.addingTimeInterval(60)))
                }
            }
            #expect(try await store.deleteSessions(accountKey: "1", keeping: "1-0") == 2)
            #expect(try await store.session(id: "1-0", now: now) != nil)
            #expect(try await store.session(id: "1-1", now: now) == nil)
            #expect(try await store.deleteSessions(accountKey: "1", keeping: nil) == 1)
            #expect(try await store.session(id: "2-2", now: now) != nil)
            #expect(try await store.updatePasswordHash(accountKey: "2", to: "new", now: now))
            #expect(try await store.account(key: "2")?.passwordHash == "new")
            #expect(try await !store.updatePasswordHash(accountKey: "9", to: "new", now: now))
        }
    }

    @Test("login failures: counted atomically, reset after a quiet spell, locks kept and swept", arguments: Backend.available)
    func loginFailures(backend: Backend) async throws {
        try await backend.withStore { store in
            let t0 = Date(timeIntervalSince1970: 1_800_000_000)
            let account = ThrottleSubject(.account, "a@b.co")
            let address = ThrottleSubject(.address, "192.0.2.1")
            // Several servers counting at once: every failure counts.
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<10 {
                    group.addTask { try await store.recordLoginFailure(account, now: t0, resetBefore: t0.addingTimeInterval(-3600)) }
                }
                let counts = try await group.reduce(into: [Int]()) { $0.append($1) }
                #expect(Set(counts) == Set(1...10))
            }
            try await store.setLoginLock(account, until: t0.addingTimeInterval(60))
            _ = try await store.recordLoginFailure(address, now: t0, resetBefore: t0.addingTimeInterval(-3600))
            let found = try await store.loginFailures([account, address, ThrottleSubject(.device, "none")])
            #expect(found[account]?.failures == 10)
            #expect(found[account]?.lockedUntil == t0.addingTimeInterval(60))
            #expect(found[address]?.lockedUntil == nil)
            #expect(found.count == 2)
            // An hour later without failures the count starts again.
            let later = t0.addingTimeInterval(3601)
            #expect(try await store.recordLoginFailure(address, now: later, resetBefore: later.addingTimeInterval(-3600)) == 1)
            #expect(try await store.deleteStaleLoginFailures(before: t0.addingTimeInterval(61)) == 1)
            try await store.clearLoginFailures(address)
            #expect(try await store.loginFailures([account, address]).isEmpty)
        }
    }

    @Test("migration 4 gives every owned location its owner's uniqueKey", arguments: Backend.available)
    func uniqueKeyRepair(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.createAccount(
                Account(key: "1", email: "a@b.co", passwordHash: "h", firstName: "A", lastName: "B", createdAt: Date()))
            // Written the way the server allowed before: owner 1 claiming another key.
            var forged = record("forged0001", key: "2")
            forged.ownerKey = "1"
            try await store.insertLocation(forged)
            try await store.insertLocation(record("legacy0001", key: "1234"))
            try await store.withDatabase { db in try await db.raw("DELETE FROM schema_migrations WHERE version = 4").run() }
            try await store.migrate()
            #expect(try await store.location(objectId: "forged0001")?.record.uniqueKey == "1")
            #expect(try await store.location(objectId: "legacy0001")?.record.uniqueKey == "1234", "records nobody owns keep their key")
        }
    }

    @Test("a new SQLite database file, its folder and its WAL are readable by their owner only")
    func sqliteFileMode() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-mode-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.sqlite").path
        let store = try await SQLStore.open(url: "sqlite://" + path, limits: Backend.generousLimits, logger: TestDatabases.logger("test"))
        try await store.createAccount(
            Account(key: "1", email: "a@b.co", passwordHash: "h", firstName: "A", lastName: "B", createdAt: Date()))
        func mode(_ file: String) throws -> Int { try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as! Int }
        #expect(try mode(path) == 0o600)
        #expect(try mode(path + "-wal") == 0o600)
        #expect(try mode(directory.path) == 0o700)
        try await store.close()
        // A file an older version left world-readable is tightened on the next start.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        try await SQLStore.open(url: "sqlite://" + path, limits: Backend.generousLimits, logger: TestDatabases.logger("test")).close()
        #expect(try mode(path) == 0o600)
    }

    @Test("locations: insert, get, patch, delete", arguments: Backend.available)
    func locationLifecycle(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.insertLocation(record("a"))
            #expect(try await store.location(objectId: "a")?.record.firstName == "F")
            let updated = try await store.updateLocation(
                objectId: "a", patch: LocationPatch(firstName: "G", latitude: -5), updatedAt: Date(timeIntervalSince1970: 1_800_000_000))
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

    @Test("queries: order with a stable tie-break, limit/skip pages, filters, count", arguments: Backend.available)
    func queries(backend: Backend) async throws {
        try await backend.withStore { store in
            // Equal timestamps everywhere: paging must still neither repeat nor skip rows.
            for index in 0..<250 {
                try await store.insertLocation(
                    record(
                        String(format: "id%04d", index), key: index % 2 == 0 ? "even" : "odd",
                        first: "N\(index)", latitude: Double(index % 90)))
            }
            var seen: [String] = []
            for skip in stride(from: 0, to: 250, by: 100) {
                seen += try await store.locations(LocationQuery(sort: [LocationSort(.updatedAt, descending: true)], limit: 100, skip: skip))
                    .map(\.objectId)
            }
            #expect(seen.count == 250 && Set(seen).count == 250)
            #expect(try await store.countLocations(.compare(.uniqueKey, .equal, .text("even"))) == 125)
            #expect(try await store.countLocations(.oneOf(.objectId, [.text("id0001"), .text("id0002"), .text("nope")])) == 2)
            #expect(
                try await store.countLocations(
                    .and([.compare(.latitude, .greaterOrEqual, .number(80)), .compare(.uniqueKey, .equal, .text("odd"))])) == 10)
            #expect(
                try await store.countLocations(.or([.compare(.firstName, .equal, .text("N1")), .compare(.firstName, .equal, .text("N2"))]))
                    == 2)
            #expect(try await store.countLocations(.not(.compare(.uniqueKey, .equal, .text("even")))) == 125)
            #expect(try await store.countLocations(.regex(.firstName, pattern: "^n1\\d$", options: "i")) == 10)
            #expect(try await store.countLocations(.regex(.firstName, pattern: "^n1\\d$", options: "")) == 0)
            #expect(try await store.countLocations(.never) == 0)
            #expect(try await store.countLocations(.always) == 250)
        }
    }

    @Test("text binds are data, never SQL", arguments: Backend.available)
    func injection(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.insertLocation(record("a", first: "x'); DROP TABLE student_locations; --"))
            #expect(try await store.countLocations(.compare(.firstName, .equal, .text("x' OR '1'='1"))) == 0)
            #expect(try await store.location(objectId: "a")?.record.firstName == "x'); DROP TABLE student_locations; --")
        }
    }

    @Test("reopening a database keeps its data and does not re-run migrations", arguments: Backend.available)
    func reopen(backend: Backend) async throws {
        let database = try backend.freshDatabase()
        let first = try await SQLStore.open(
            url: database.url, dataDirectory: NSTemporaryDirectory(), limits: Backend.generousLimits, logger: TestDatabases.logger("test"))
        try await first.insertLocation(record("kept"))
        try await first.close()
        let second = try await SQLStore.open(
            url: database.url, dataDirectory: NSTemporaryDirectory(), limits: Backend.generousLimits, logger: TestDatabases.logger("test"))
        #expect(try await second.location(objectId: "kept") != nil)
        try await second.close()
        await database.cleanup()
    }

    // PostgreSQL only: that is where several servers share one database. (In one process,
    // SQLite's waits for its write lock would hold NIO's few blocking threads.)
    @Test("servers starting together on a new database migrate it once", arguments: Backend.available.filter { $0 == .postgres })
    func concurrentFirstStart(backend: Backend) async throws {
        let database = try backend.freshDatabase()
        let results = await withTaskGroup(of: Result<SQLStore, any Error>.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    do {
                        return .success(
                            try await SQLStore.open(
                                url: database.url, dataDirectory: NSTemporaryDirectory(), limits: Backend.generousLimits,
                                logger: TestDatabases.logger("test")))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let stores = results.compactMap { try? $0.get() }
        for case .failure(let error) in results { Issue.record(error, "a concurrent first start failed") }
        if let first = stores.first {
            try await first.insertLocation(record("shared"))
        }
        for store in stores {
            #expect(try await store.location(objectId: "shared") != nil)
            try await store.close()
        }
        await database.cleanup()
    }

    @Test("a whole database copies from SQLite into an empty one, once", arguments: Backend.available)
    func copyDatabase(backend: Backend) async throws {
        let source = try Backend.sqlite.freshDatabase()
        let from = try await SQLStore.open(
            url: source.url, dataDirectory: NSTemporaryDirectory(), limits: Backend.generousLimits, logger: TestDatabases.logger("test"))
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        try await from.createAccount(
            Account(key: "1000000001", email: "a@b.co", passwordHash: "hash", firstName: "Ada", lastName: "L", createdAt: now))
        try await from.createSession(Session(id: "s1", accountKey: "1000000001", createdAt: now, expiresAt: now.addingTimeInterval(60)))
        // More rows than one page, so paging is exercised; one without an owner.
        for index in 0..<(DatabaseCopy.pageSize + 7) {
            var location = record(String(format: "loc%05d", index), latitude: Double(index % 90) + 0.125)
            location.ownerKey = index == 0 ? nil : "1000000001"
            try await from.insertLocation(location)
        }
        let pin = Pin(
            id: "pin0000001", ownerKey: "1000000001", latitude: 48.5, longitude: 2.25, placeName: "Paris", createdAt: now, updatedAt: now)
        try await from.createPin(pin)
        let photo = Photo(
            id: "photo00001", pinID: pin.id, collection: 1, position: 0, provider: "flickr", remoteID: "r1",
            remoteURL: "https://example.com/1.jpg", title: "T", author: "A", attributionURL: nil, createdAt: now, updatedAt: now)
        let state = AlbumState(
            pinID: pin.id, provider: "flickr", collection: 1, page: 2, pages: 5, total: 100, status: .downloading, updatedAt: now)
        _ = try await from.replaceAlbum(pinID: pin.id, with: [photo], state: state)
        _ = try await from.markPhotoFailed(id: photo.id, reason: "timed out", at: now)

        let target = try backend.freshDatabase()
        let to = try await SQLStore.open(
            url: target.url, dataDirectory: NSTemporaryDirectory(), limits: Backend.generousLimits, logger: TestDatabases.logger("test"))
        try await from.rememberDevice(digest: "device-digest", accountKey: "1000000001", now: now)
        #expect(try await from.report(objectId: "loc00001", reporterKey: "1000000001", reason: "spam", now: now) == .reported)
        #expect(try await from.setHidden(objectId: "loc00002", true, reason: "ads", moderatorKey: "1000000001", now: now))
        try await from.createPasswordReset(token: "reset-token", accountKey: "1000000001", now: now, expiresAt: now.addingTimeInterval(60))
        #expect(
            try await from.linkIdentity(
                IdentityLink(
                    provider: "school", subject: "sub-1", accountKey: "1000000001", email: "a@b.co", createdAt: now, origin: .signUp)))
        try await from.saveSessionSignIn(sessionID: "s1", SessionSignIn(provider: "school", idToken: "id-token", accessToken: nil))
        try await from.createClass(
            MapClass(id: "class00001", slug: "cohort-a", name: "Cohort A", inviteCode: "abc", createdAt: now),
            teacherKey: "1000000001", now: now)
        try await from.invite(classId: "class00001", email: "invited@b.co", role: .student, now: now)
        try await from.addPlatform(
            LTIPlatform(
                id: "platform01", issuer: "https://lms.example.edu", clientID: "client-1", name: "LMS",
                authURL: "https://lms.example.edu/auth", tokenURL: "https://lms.example.edu/token",
                jwksURL: "https://lms.example.edu/jwks", trustEmail: false, deploymentIDs: ["d1"], createdAt: now))
        try await from.addToolKey(LTIToolKey(kid: "kid1", privateKeyPEM: "pem", createdAt: now), retiringOthersAt: now)
        #expect(
            try await from.addCourseLink(
                LTICourseLink(
                    platformID: "platform01", deploymentID: "d1", contextID: "course-1",
                    classID: "class00001", courseClass: true)))
        try await from.recordLaunch(
            classID: "class00001", platformID: "platform01",
            entry: LTIRosterEntry(subject: "sub-1", name: "Ada L", roles: ["Instructor"]), accountKey: "1000000001")
        // An email waiting for the relay goes with the move.
        try await from.enqueueMail(
            NewOutboxMail(
                kind: "invitation", recipient: "ada@example.org", sender: "map@example.org", messageID: "<m1@example.org>",
                message: "Subject: hi\r\n\r\nhello\r\n"), now: now)
        // A teacher's notice goes with the move (its stop link keeps working).
        try await from.setNotice(.waiting, on: true, classId: "class00001", accountKey: "1000000001", now: now)
        // Each post's search words: "" (indexed) and its folded words.
        let searchTerms = try await from.withDatabase { db in
            try await db.raw("SELECT COUNT(*) AS n FROM location_search_terms").first()?.decode(column: "n", as: Int.self) ?? 0
        }
        #expect(searchTerms > DatabaseCopy.pageSize + 7)
        let copied = try await DatabaseCopy.copy(from: from, to: to)
        #expect(
            copied.map(\.table) == [
                "accounts", "classes", "class_members", "class_invitations", "sessions", "login_devices", "student_locations",
                "location_reports", "moderation_actions", "password_resets", "identity_links", "pins", "photos",
                "album_states", "session_sign_ins", "lti_platforms", "lti_deployments", "lti_keys", "lti_courses", "lti_roster",
                "location_search_terms", "mail_outbox", "class_notices",
            ])
        #expect(
            copied.map(\.rows) == [1, 2, 1, 1, 1, 1, DatabaseCopy.pageSize + 7, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, searchTerms, 1, 1])
        // Table by table: every table of the source is copied whole or deliberately skipped.
        let sourceTables = try await DatabaseCopy.tableNames(in: from)
        #expect(Set(sourceTables) == Set(DatabaseCopy.tables.map(\.name) + DatabaseCopy.skipped.map(\.name)))
        for table in DatabaseCopy.tables {
            let columns = table.columns.map(\.0).joined(separator: ", ")
            func rows(_ store: SQLStore) async throws -> [String] {
                try await store.withDatabase { db in
                    try await db.raw("SELECT \(unsafeRaw: columns) FROM \(ident: table.name) ORDER BY \(unsafeRaw: table.key)").all().map {
                        row -> String in
                        // Decoded as the copy decodes each column, so both databases' types compare.
                        try DatabaseCopy.values(of: row, columns: table.columns).map { String(describing: $0) }.joined(separator: "|")
                    }
                }
            }
            #expect(try await rows(from) == rows(to), "\(table.name)")
        }
        #expect(try await to.sessionSignIn(sessionID: "s1")?.idToken == "id-token")
        #expect(try await to.identityAccountKey(provider: "school", subject: "sub-1") == "1000000001")
        #expect(try await to.account(key: "1000000001")?.isAdmin == true)
        #expect(try await to.moderatedLocation(objectId: "loc00002")?.hiddenReason == "ads")
        #expect(try await to.passwordResetAccount(token: "reset-token", now: now) == "1000000001")
        #expect(try await to.isKnownDevice(digest: "device-digest", accountKey: "1000000001"))

        #expect(try await to.account(email: "a@b.co")?.passwordHash == "hash")
        #expect(try await to.session(id: "s1", now: now)?.accountKey == "1000000001")
        #expect(try await to.countLocations(.always) == DatabaseCopy.pageSize + 6)
        #expect(try await to.location(objectId: "loc00000")?.ownerKey == nil)
        #expect(try await to.location(objectId: "loc00505")?.record == from.location(objectId: "loc00505")?.record)
        #expect(try await to.pins(ownerKey: "1000000001") == [pin])
        #expect(try await to.photo(id: photo.id)?.failureReason == "timed out")
        #expect(try await to.albumState(pinID: pin.id) == state)

        // Never into a database that holds data: nothing is merged, nothing changes.
        await #expect(throws: StorageError.destinationNotEmpty("accounts")) { try await DatabaseCopy.copy(from: from, to: to) }
        #expect(try await to.countLocations(.always) == DatabaseCopy.pageSize + 6)
        try await from.close()
        try await to.close()
        await source.cleanup()
        await target.cleanup()
    }

    @Test(
        "sign-in: a pending sign-in is spent once; an identity links to one account, an account to one identity per provider; handoff codes once",
        arguments: Backend.available)
    func signInRecords(backend: Backend) async throws {
        try await backend.withStore { store in
            let now = Date()
            try await store.createAccount(
                Account(key: "1000000001", email: "a@b.co", passwordHash: "", firstName: "A", lastName: "L", createdAt: now))
            try await store.createAccount(
                Account(key: "1000000002", email: "c@d.co", passwordHash: "", firstName: "C", lastName: "D", createdAt: now))
            let pending = PendingSignIn(
                stateDigest: "digest-1", provider: "school", nonce: "n", codeVerifier: "v", returnPath: "/",
                browserDigest: "b", linkAccountKey: nil, clientRedirect: "http://127.0.0.1:5000/cb",
                clientChallenge: "c", createdAt: now, expiresAt: now.addingTimeInterval(600))
            try await store.savePendingSignIn(pending)
            let taken = try await store.takePendingSignIn(stateDigest: "digest-1")
            #expect(taken?.nonce == "n" && taken?.clientRedirect == "http://127.0.0.1:5000/cb" && taken?.linkAccountKey == nil)
            #expect(try await store.takePendingSignIn(stateDigest: "digest-1") == nil)
            try await store.savePendingSignIn(
                PendingSignIn(
                    stateDigest: "old", provider: "school", nonce: "n", codeVerifier: "v", returnPath: "/",
                    browserDigest: "b", linkAccountKey: nil, createdAt: now, expiresAt: now.addingTimeInterval(-1)))
            #expect(try await store.deleteExpiredPendingSignIns(now: now) == 1)

            let link = IdentityLink(
                provider: "school", subject: "s1", accountKey: "1000000001", email: "a@b.co", createdAt: now, origin: .accountMenu)
            #expect(try await store.linkIdentity(link))
            var other = link
            other.accountKey = "1000000002"
            #expect(try await !store.linkIdentity(other))  // the identity is taken
            other = link
            other.subject = "s2"
            #expect(try await !store.linkIdentity(other))  // one identity per provider per account
            other.provider = "facebook"
            #expect(try await store.linkIdentity(other))
            #expect(try await store.identityAccountKey(provider: "school", subject: "s1") == "1000000001")
            #expect(try await store.identities(accountKey: "1000000001").map(\.provider).sorted() == ["facebook", "school"])
            #expect(try await store.unlinkIdentity(provider: "school", accountKey: "1000000001"))
            #expect(try await store.identityAccountKey(provider: "school", subject: "s1") == nil)

            try await store.saveSignInHandoff(
                code: "code-1", accountKey: "1000000002", provider: "school", challenge: "ch", expiresAt: now.addingTimeInterval(60))
            try await store.saveSignInHandoff(
                code: "code-2", accountKey: "1000000002", provider: "school", challenge: "ch", expiresAt: now.addingTimeInterval(-1))
            #expect(try await store.takeSignInHandoff(code: "code-1", now: now)?.accountKey == "1000000002")
            #expect(try await store.takeSignInHandoff(code: "code-1", now: now) == nil)
            #expect(try await store.takeSignInHandoff(code: "code-2", now: now) == nil)

            let session = Session(id: "sess-1", accountKey: "1000000002", createdAt: now, expiresAt: now.addingTimeInterval(60))
            try await store.createSession(session)
            try await store.saveSessionSignIn(sessionID: "sess-1", SessionSignIn(provider: "school", idToken: "eyJ.x.y", accessToken: nil))
            #expect(
                try await store.sessionSignIn(sessionID: "sess-1")
                    == SessionSignIn(provider: "school", idToken: "eyJ.x.y", accessToken: nil))
            #expect(try await store.deleteSession(id: "sess-1"))
            #expect(try await store.sessionSignIn(sessionID: "sess-1") == nil)
        }
    }

    @Test("text sorts and compares by code point, whatever the database's locale", arguments: Backend.available)
    func codePointOrder(backend: Backend) async throws {
        try await backend.withStore { store in
            for (id, name) in [("1", "b"), ("2", "Z"), ("3", "a"), ("4", "B"), ("5", "É"), ("6", "_")] {
                try await store.insertLocation(record(id, first: name))
            }
            let sorted = try await store.locations(LocationQuery(sort: [LocationSort(.firstName, descending: false)])).map(\.firstName)
            #expect(sorted == ["B", "Z", "_", "a", "b", "É"])
            #expect(try await store.countLocations(.compare(.firstName, .less, .text("a"))) == 3)
        }
    }

    @Test("$regex flags mean the same everywhere: i, m (anchors per line), s (dot matches newline), x", arguments: Backend.available)
    func regexFlags(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.insertLocation(record("a", mapString: "First line\nSecond line"))
            func count(_ pattern: String, _ options: String) async throws -> Int {
                try await store.countLocations(.regex(.mapString, pattern: pattern, options: options))
            }
            #expect(try await count("^second", "") == 0)
            #expect(try await count("^second", "i") == 0)
            #expect(try await count("^second", "im") == 1)
            #expect(try await count("line$", "") == 1)
            #expect(try await count("First line$", "") == 0)
            #expect(try await count("First line$", "m") == 1)
            #expect(try await count("line.Second", "") == 0)
            #expect(try await count("line.Second", "s") == 1)
            #expect(try await count("F irst \\s line  # a comment", "x") == 1)
        }
    }

    @Test("a statement past the deadline is cancelled in the database and reported as queryTimeout", arguments: Backend.available)
    func queryDeadline(backend: Backend) async throws {
        try await backend.withStore(limits: QueryLimits(timeout: 0.2)) { store in
            let long = String(repeating: "a", count: 4_000)
            for index in 0..<60 {
                try await store.insertLocation(record("r\(index)", mapString: long))
            }
            switch backend {
            case .sqlite:
                // Linear, but 60 rows x 4,000 characters x a ~200-state program is seconds of work.
                await #expect(throws: StorageError.queryTimeout) {
                    try await store.countLocations(.regex(.mapString, pattern: "(a*a){40}!", options: ""))
                }
            case .postgres:
                // statement_timeout on the pool's connections: SQLSTATE 57014.
                await #expect(throws: StorageError.queryTimeout) {
                    try await store.withDatabase { db in try await db.raw("SELECT pg_sleep(3)").run() }
                }
            }
            // (Cut off by the deadline, or the statement would have finished without an error.)
            // The connection is usable again at once.
            #expect(try await store.countLocations(.always) == 60)
        }
    }

    @Test("$regex queries take turns: past the deadline a waiting one gives up with queryTimeout")
    func patternQueriesTakeTurns() async throws {
        let gate = PatternQueryGate(limit: 1)
        let holding = AsyncStream<Void>.makeStream()
        let release = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await gate.withPermit(deadline: 0) {
                holding.continuation.yield()
                for await _ in release.stream { break }
            }
        }
        for await _ in holding.stream { break }
        let deadline = DispatchTime.now().uptimeNanoseconds + 100_000_000
        await #expect(throws: StorageError.queryTimeout) {
            try await gate.withPermit(deadline: deadline) {}
        }
        release.continuation.yield()
        try await holder.value
        // Once free, the next one runs.
        try await gate.withPermit(deadline: DispatchTime.now().uptimeNanoseconds + 1_000_000_000) {}
    }

    @Test("the database URL decides the backend; bad ones are clear errors that hide passwords")
    func databaseURLs() async throws {
        await #expect(throws: StorageError.unsupportedDatabaseURL("mysql://me:***@host/db")) {
            try await SQLStore.open(url: "mysql://me:secret@host/db", limits: Backend.generousLimits, logger: TestDatabases.logger("test"))
        }
        await #expect(
            throws: StorageError.invalidDatabaseURL(
                "postgres://me:***@host/db?schema=Bad-Name",
                "schema must be lower-case letters, digits and _, at most 63 characters")
        ) {
            try await SQLStore.open(
                url: "postgres://me:secret@host/db?schema=Bad-Name", limits: Backend.generousLimits, logger: TestDatabases.logger("test"))
        }
        await #expect(throws: StorageError.invalidDatabaseURL("postgres:///db", "expected postgres://user[:password]@host[:port]/database"))
        {
            try await SQLStore.open(url: "postgres:///db", limits: Backend.generousLimits, logger: TestDatabases.logger("test"))
        }
        // Nothing listens on port 1: the error says which database, without its password.
        let unreachable = await #expect(throws: StorageError.self) {
            try await SQLStore.open(
                url: "postgres://me:secret@127.0.0.1:1/db?sslmode=disable", limits: Backend.generousLimits,
                logger: TestDatabases.logger("test"))
        }
        guard case .databaseUnavailable(let url, let reason)? = unreachable else {
            Issue.record("expected databaseUnavailable, got \(String(describing: unreachable))")
            return
        }
        #expect(url == "postgres://me:***@127.0.0.1:1/db?sslmode=disable")
        #expect(reason.contains("refused"))
    }

    @Test("SQLite syncs every commit unless the URL asks for synchronous=normal; other settings are refused")
    func sqliteSynchronous() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        func synchronous(_ query: String) async throws -> Int? {
            let store = try await SQLStore.open(
                url: "sqlite://" + directory.appendingPathComponent("db.sqlite").path + query,
                limits: Backend.generousLimits, logger: TestDatabases.logger("test"))
            do {
                let value = try await store.withDatabase { db in
                    try await db.raw("PRAGMA synchronous").first()?.decode(column: "synchronous", as: Int.self)
                }
                try await store.close()
                return value
            } catch {
                try? await store.close()  // an open pool must not be dropped
                throw error
            }
        }
        #expect(try await synchronous("") == 2, "FULL")
        #expect(try await synchronous("?synchronous=NORMAL") == 1)
        let path = "sqlite://" + directory.appendingPathComponent("db.sqlite").path + "?synchronous=off"
        await #expect(throws: StorageError.invalidDatabaseURL(path, "the only SQLite setting is synchronous=full or synchronous=normal")) {
            try await SQLStore.open(url: path, limits: Backend.generousLimits, logger: TestDatabases.logger("test"))
        }
    }

    @Test("NUL characters never reach PostgreSQL as a server error", arguments: Backend.available)
    func nulCharacters(backend: Backend) async throws {
        try await backend.withStore { store throws in
            switch backend {
            case .sqlite:
                #expect(try await store.account(key: "a\u{0}b") == nil)
            case .postgres:
                await #expect(throws: StorageError.unstorableText) { try await store.account(key: "a\u{0}b") }
            }
        }
    }
}

@Suite("Moderation storage contract")
struct ModerationContractTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    static func account(_ key: String, _ email: String) -> Account {
        Account(key: key, email: email, passwordHash: "hash", firstName: "F", lastName: "L", createdAt: now)
    }

    @Test("the first account is the administrator; hidden and disabled authors' posts vanish from every read", arguments: Backend.available)
    func visibility(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.createAccount(Self.account("1000000001", "admin@x.co"))
            try await store.createAccount(Self.account("1000000002", "sam@x.co"))
            #expect(try await store.account(key: "1000000001")?.isAdmin == true)
            #expect(try await store.account(key: "1000000002")?.isAdmin == false)
            for (id, owner) in [("a", "1000000001"), ("b", "1000000002"), ("c", "1000000002")] {
                var location = record(id)
                location.ownerKey = owner
                try await store.insertLocation(location)
            }
            try await store.createSession(
                Session(id: "sam-session", accountKey: "1000000002", createdAt: Self.now, expiresAt: Self.now.addingTimeInterval(3600)))
            #expect(try await store.setHidden(objectId: "a", true, reason: "ads", moderatorKey: nil, now: Self.now))
            #expect(try await store.countLocations(.always) == 2)
            #expect(try await store.location(objectId: "a") == nil)
            #expect(try await store.updateLocation(objectId: "a", patch: LocationPatch(mapString: "x"), updatedAt: Self.now) == nil)
            #expect(try await store.report(objectId: "a", reporterKey: "1000000002", reason: "x", now: Self.now) == .notFound)

            #expect(try await store.setDisabled(accountKey: "1000000002", true, now: Self.now) == .done(endedSessions: 1))
            #expect(try await store.locations(LocationQuery()).isEmpty)
            #expect(try await store.session(id: "sam-session", now: Self.now) == nil)
            #expect(try await store.account(key: "1000000002")?.disabledAt != nil)
            #expect(try await store.setDisabled(accountKey: "nobody", true, now: Self.now) == .notFound)
            let newest = try await store.moderationList(.newest, limit: 10)
            #expect(Set(newest.map(\.record.objectId)) == ["a", "b", "c"])
            #expect(newest.first { $0.record.objectId == "b" }?.ownerDisabled == true)

            #expect(try await store.setDisabled(accountKey: "1000000002", false, now: Self.now) == .done(endedSessions: 0))
            #expect(try await store.setHidden(objectId: "a", false, reason: "ok", moderatorKey: nil, now: Self.now.addingTimeInterval(1)))
            #expect(try await store.countLocations(.always) == 3)
            #expect(try await store.moderationNotices(accountKey: "1000000001", limit: 10).map(\.action) == [.unhide, .hide])
        }
    }

    @Test("reports: one per reporter and post, counted; a moderator's delete keeps a notice", arguments: Backend.available)
    func reports(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.createAccount(Self.account("1000000001", "admin@x.co"))
            try await store.createAccount(Self.account("1000000002", "sam@x.co"))
            var location = record("a")
            location.ownerKey = "1000000002"
            try await store.insertLocation(location)
            #expect(try await store.report(objectId: "a", reporterKey: "1000000001", reason: "spam", now: Self.now) == .reported)
            #expect(try await store.report(objectId: "a", reporterKey: "1000000001", reason: "spam", now: Self.now) == .alreadyReported)
            #expect(try await store.reportCount(reporterKey: "1000000001", since: Self.now.addingTimeInterval(-1)) == 1)
            #expect(try await store.moderationList(.reported, limit: 10).first?.reportReasons == ["spam"])
            #expect(try await store.moderatorDelete(objectId: "a", reason: "gone", moderatorKey: "1000000001", now: Self.now))
            #expect(try await !store.moderatorDelete(objectId: "a", reason: "gone", moderatorKey: "1000000001", now: Self.now))
            #expect(try await store.moderationList(.reported, limit: 10).isEmpty)
            let notice = try await store.moderationNotices(accountKey: "1000000002", limit: 10).first
            #expect(notice?.action == .delete)
            #expect(notice?.reason == "gone")
        }
    }

    @Test("reset tokens: stored as digests, spent once, dead after expiry", arguments: Backend.available)
    func resets(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.createAccount(Self.account("1000000001", "admin@x.co"))
            try await store.createPasswordReset(
                token: "t1", accountKey: "1000000001", now: Self.now, expiresAt: Self.now.addingTimeInterval(60))
            #expect(try await store.passwordResetAccount(token: "t1", now: Self.now.addingTimeInterval(61)) == nil)
            #expect(try await store.consumePasswordReset(token: "t1", now: Self.now.addingTimeInterval(61)) == nil)
            async let first = store.consumePasswordReset(token: "t1", now: Self.now)
            async let second = store.consumePasswordReset(token: "t1", now: Self.now)
            let winners = [try await first, try await second].compactMap { $0 }
            #expect(winners == ["1000000001"], "exactly one use wins")
            #expect(try await store.passwordResetAccount(token: "t1", now: Self.now) == nil)
        }
    }

    @Test("the last enabled administrator cannot be disabled or demoted, even by two statements racing", arguments: Backend.available)
    func lastAdministrator(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.createAccount(Self.account("1000000001", "first@x.co"))
            try await store.createAccount(Self.account("1000000002", "second@x.co"))
            try await store.createAccount(Self.account("1000000003", "student@x.co"))
            #expect(try await store.setAdmin(accountKey: "1000000003", false) == .done(endedSessions: 0))
            #expect(try await store.setAdmin(accountKey: "1000000001", false) == .lastAdministrator)
            #expect(try await store.setDisabled(accountKey: "1000000001", true, now: Self.now) == .lastAdministrator)
            #expect(try await store.setAdmin(accountKey: "nobody", false) == .notFound)
            for round in 0..<5 {
                #expect(try await store.setAdmin(accountKey: "1000000002", true) == .done(endedSessions: 0))
                #expect(try await store.setDisabled(accountKey: "1000000001", false, now: Self.now) == .done(endedSessions: 0))
                #expect(try await store.setDisabled(accountKey: "1000000002", false, now: Self.now) == .done(endedSessions: 0))
                // Two administrators remove each other at once (alternately by disabling and demoting).
                async let first =
                    round.isMultiple(of: 2)
                    ? store.setDisabled(accountKey: "1000000001", true, now: Self.now) : store.setAdmin(accountKey: "1000000001", false)
                async let second = store.setDisabled(accountKey: "1000000002", true, now: Self.now)
                let outcomes = [try await first, try await second]
                #expect(outcomes.filter { $0 == .lastAdministrator }.count == 1, "round \(round): \(outcomes)")
                let summaries = try await store.accountSummaries()
                #expect(summaries.filter { $0.account.isAdmin && $0.account.disabledAt == nil }.count == 1, "round \(round)")
            }
        }
    }

    @Test("claiming an unproven account removes every foothold in one go, once", arguments: Backend.available)
    func claimAccount(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.createAccount(Self.account("1000000001", "admin@x.co"))
            var maker = Self.account("1000000002", "student@x.co")
            maker.passwordHash = "maker's hash"
            try await store.createAccount(maker)
            try await store.createSession(
                Session(id: "maker-session", accountKey: maker.key, createdAt: Self.now, expiresAt: Self.now.addingTimeInterval(600)))
            try await store.rememberDevice(digest: "maker-device", accountKey: maker.key, now: Self.now)
            try await store.createPasswordReset(
                token: "maker-reset", accountKey: maker.key, now: Self.now, expiresAt: Self.now.addingTimeInterval(600))
            #expect(
                try await store.linkIdentity(
                    IdentityLink(
                        provider: "facebook", subject: "maker", accountKey: maker.key, email: "",
                        createdAt: Self.now, origin: .accountMenu)))
            try await store.saveSignInHandoff(
                code: "maker-code", accountKey: maker.key, provider: "facebook", challenge: "c",
                expiresAt: Self.now.addingTimeInterval(600))
            let link = IdentityLink(
                provider: "school", subject: "student", accountKey: maker.key, email: "student@x.co",
                createdAt: Self.now, origin: .verifiedEmail)
            let claim = AccountClaim(accountKey: maker.key, link: link, firstName: "Real", lastName: nil)
            #expect(try await store.claimAccount(claim, now: Self.now))
            let claimed = try #require(try await store.account(key: maker.key))
            #expect(
                claimed.passwordHash.isEmpty && claimed.emailVerified && claimed.firstName == "Real" && claimed.lastName == maker.lastName)
            #expect(try await store.session(id: "maker-session", now: Self.now) == nil)
            #expect(try await !store.isKnownDevice(digest: "maker-device", accountKey: maker.key))
            #expect(try await store.passwordResetAccount(token: "maker-reset", now: Self.now) == nil)
            #expect(try await store.identities(accountKey: maker.key).map(\.provider) == ["school"])
            #expect(try await store.takeSignInHandoff(code: "maker-code", now: Self.now) == nil)
            // Proven now: a second claim changes nothing.
            #expect(try await !store.claimAccount(claim, now: Self.now))
            #expect(try await store.identities(accountKey: maker.key).count == 1)
        }
    }
}
