import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import OnTheMapModels
import Storage
import TestDatabases

@testable import OnTheMapServer

/// Runs `body` against a fresh server on a real database (a SQLite file in a new temporary
/// folder, or PostgreSQL: see `TestDatabases`).
/// `.live` runs a real socket (the peer address is 127.0.0.1 instead of "unknown").
/// `defaultClass` sets the default class's visibility first (a fresh database's is
/// `members`); suites about something else that read anonymously ask for `.public`.
func withTestServer<T: Sendable>(
    _ adjust: (inout Configuration) -> Void = { _ in },
    mode: TestingSetup = .router,
    defaultClass visibility: MapClass.Visibility? = nil,
    _ body: @Sendable (any TestClientProtocol) async throws -> T
) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-tests-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    var configuration = testConfiguration(dataDirectory: directory)
    adjust(&configuration)
    if let visibility { try await setDefaultClass(visibility, configuration: configuration) }
    let app = try await buildApplication(configuration: configuration, logger: testLogger)
    return try await app.test(mode) { client in try await body(client) }
}

/// Sets the default class's visibility in the database `configuration` names (creating and
/// migrating it when new), before a server is built on it.
func setDefaultClass(_ visibility: MapClass.Visibility, configuration: Configuration) async throws {
    let store = try await SQLStore.open(
        url: configuration.resolvedDatabaseURL, dataDirectory: configuration.dataDirectory, logger: testLogger)
    if let main = try await store.mapClass(slug: "main") {
        var changes = ClassChanges(now: Date())
        changes.visibility = visibility
        _ = try await store.changeClass(id: main.id, changes)
    }
    try await store.close()
}

/// A test server's configuration: its data in `dataDirectory` (and the database
/// `TestDatabases` picks for it), cheap bcrypt, any free port.
func testConfiguration(dataDirectory directory: URL) -> Configuration {
    var configuration = Configuration()
    configuration.dataDirectory = directory.path
    configuration.databaseURL = TestDatabases.databaseURL(forDataDirectory: directory)
    configuration.bcryptCost = 4
    configuration.port = 0
    // Deadlines a loaded CI machine cannot trip; the bounds tests set their own.
    configuration.queryTimeout = 30
    return configuration
}

/// Test servers log at `TestDatabases.logLevel` (critical unless TEST_LOG_LEVEL says otherwise).
let testLogger: Logger = {
    var logger = Logger(label: "test-server")
    logger.logLevel = TestDatabases.logLevel
    return logger
}()

let parseHeaders: HTTPFields = [
    HTTPField.Name("X-Parse-Application-Id")!: ParseCredentials.applicationID,
    HTTPField.Name("X-Parse-REST-API-Key")!: ParseCredentials.restAPIKey,
]

extension TestResponse {
    var text: String { String(buffer: body) }

    /// The body after the Udacity 5-byte prefix, asserting the prefix is there.
    var udacityJSON: [String: Any] {
        get throws {
            let bytes = Array(body.readableBytesView)
            guard bytes.count >= 5, Array(bytes.prefix(5)) == Array(udacityResponsePrefix.utf8) else {
                throw TestFailure("missing Udacity prefix in \(text)")
            }
            return try jsonObject(Data(bytes.dropFirst(5)))
        }
    }

    var json: [String: Any] {
        get throws { try jsonObject(Data(buffer: body)) }
    }

    /// `Set-Cookie` value for a cookie name.
    func cookie(_ name: String) -> String? {
        for value in headers[values: .setCookie] where value.hasPrefix("\(name)=") {
            return String(value.dropFirst(name.count + 1).prefix { $0 != ";" })
        }
        return nil
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func jsonObject(_ data: Data) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw TestFailure("not a JSON object: \(String(decoding: data, as: UTF8.self))")
    }
    return object
}

func jsonBody(_ object: Any) -> ByteBuffer {
    ByteBuffer(data: try! JSONSerialization.data(withJSONObject: object))
}

