import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ObjectStorage
import TestDatabases

@testable import OnTheMapServer

enum ProviderChoice: Sendable { case flickr, wikimedia }

struct TravelTestContext: Sendable {
    let client: any TestClientProtocol
    let stub: PhotoStub
    let dataDirectory: URL
}

func quietLogger() -> Logger {
    var logger = Logger(label: "travel-tests")
    logger.logLevel = TestDatabases.logLevel
    return logger
}

func temporaryDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-travel-\(UUID().uuidString)")
}

func travelConfiguration(stub: PhotoStub, provider: ProviderChoice, dataDirectory: URL) -> Configuration {
    var configuration = Configuration()
    configuration.dataDirectory = dataDirectory.path
    configuration.databaseURL = TestDatabases.databaseURL(forDataDirectory: dataDirectory)
    configuration.bcryptCost = 4
    configuration.port = 0
    configuration.flickrAPIKey = provider == .flickr ? "stub-key" : nil
    configuration.flickrAPIURL = stub.flickrURL
    configuration.wikimediaAPIURL = stub.wikimediaURL
    configuration.photoRequestTimeout = 10  // a loaded machine; the deadline tests set their own
    if let s3 = TestObjectStore.current {
        // The whole suite again on an object store: a prefix of its own per server.
        configuration.photoStore = "s3://\(s3.bucket)/\(TestObjectStore.prefix(for: dataDirectory))"
        configuration.photoStoreEndpoint = s3.endpoint.absoluteString
        configuration.photoStoreRegion = s3.region
        configuration.photoStoreAccessKeyID = s3.credentials.accessKeyID
        configuration.photoStoreSecretAccessKey = s3.credentials.secretAccessKey
    }
    return configuration
}

/// A fresh server (router test mode, services running) whose photo provider is a stub.
func withTravelServer<T: Sendable>(
    provider: ProviderChoice = .flickr,
    dataDirectory: URL? = nil,
    _ adjust: @Sendable (inout Configuration) -> Void = { _ in },
    _ body: @Sendable (TravelTestContext) async throws -> T
) async throws -> T {
    try await PhotoStub.run { stub in
        let directory = dataDirectory ?? temporaryDirectory()
        defer { if dataDirectory == nil { try? FileManager.default.removeItem(at: directory) } }
        var configuration = travelConfiguration(stub: stub, provider: provider, dataDirectory: directory)
        adjust(&configuration)
        let app = try await buildApplication(configuration: configuration, logger: quietLogger())
        return try await app.test(.router) { client in
            try await body(TravelTestContext(client: client, stub: stub, dataDirectory: directory))
        }
    }
}

struct TravelFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

struct Traveller: Sendable {
    let key: String
    let sessionID: String
    var headers: HTTPFields { [.cookie: "onthemap_session=\(sessionID)"] }
    var tokenHeaders: HTTPFields { [HTTPField.Name("X-Parse-Session-Token")!: sessionID] }
}

extension TestResponse {
    var text: String { String(buffer: body) }
    var object: [String: Any] {
        get throws {
            guard let object = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] else {
                throw TravelFailure("not a JSON object: \(text)")
            }
            return object
        }
    }
}

func json(_ object: Any) -> ByteBuffer {
    ByteBuffer(data: try! JSONSerialization.data(withJSONObject: object))
}

extension TestClientProtocol {
    func signUp() async throws -> Traveller {
        let email = "traveller-\(UUID().uuidString.prefix(8))@example.com"
        let key = try await execute(
            uri: "/api/users", method: .post,
            body: json([
                "email": email, "password": "correct horse", "first_name": "Ida", "last_name": "Pfeiffer",
            ])
        ) { response throws in
            guard response.status == .created else { throw TravelFailure("sign-up: \(response.status) \(response.text)") }
            return try (response.object["account"] as? [String: Any])?["key"] as? String ?? ""
        }
        let session = try await execute(
            uri: "/api/session", method: .post, body: json(["udacity": ["username": email, "password": "correct horse"]])
        ) { response throws in
            guard response.status == .ok else { throw TravelFailure("login: \(response.status) \(response.text)") }
            let data = Data(Array(response.body.readableBytesView).dropFirst(5))
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            return (object?["session"] as? [String: Any])?["id"] as? String ?? ""
        }
        return Traveller(key: key, sessionID: session)
    }

    /// Drops a pin; returns its JSON.
    func dropPin(_ user: Traveller, latitude: Double = 48.8584, longitude: Double = 2.2945) async throws -> [String: Any] {
        try await execute(
            uri: "/api/pins", method: .post, headers: user.headers, body: json(["latitude": latitude, "longitude": longitude])
        ) { response throws in
            guard response.status == .created else { throw TravelFailure("drop pin: \(response.status) \(response.text)") }
            return try response.object
        }
    }

