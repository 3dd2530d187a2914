import Foundation
import HTTPTypes
import HummingbirdTesting
import OnTheMapModels
import Testing

@testable import OnTheMapServer
@testable import Storage

/// Signed-in callers kept for a moment so a member's read skips the session lookup: never past
/// the session's expiry or the cache's lifetime, emptied by every write on this server, and by
/// every `ended` entry of the change log, whoever wrote it (another server, the host's CLI).
@Suite("Caller cache")
struct CallerCacheTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func record(account: String = "1000000001", token: String = "token-a", expires: TimeInterval = 3600) -> SignedInRecord {
        SignedInRecord(
            session: Session(id: token, accountKey: account, createdAt: now, expiresAt: now.addingTimeInterval(expires)),
            account: Account(
                key: account, email: "\(account)@example.org", passwordHash: "x", firstName: "A", lastName: "B", createdAt: now),
            role: .student)
    }

    @Test("an entry answers until its lifetime or its session's expiry, whichever comes first")
    func lifetime() {
        let cache = CallerCache(lifetime: 2)
        cache.keep(Self.record(), token: "token-a", classId: "c1", now: Self.now, generation: cache.generation)
        #expect(cache.lookup(token: "token-a", classId: "c1", now: Self.now.addingTimeInterval(1))?.account.key == "1000000001")
        #expect(cache.lookup(token: "token-a", classId: "c2", now: Self.now) == nil, "another class is another question")
        #expect(cache.lookup(token: "token-b", classId: "c1", now: Self.now) == nil)
        #expect(cache.lookup(token: "token-a", classId: "c1", now: Self.now.addingTimeInterval(2)) == nil)
        cache.keep(Self.record(expires: 1), token: "token-a", classId: "c1", now: Self.now, generation: cache.generation)
        #expect(cache.lookup(token: "token-a", classId: "c1", now: Self.now.addingTimeInterval(1)) == nil, "the session ended")
    }

    @Test("an ended account, session or class forgets exactly what it names; a lookup that raced an emptying is not kept")
    func forgetting() {
        let cache = CallerCache(lifetime: 60)
        func fill() {
            cache.forgetAll()
            for (token, account, classId) in [("t1", "1000000001", "c1"), ("t1", "1000000001", "c2"), ("t2", "1000000002", "c1")] {
                cache.keep(
                    Self.record(account: account, token: token), token: token, classId: classId, now: Self.now, generation: cache.generation
                )
            }
        }
        func has(_ token: String, _ classId: String) -> Bool { cache.lookup(token: token, classId: classId, now: Self.now) != nil }
        fill()
        cache.forget(ended: "1000000001", classId: "")
        #expect(!has("t1", "c1") && !has("t1", "c2") && has("t2", "c1"))
        fill()
        cache.forget(ended: "1000000001", classId: "c2")
        #expect(has("t1", "c1") && !has("t1", "c2") && has("t2", "c1"))
        fill()
        cache.forget(ended: SessionToken.digest("t2"), classId: "")
        #expect(has("t1", "c1") && !has("t2", "c1"))
        fill()
        cache.forget(ended: "", classId: "c1")
        #expect(!has("t1", "c1") && has("t1", "c2") && !has("t2", "c1"))
        fill()
        cache.forget(ended: "", classId: "")
        #expect(cache.count == 0)
        // Asked the database, then something ended before the answer came back: not kept.
        let before = cache.generation
        cache.forgetAll()
        cache.keep(Self.record(), token: "t1", classId: "c1", now: Self.now, generation: before)
        #expect(!has("t1", "c1"))
    }

    /// A server running as `serve` runs it (its services too: the live map reads the change
    /// log every second), whose cache would keep a caller for an hour if nothing emptied it.
    static func withRunningServer(_ body: @escaping @Sendable (any TestClientProtocol, Configuration) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-callers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = testConfiguration(dataDirectory: directory)
        configuration.host = "127.0.0.1"
        configuration.callerCacheSeconds = 3600
        // One connection carries every request of a test: a loaded machine's pauses must not close it.
        configuration.idleTimeout = 600
        let settings = configuration
        let app = try await buildApplication(configuration: settings, logger: testLogger)
        try await app.test(.live) { client in try await body(client, settings) }
    }

    /// Reads `/api/account` with the session cookie until `expected` (the log
    /// is read every second by the server; the test waits for that, up to a minute on a loaded machine).
    static func waitForStatus(
        _ client: some TestClientProtocol, _ user: TestUser, _ expected: HTTPResponse.Status
    ) async throws -> HTTPResponse.Status {
        let deadline = Date().addingTimeInterval(60)
        while true {
            let status = try await client.execute(uri: "/api/account", method: .get, headers: user.cookieHeaders) { $0.status }
            if status == expected || Date() > deadline { return status }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test(
        "a session ended, or an account disabled, from outside this server (the host's CLI, another server) stops its cached reads once the log says so"
    )
    func endedElsewhere() async throws {
        try await Self.withRunningServer { client, configuration in
            // The host's tools write to the database directly, as another server would.
            let store = try await SQLStore.open(
                url: configuration.resolvedDatabaseURL, dataDirectory: configuration.dataDirectory, logger: testLogger)
            do {
                let first = try await client.makeUser()
                let second = try await client.makeUser()
                for user in [first, second] {
                    #expect(try await client.execute(uri: "/api/account", method: .get, headers: user.cookieHeaders) { $0.status } == .ok)
                }
                #expect(try await store.deleteSession(id: first.sessionID))
                #expect(try await Self.waitForStatus(client, first, .unauthorized) == .unauthorized)
                #expect(try await client.execute(uri: "/api/account", method: .get, headers: second.cookieHeaders) { $0.status } == .ok)
                _ = try await store.setDisabled(accountKey: second.key, true, now: Date())
                #expect(try await Self.waitForStatus(client, second, .unauthorized) == .unauthorized)
                try await store.close()
            } catch {
                try? await store.close()
                throw error
            }
        }
    }

    @Test("a write through this server counts at once: logging out, and joining a class, are seen by the very next read")
    func writesHereCountAtOnce() async throws {
        try await Self.withRunningServer { client, _ in
            let admin = try await client.makeUser()
            let student = try await client.makeUser()
            let made = try await ClassTests.makeClass(client, by: admin, slug: "cached", visibility: "members", join: "invite")
            let read = "/c/cached/parse/classes/StudentLocation"
            #expect(try await client.execute(uri: read, method: .get, headers: student.parseHeaders) { $0.status } == .forbidden)
            #expect(try await ClassTests.join(client, student, slug: "cached", code: made["invite_code"] as? String).status == .ok)
            #expect(try await client.execute(uri: read, method: .get, headers: student.parseHeaders) { $0.status } == .ok)
            #expect(try await client.execute(uri: "/api/account", method: .get, headers: student.cookieHeaders) { $0.status } == .ok)
            #expect(try await client.execute(uri: "/api/session", method: .delete, headers: student.cookieHeaders) { $0.status } == .ok)
            #expect(
                try await client.execute(uri: "/api/account", method: .get, headers: student.cookieHeaders) { $0.status } == .unauthorized)
        }
    }
}