func textBody(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

struct TestUser: Sendable {
    let email: String
    let password: String
    let key: String
    let sessionID: String

    /// Headers that authenticate as this user on Parse routes.
    var parseHeaders: HTTPFields {
        var headers = OnTheMapServerTests.parseHeaders
        headers[HTTPField.Name("X-Parse-Session-Token")!] = sessionID
        return headers
    }

    var cookieHeaders: HTTPFields { [.cookie: "onthemap_session=\(sessionID)"] }
}

extension TestClientProtocol {
    /// Signs up and logs in a new user.
    func makeUser(email: String = "student-\(UUID().uuidString.prefix(8))@example.com", password: String = "correct horse") async throws
        -> TestUser
    {
        let key = try await execute(
            uri: "/api/users", method: .post,
            body: jsonBody([
                "email": email, "password": password, "first_name": "Ada", "last_name": "Lovelace",
            ])
        ) { response throws in
            guard response.status == .created else { throw TestFailure("sign-up failed: \(response.status) \(response.text)") }
            return try (response.json["account"] as! [String: Any])["key"] as! String
        }
        let session = try await login(email: email, password: password)
        return TestUser(email: email, password: password, key: key, sessionID: session)
    }

    func login(email: String, password: String, prefix: String = "/api") async throws -> String {
        try await execute(uri: "\(prefix)/session", method: .post, body: jsonBody(["udacity": ["username": email, "password": password]])) {
            response throws in
            guard response.status == .ok else { throw TestFailure("login failed: \(response.status) \(response.text)") }
            return try (response.udacityJSON["session"] as! [String: Any])["id"] as! String
        }
    }

    /// Creates a location as `user`; returns its objectId.
    @discardableResult
    func postLocation(_ user: TestUser, _ fields: [String: Any] = [:]) async throws -> String {
        var body: [String: Any] = [
            "uniqueKey": user.key, "firstName": "Ada", "lastName": "Lovelace", "mapString": "London, UK",
            "mediaURL": "https://example.com/ada", "latitude": 51.5074, "longitude": -0.1278,
        ]
        body.merge(fields) { _, new in new }
        return try await execute(uri: "/parse/classes/StudentLocation", method: .post, headers: user.parseHeaders, body: jsonBody(body)) {
            response throws in
            guard response.status == .created else { throw TestFailure("post failed: \(response.status) \(response.text)") }
            return try response.json["objectId"] as! String
        }
    }

    func list(_ query: String, headers: HTTPFields = parseHeaders) async throws -> [String: Any] {
        try await execute(uri: "/parse/classes/StudentLocation\(query)", method: .get, headers: headers) { response throws in
            guard response.status == .ok else { throw TestFailure("list failed: \(response.status) \(response.text)") }
            return try response.json
        }
    }

    func count() async throws -> Int {
        try await list("?limit=0&count=1")["count"] as! Int
    }
}

/// Every route the server mounts (method and path, parameters as `{name}`), from a router
/// built as `buildApplication` builds it.
func mountedRoutes() async throws -> [(method: String, path: String)] {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-tests-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let configuration = testConfiguration(dataDirectory: directory)
    let store = try await SQLStore.open(
        url: configuration.resolvedDatabaseURL, dataDirectory: configuration.dataDirectory, logger: testLogger)
    let geocoder = try makeGeocoder(configuration: configuration)
    let albums = try await TravelFeature.makeAlbumService(store: store, configuration: configuration, logger: testLogger)
    let hashing = PasswordHashing(threads: 1, queueLimit: 1)
    let router = buildRouter(
        store: store, geocoder: geocoder, albums: albums, listCache: nil, hashing: hashing,
        trustedProxies: .none, configuration: configuration, logger: testLogger,
        directory: ClassDirectory(store: store, defaultSlug: "main", clock: configuration.clock),
        live: LiveLocations(store: store, logger: testLogger)
    )
    await hashing.shutdown()
    try await store.close()
    return router.routes.map { ("\($0.method)", "\($0.path)") }
}

/// Two servers on one database, as a deployment behind a load balancer runs them (on
/// PostgreSQL; a SQLite file is one server's), each with its test client in `mode`; `body`
/// also gets the servers' data directory (its name makes the PostgreSQL schema's).
func withTwoServers(
    mode: TestingSetup = .live, defaultClass visibility: MapClass.Visibility? = nil,
    _ body: @Sendable (_ first: any TestClientProtocol, _ second: any TestClientProtocol, _ directory: URL) async throws -> Void
) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-shared-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let configuration = testConfiguration(dataDirectory: directory)
    if let visibility { try await setDefaultClass(visibility, configuration: configuration) }
    let one = try await buildApplication(configuration: configuration, logger: testLogger)
    let two = try await buildApplication(configuration: configuration, logger: testLogger)
    try await one.test(mode) { first in
        try await two.test(mode) { second in try await body(first, second, directory) }
    }
}
