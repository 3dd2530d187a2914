// album-benchmark: how fast a dropped pin's 21-photo album lands on disk when every request
// to the photo provider and its image host takes 200 ms.
//
//   swift run -c release album-benchmark [--latency-ms 200] [--runs 5] [--concurrency 7]
//
// Starts a stub Flickr (search + images, each answer delayed by the latency) and the real
// server on loopback, signs up, drops pins over HTTP and watches the photo folder. The
// reference in the same run makes the same requests straight from URLSession with the same
// concurrency, without the server, database or disk.
//
// With an object store in the environment (ONTHEMAP_TEST_S3_ENDPOINT, ONTHEMAP_TEST_S3_BUCKET,
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, as Scripts/with-seaweedfs.sh exports), a second
// server keeps its photos in the bucket, and both are timed in the same run, alternating
// pins, to the moment the album API says every photo is ready.
import Foundation
import Hummingbird
import Logging
import NIOCore
import OnTheMapServer
import ServiceLifecycle

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

struct Options {
    var latency = 200
    var runs = 5
    var concurrency = 7
    var photos = 21

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            let value = iterator.next().flatMap(Int.init)
            switch argument {
            case "--latency-ms": latency = value ?? latency
            case "--runs": runs = value ?? runs
            case "--concurrency": concurrency = value ?? concurrency
            case "--photos": photos = value ?? photos
            default:
                print("unknown option \(argument)")
                exit(2)
            }
        }
    }
}

/// An 8x8 grey baseline JPEG, distinct per seed.
func jpeg(_ seed: String) -> Data {
    var bytes: [UInt8] = [0xFF, 0xD8]
    let comment = Array("album benchmark \(seed)".utf8)
    bytes += [0xFF, 0xFE, UInt8((comment.count + 2) >> 8), UInt8((comment.count + 2) & 0xFF)] + comment
    bytes += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
    bytes += [0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x08, 0x00, 0x08, 0x01, 0x01, 0x11, 0x00]
    let table: [UInt8] = [1] + [UInt8](repeating: 0, count: 15) + [0x00]
    bytes += [0xFF, 0xC4, 0x00, 0x14, 0x00] + table + [0xFF, 0xC4, 0x00, 0x14, 0x10] + table
    bytes += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00, 0x3F, 0xFF, 0xD9]
    // Pad to a realistic thumbnail size (~60 KB) inside a second comment segment.
    let padding = [UInt8](repeating: 0x20, count: 60_000)
    bytes.insert(contentsOf: [0xFF, 0xFE, UInt8((padding.count + 2) >> 8), UInt8((padding.count + 2) & 0xFF)] + padding, at: 2)
    return Data(bytes)
}

func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return Int(UInt16(bigEndian: address.sin_port))
}

func quiet(_ label: String) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = .error
    return logger
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func summary(_ values: [Double]) -> String {
    let sorted = values.sorted()
    let median = sorted[sorted.count / 2]
    return String(format: "median %6.1f ms   min %6.1f   max %6.1f", median, sorted.first!, sorted.last!)
}

let options = Options(CommandLine.arguments)
let latency = Duration.milliseconds(options.latency)
let stubPort = freePort()
let serverPort = freePort()
let stubBase = "http://127.0.0.1:\(stubPort)"

// Stub Flickr: search and images, each delayed.
let stubRouter = Router()
stubRouter.get("services/rest") { request, _ -> Response in
    try await Task.sleep(for: latency)
    let page = Int(request.uri.queryParameters["page"].map(String.init) ?? "1") ?? 1
    let perPage = Int(request.uri.queryParameters["per_page"].map(String.init) ?? "21") ?? 21
    let photos: [[String: Any]] = (0..<perPage).map { index in
        let id = "p\(page)-\(index)-\(UUID().uuidString.prefix(8))"
        return [
            "id": id, "owner": "1@N01", "secret": "s", "server": "1", "farm": 1, "title": "Photo \(id)",
            "ispublic": 1, "isfriend": 0, "isfamily": 0, "url_m": "\(stubBase)/img/\(id).jpg", "height_m": 8, "width_m": 8,
        ]
    }
    let body: [String: Any] = ["photos": ["page": page, "pages": 50, "perpage": perPage, "total": "1050", "photo": photos], "stat": "ok"]
    return Response(
        status: .ok, headers: [.contentType: "application/json"],
        body: .init(byteBuffer: ByteBuffer(data: try JSONSerialization.data(withJSONObject: body))))
}
stubRouter.get("img/:name") { _, context -> Response in
    try await Task.sleep(for: latency)
    return Response(
        status: .ok, headers: [.contentType: "image/jpeg"],
        body: .init(byteBuffer: ByteBuffer(data: jpeg(context.parameters.get("name") ?? ""))))
}
let stub = Application(router: stubRouter, configuration: .init(address: .hostname("127.0.0.1", port: stubPort)), logger: quiet("stub"))