    func album(_ user: Traveller, _ pinID: String) async throws -> [String: Any] {
        try await execute(uri: "/api/pins/\(pinID)/photos", method: .get, headers: user.headers) { response throws in
            guard response.status == .ok else { throw TravelFailure("album: \(response.status) \(response.text)") }
            return try response.object
        }
    }

    /// Polls the album until nothing is pending and no search runs (and the state, which
    /// the last download's own step completes just after, says so too).
    func settledAlbum(_ user: Traveller, _ pinID: String, timeout: Duration = .seconds(15)) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let album = try await album(user, pinID)
            if (album["album"] as? [String: Any])?["settled"] as? Bool == true,
                (album["album"] as? [String: Any])?["status"] as? String != "downloading"
            {
                return album
            }
            guard ContinuousClock.now < deadline else { throw TravelFailure("album never settled: \(album)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

extension Dictionary where Key == String, Value == Any {
    var photos: [[String: Any]] { self["photos"] as? [[String: Any]] ?? [] }
    var albumStatus: [String: Any] { self["album"] as? [String: Any] ?? [:] }
    func string(_ key: String) -> String? { self[key] as? String }
}

/// The S3-compatible store `Scripts/with-seaweedfs.sh` starts, when it did; with
/// `ONTHEMAP_TEST_REQUIRE_S3=1` its absence fails the run instead of testing the folder store.
enum TestObjectStore {
    static let current: S3Configuration? = {
        let environment = ProcessInfo.processInfo.environment
        guard let endpoint = environment["ONTHEMAP_TEST_S3_ENDPOINT"].flatMap(URL.init(string:)),
            let bucket = environment["ONTHEMAP_TEST_S3_BUCKET"],
            let key = environment["AWS_ACCESS_KEY_ID"], let secret = environment["AWS_SECRET_ACCESS_KEY"]
        else {
            precondition(
                environment["ONTHEMAP_TEST_REQUIRE_S3"] != "1",
                "ONTHEMAP_TEST_REQUIRE_S3=1 but no object store: run under Scripts/with-seaweedfs.sh")
            return nil
        }
        return S3Configuration(
            endpoint: endpoint, region: environment["ONTHEMAP_TEST_S3_REGION"] ?? "us-east-1", bucket: bucket,
            credentials: AWSCredentials(accessKeyID: key, secretAccessKey: secret))
    }()

    static func prefix(for dataDirectory: URL) -> String { "tests/\(dataDirectory.lastPathComponent)" }

    static func client() -> S3Client? { current.map { S3Client(configuration: $0) } }
}

/// The kept images, as `<pin>/<file>`: in the object store when the suite runs on one,
/// else under the data directory's `photos/` (see `photoFiles`).
func storedPhotos(in directory: URL, includingPartial: Bool = false) async -> [String] {
    guard let client = TestObjectStore.client() else { return photoFiles(in: directory, includingPartial: includingPartial) }
    let root = TestObjectStore.prefix(for: directory) + "/photos/"
    let objects = (try? await client.listAllObjects(prefix: root)) ?? []
    return objects.map { String($0.key.dropFirst(root.count)) }.sorted()
}

func storedPhotoExists(_ directory: URL, _ relative: String) async -> Bool {
    guard let client = TestObjectStore.client() else { return fileExists(directory, relative) }
    return (try? await client.headObject(key: TestObjectStore.prefix(for: directory) + "/" + relative)) != nil
}

func storedPhotoData(_ directory: URL, _ relative: String) async -> Data? {
    guard let client = TestObjectStore.client() else { return try? Data(contentsOf: directory.appendingPathComponent(relative)) }
    return try? await client.getObject(key: TestObjectStore.prefix(for: directory) + "/" + relative)?.data
}

func fileExists(_ directory: URL, _ relative: String) -> Bool {
    FileManager.default.fileExists(atPath: directory.appendingPathComponent(relative).path)
}

/// The kept images under `photos/`. A download in flight shows up as a hidden
/// `.<photo>.<n>.partial` file until it is renamed into place; that is not a kept photo,
/// so it is left out unless `includingPartial` asks for everything on disk.
func photoFiles(in directory: URL, includingPartial: Bool = false) -> [String] {
    let root = directory.appendingPathComponent("photos")
    guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { return [] }
    var files: [String] = []
    while let next = enumerator.nextObject() as? String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: root.appendingPathComponent(next).path, isDirectory: &isDirectory),
            !isDirectory.boolValue,
            includingPartial || !next.hasSuffix(".partial")
        {
            files.append(next)
        }
    }
    return files.sorted()
}
