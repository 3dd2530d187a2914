import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import OnTheMapKit
import OnTheMapServer
import TestDatabases
import Testing

/// Runs `body` with the URL of a fresh in-process server on a random loopback port.
func withLiveServer<T: Sendable>(_ body: @Sendable (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("onthemapkit-tests-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    var configuration = Configuration()
    configuration.dataDirectory = directory.path
    configuration.databaseURL = TestDatabases.databaseURL(forDataDirectory: directory)
    configuration.bcryptCost = 4
    configuration.port = 0
    var logger = Logger(label: "test-server")
    logger.logLevel = TestDatabases.logLevel
    let app = try await buildApplication(configuration: configuration, logger: logger)
    return try await app.test(.live) { client in
        let port = try #require(client.port)
        return try await body(URL(string: "http://127.0.0.1:\(port)")!)
    }
}

/// Requests to the live server may wait this long: a loaded CI machine runs this suite
/// beside every other, and a timeout there would say nothing about the SDK.
let liveTimeout: TimeInterval = 60

/// A signed-up, logged-in user with its own pair of clients.
struct LiveUser {
    let email: String
    let password: String
    let udacity: UdacityClient
    let locations: StudentLocationClient
    let key: String

    static func make(
        _ server: URL, api: OnTheMapConfiguration.StudentLocationAPI = .parse,
        first: String = "Ada", last: String = "Lovelace"
    ) async throws -> LiveUser {
        let (udacity, locations) = StudentLocationClient.clients(configuration: configuration(server, api: api, timeout: liveTimeout))
        let email = "student-\(UUID().uuidString.prefix(8))@example.com"
        let password = "correct horse battery"
        _ = try await udacity.signUp(email: email, password: password, firstName: first, lastName: last)
        let session = try await udacity.login(email: email, password: password)
        return LiveUser(
            email: email, password: password, udacity: udacity, locations: locations,
            key: session.accountKey)
    }

    func input(
        _ mapString: String = "Paris, France", latitude: Double = 48.8566,
        longitude: Double = 2.3522, link: String = "https://example.com/ada"
    ) -> StudentLocationInput {
        StudentLocationInput(
            uniqueKey: key, firstName: "Ada", lastName: "Lovelace", mapString: mapString,
            mediaURL: link, latitude: latitude, longitude: longitude)
    }
}

@Suite("SDK against the live server")
struct LiveServerTests {
    @Test func loginUserDataAndBadPassword() async throws {
        try await withLiveServer { server in
            let user = try await LiveUser.make(server, first: "Grace", last: "Hopper")
            let session = try #require(user.udacity.session)
            #expect(!session.sessionID.isEmpty)
            #expect(session.xsrfToken?.isEmpty == false)
            #expect(session.isExpired() == false)
            let profile = try await user.udacity.userData(accountKey: session.accountKey)
            #expect(profile.fullName == "Grace Hopper")
            #expect(profile.key == session.accountKey)

            let other = UdacityClient(configuration: configuration(server, timeout: liveTimeout))
            let error = await failure { try await other.login(email: user.email, password: "wrong password") }
            #expect(error == .badCredentials(message: "Account not found or invalid credentials."))
            #expect(other.session == nil)
            let unknown = await failure { try await other.login(email: "nobody@example.com", password: "whatever1") }
            #expect(unknown?.kind == .authentication)

            let taken = await failure {
                try await other.signUp(email: user.email, password: "another password", firstName: "A", lastName: "B")
            }
            guard case .rejected(409, _, let message) = taken else {
                Issue.record("expected a 409 rejection, got \(String(describing: taken))")
                return
            }
            #expect(message.contains("already exists"))
        }
    }

    @Test func loginWithCompletionHandler() async throws {
        try await withLiveServer { server in
            let user = try await LiveUser.make(server)
            let client = UdacityClient(configuration: configuration(server, timeout: liveTimeout), callbackQueue: .main)
            let result = await withCheckedContinuation { continuation in
                client.login(email: user.email, password: user.password) { continuation.resume(returning: $0) }
            }
            #expect(try result.get().accountKey == user.key)
        }
    }

    @Test func pagingAcross260Records() async throws {
        try await withLiveServer { server in
            let user = try await LiveUser.make(server)
            // 260 records from 4 concurrent writers.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        for index in 0..<65 {
                            _ = try await user.locations.post(
                                user.input("Place \(writer)-\(index)", latitude: Double(index) / 2, longitude: Double(writer)))
                        }
                    }
                }
                try await group.waitForAll()
            }

            let first = try await user.locations.page(limit: 100, includeCount: true)
            #expect(first.students.count == 100)
            #expect(first.totalCount == 260)
            #expect(first.isLastPage == false)
            let last = try await user.locations.page(limit: 100, skip: 200)
            #expect(last.students.count == 60)
            #expect(last.isLastPage)

            let recorder = ProgressRecorder()
            let all = try await user.locations.allPages(pageSize: 100) { recorder.add($0) }
            #expect(all.students.count == 260)
            #expect(Set(all.students.map(\.objectId)).count == 260)
            #expect(all.skippedCount == 0)
            #expect(
                recorder.values == [
                    PagingProgress(loaded: 100, total: 260), PagingProgress(loaded: 200, total: 260),
                    PagingProgress(loaded: 260, total: 260),
                ])
            let dates = all.students.map(\.updatedAt)
            #expect(dates == dates.sorted(by: >))

            // The same through StudentStore, as an app would page.
            let store = await StudentStore(source: user.locations, pageSize: 100)
            try await store.loadFirstPage()
            #expect(await store.students.count == 100)
            try await store.loadNextPage()
            try await store.loadNextPage()
            #expect(await store.students.count == 260)
            #expect(await store.hasMore == false)
            // Same records, same order up to ties (records posted in the same millisecond).
            let held = await store.students
            #expect(Set(held.map(\.objectId)) == Set(all.students.map(\.objectId)))
            #expect(held.map(\.updatedAt) == dates)
        }
    }

    @Test func postThenUpdateThenDelete() async throws {
        try await withLiveServer { server in
            let user = try await LiveUser.make(server)
            #expect(try await user.locations.myLocation() == nil)

            let created = try await user.locations.post(user.input())
            #expect(created.objectId.count == 10)
            let mine = try #require(try await user.locations.myLocation())
            #expect(mine.objectId == created.objectId)
            #expect(mine.mapString == "Paris, France")
            #expect(mine.uniqueKey == user.key)

            try await Task.sleep(for: .milliseconds(5))
            let updated = try await user.locations.update(
                objectId: created.objectId, with: user.input("Lyon, France", latitude: 45.764, longitude: 4.8357))
            #expect(updated.updatedAt > created.createdAt)
            let after = try #require(try await user.locations.myLocation())
            #expect(after.mapString == "Lyon, France")
            #expect(after.latitude == 45.764)
            #expect(after.updatedAt == updated.updatedAt)

            // Someone else may not change it.
            let intruder = try await LiveUser.make(server)
            let forbidden = await failure { try await intruder.locations.update(objectId: created.objectId, with: intruder.input()) }
            guard case .unauthorized(119, _) = forbidden else {
                Issue.record("expected unauthorized(119), got \(String(describing: forbidden))")
                return
            }

            try await user.locations.delete(objectId: created.objectId)
            #expect(try await user.locations.myLocation() == nil)
            #expect(
                await failure { try await user.locations.delete(objectId: created.objectId) }
                    == .rejected(status: 404, code: 101, message: "Object not found."))
        }
    }

    @Test func writesNeedASession() async throws {
        try await withLiveServer { server in
            let anonymous = StudentLocationClient(configuration: configuration(server, timeout: liveTimeout))
            let input = StudentLocationInput(
                uniqueKey: "k", firstName: "A", lastName: "B", mapString: "P",
                mediaURL: "https://x", latitude: 1, longitude: 2)
            let error = await failure { try await anonymous.post(input) }
            guard case .unauthorized(209, _) = error else {
                Issue.record("expected unauthorized(209), got \(String(describing: error))")
                return
            }
            #expect(await failure { try await anonymous.myLocation() } == .notLoggedIn)

            // A wrong Parse application id is refused as such.
            var wrongID = configuration(server, timeout: liveTimeout)
            wrongID.parseApplicationID = "nope"
            let refused = await failure { try await StudentLocationClient(configuration: wrongID).page() }
            #expect(refused == .unauthorized(code: nil, message: "unauthorized"))
        }
    }

    @Test func logoutEndsTheSession() async throws {
        try await withLiveServer { server in
            let user = try await LiveUser.make(server)
            let old = try #require(user.udacity.session)
            try await user.udacity.logout()
            #expect(user.udacity.session == nil)
            #expect(user.locations.sessionStore.session == nil)

            // The old session id no longer writes.
            let stale = StudentLocationClient(configuration: configuration(server, timeout: liveTimeout), sessionStore: SessionStore(old))
            let error = await failure { try await stale.post(user.input()) }
            #expect(error?.kind == .authentication)

            // Logging in again works.
            _ = try await user.udacity.login(email: user.email, password: user.password)
            #expect(user.udacity.session != nil)
            #expect(user.udacity.session?.sessionID != old.sessionID)
        }
    }

    @Test func v1Flavour() async throws {
        try await withLiveServer { server in
            let user = try await LiveUser.make(server, api: .v1)
            let created = try await user.locations.post(user.input())
            let mine = try await user.locations.locations(uniqueKey: user.key)
            #expect(mine.map(\.objectId) == [created.objectId])
            let page = try await user.locations.page()
            #expect(page.students.count == 1)
        }
    }

    @Test func geocodeAnswersOrSaysUnavailable() async throws {
        try await withLiveServer { server in
            let client = StudentLocationClient(configuration: configuration(server, timeout: liveTimeout))
            do {
                let places = try await client.geocode("Paris", limit: 3)
                #expect(places.count <= 3)
            } catch {
                #expect(error as? OnTheMapError == .unavailable(feature: "geocoding"))
            }
        }
    }
}

/// Collects progress reports from a `@Sendable` callback.
final class ProgressRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [PagingProgress] = []
    func add(_ value: PagingProgress) {
        lock.lock()
        stored.append(value)
        lock.unlock()
    }
    var values: [PagingProgress] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