let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("album-benchmark-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: dataDirectory) }
var configuration = Configuration()
configuration.port = serverPort
configuration.dataDirectory = dataDirectory.path
configuration.bcryptCost = 4
configuration.flickrAPIKey = "benchmark"
configuration.flickrAPIURL = "\(stubBase)/services/rest/"
configuration.photosPerAlbum = options.photos
configuration.photoDownloadConcurrency = options.concurrency
let server = try await buildApplication(configuration: configuration, logger: quiet("onthemap"))

// The same server again with its photos in the object store, when one is configured.
let environment = ProcessInfo.processInfo.environment
let objectStorePort = freePort()
let objectStoreDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("album-benchmark-s3-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: objectStoreDirectory) }
var objectStoreApp: (any Service)?
if let endpoint = environment["ONTHEMAP_TEST_S3_ENDPOINT"], let bucket = environment["ONTHEMAP_TEST_S3_BUCKET"] {
    var s3 = configuration
    s3.port = objectStorePort
    s3.dataDirectory = objectStoreDirectory.path
    s3.photoStore = "s3://\(bucket)/album-benchmark-\(UUID().uuidString.prefix(8))"
    s3.photoStoreEndpoint = endpoint
    s3.photoStoreRegion = environment["ONTHEMAP_TEST_S3_REGION"] ?? "us-east-1"
    s3.photoStoreAccessKeyID = environment["AWS_ACCESS_KEY_ID"]
    s3.photoStoreSecretAccessKey = environment["AWS_SECRET_ACCESS_KEY"]
    objectStoreApp = try await buildApplication(configuration: s3, logger: quiet("onthemap-s3"))
}
let objectStoreServer = objectStoreApp
let comparesStores = objectStoreApp != nil

// No cookie jar: both servers are on 127.0.0.1, and each request names its own session.
let sessionConfiguration = URLSessionConfiguration.ephemeral
sessionConfiguration.httpCookieStorage = nil
sessionConfiguration.httpShouldSetCookies = false
let session = URLSession(configuration: sessionConfiguration)
func call(_ method: String, _ path: String, _ body: [String: Any]? = nil, cookie: String? = nil, port: Int = serverPort) async throws -> (
    Int, Data
) {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
    request.httpMethod = method
    if let body {
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    if let cookie { request.setValue("onthemap_session=\(cookie)", forHTTPHeaderField: "Cookie") }
    let (data, response) = try await session.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
}

/// Files (not temporary ones) in a pin's photo folder.
func keptFiles(_ pinID: String) -> Int {
    let folder = dataDirectory.appendingPathComponent("photos/\(pinID)").path
    return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).count { !$0.hasPrefix(".") }
}

func measure() async throws -> (album: [(first: Double, all: Double)], reference: [(first: Double, all: Double)]) {
    for _ in 0..<100 {
        if (try? await call("GET", "/health"))?.0 == 200 { break }
        try await Task.sleep(for: .milliseconds(50))
    }
    let email = "bench-\(UUID().uuidString.prefix(6))@example.com"
    _ = try await call("POST", "/api/users", ["email": email, "password": "benchmark pass", "first_name": "B", "last_name": "M"])
    let (_, login) = try await call("POST", "/api/session", ["udacity": ["username": email, "password": "benchmark pass"]])
    let loginObject = try JSONSerialization.jsonObject(with: login.dropFirst(5)) as? [String: Any]
    guard let cookie = (loginObject?["session"] as? [String: Any])?["id"] as? String else { throw CancellationError() }

    var album: [(Double, Double)] = []
    // One warm-up pin, then the measured ones.
    for run in 0...options.runs {
        let clock = ContinuousClock()
        let start = clock.now
        let (status, data) = try await call("POST", "/api/pins", ["latitude": 40.0 + Double(run), "longitude": -3.7], cookie: cookie)
        guard status == 201, let pinID = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["id"] as? String else {
            print("pin drop failed: \(status) \(String(decoding: data, as: UTF8.self))")
            exit(1)
        }
        var first: Duration?
        while true {
            let count = keptFiles(pinID)
            if count > 0, first == nil { first = clock.now - start }
            if count >= options.photos { break }
            if clock.now - start > .seconds(30) {
                print("album did not complete")
                exit(1)
            }
            try await Task.sleep(for: .microseconds(500))
        }
        let all = clock.now - start
        if run > 0 { album.append((milliseconds(first!), milliseconds(all))) }
    }

    // Reference: the same requests straight from URLSession, no server, database or disk.
    var reference: [(Double, Double)] = []
    let directConfiguration = URLSessionConfiguration.ephemeral
    directConfiguration.httpMaximumConnectionsPerHost = options.concurrency + 2
    let direct = URLSession(configuration: directConfiguration)
    for _ in 0...options.runs {
        let clock = ContinuousClock()
        let start = clock.now
        let (data, _) = try await direct.data(from: URL(string: "\(stubBase)/services/rest/?page=1&per_page=\(options.photos)")!)
        let photos =
            ((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["photos"] as? [String: Any])?["photo"] as? [[String: Any]]
            ?? []
        let urls = photos.compactMap { ($0["url_m"] as? String).flatMap(URL.init(string:)) }
        let firstDone = FirstTimer()
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func add() {
                let url = urls[next]
                next += 1
                group.addTask {
                    _ = try await direct.data(from: url)
                    await firstDone.mark(clock.now - start)
                }
            }
            while next < min(options.concurrency, urls.count) { add() }
            while try await group.next() != nil { if next < urls.count { add() } }
        }
        let all = clock.now - start
        if let first = await firstDone.value { reference.append((milliseconds(first), milliseconds(all))) }
    }
    return (album, Array(reference.dropFirst()))
}

/// Signs up on the server at `port`; returns the session.
func signUp(port: Int) async throws -> String {
    for _ in 0..<100 {
        if (try? await call("GET", "/health", port: port))?.0 == 200 { break }
        try await Task.sleep(for: .milliseconds(50))
    }
    let email = "bench-\(UUID().uuidString.prefix(6))@example.com"
    _ = try await call(
        "POST", "/api/users", ["email": email, "password": "benchmark pass", "first_name": "B", "last_name": "M"], port: port)
    let (_, login) = try await call("POST", "/api/session", ["udacity": ["username": email, "password": "benchmark pass"]], port: port)
    let loginObject = try JSONSerialization.jsonObject(with: login.dropFirst(5)) as? [String: Any]
    guard let cookie = (loginObject?["session"] as? [String: Any])?["id"] as? String else { throw CancellationError() }
    return cookie
}

/// Data directory against object store, pins alternating between the two servers: from the
/// POST to the album API answering every photo ready (stored, and its row updated).
func compareStores() async throws -> (folder: [Double], objectStore: [Double]) {
    let servers = [serverPort, objectStorePort]
    var cookies: [Int: String] = [:]
    for port in servers { cookies[port] = try await signUp(port: port) }
    var times: [Int: [Double]] = [:]
    for run in 0...options.runs {
        for port in servers {
            let clock = ContinuousClock()
            let start = clock.now
            let (status, data) = try await call(
                "POST", "/api/pins", ["latitude": 10.0 + Double(run), "longitude": 20.0 + Double(port % 7)],
                cookie: cookies[port], port: port)
            guard status == 201, let pinID = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["id"] as? String else {
                print("pin drop failed: \(status) \(String(decoding: data, as: UTF8.self))")
                exit(1)
            }
            while true {
                let (_, body) = try await call("GET", "/api/pins/\(pinID)/photos", cookie: cookies[port], port: port)
                let album = (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["album"] as? [String: Any]
                if album?["ready"] as? Int == options.photos { break }
                if clock.now - start > .seconds(30) {
                    print("album did not complete")
                    exit(1)
                }
                try await Task.sleep(for: .milliseconds(1))
            }
            if run > 0 { times[port, default: []].append(milliseconds(clock.now - start)) }
        }
    }
    return (times[serverPort] ?? [], times[objectStorePort] ?? [])
}

actor FirstTimer {
    var value: Duration?
    func mark(_ duration: Duration) { if value == nil { value = duration } }
}

let services: [any Service] = [stub, server] + (objectStoreServer.map { [$0] } ?? [])
let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [], logger: quiet("group")))
typealias Figures = (
    album: [(first: Double, all: Double)], reference: [(first: Double, all: Double)], stores: (folder: [Double], objectStore: [Double])?
)
let results = try await withThrowingTaskGroup(of: Figures?.self) { tasks in
    tasks.addTask {
        try await group.run()
        return nil
    }
    tasks.addTask {
        let value = try await measure()
        let stores = comparesStores ? try await compareStores() : nil
        await group.triggerGracefulShutdown()
        return (value.album, value.reference, stores)
    }
    var found: Figures?
    for try await value in tasks { if let value { found = value } }
    return found!
}

let waves = (options.photos + options.concurrency - 1) / options.concurrency
print(
    "album-benchmark: \(options.photos) photos, \(options.latency) ms per request, \(options.concurrency) downloads at once, \(options.runs) runs"
)
print("floor (latency only): first image \(2 * options.latency) ms, whole album \((1 + waves) * options.latency) ms")
print("server, first image on disk:  " + summary(results.album.map(\.first)))
print("server, whole album on disk:  " + summary(results.album.map(\.all)))
print("reference (URLSession only), first image: " + summary(results.reference.map(\.first)))
print("reference (URLSession only), all images:  " + summary(results.reference.map(\.all)))
if let stores = results.stores {
    print("album ready per the API, data directory:  " + summary(stores.folder))
    print("album ready per the API, object store:    " + summary(stores.objectStore))
}
