import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import TestDatabases

/// A local stand-in for Flickr (`/services/rest/`), Wikimedia Commons (`/w/api.php`) and
/// their image hosts (`/img/<id>.<jpg|png>`), speaking the documented formats and
/// misbehaving on demand.
final class PhotoStub: @unchecked Sendable {
    enum SearchFailure: Sendable {
        /// HTTP 429 with a text body and Retry-After.
        case rateLimited
        /// HTTP 200 `{"stat":"fail","code":100,...}` (Flickr) or an `error` object (Wikimedia).
        case statFail
        case serverError
        /// Not JSON at all.
        case garbage
    }

    struct Behavior: Sendable {
        /// Results the search finds near any point.
        var flickrTotal = 105
        var wikimediaTotal = 45
        /// Flickr `total` as a number (2021 on) instead of a string.
        var totalAsNumber = false
        var searchFailure: SearchFailure?
        var searchDelay: Duration = .zero
        var imageDelay: Duration = .zero
        /// Image ids (`f2-3`, `w7`) served cut in half; "*" for every image.
        var truncated: Set<String> = []
        /// Image ids answered with HTTP 404.
        var missing: Set<String> = []
    }

    private let lock = NSLock()
    private var _behavior = Behavior()
    private var _searches: [[String: String]] = []
    private var _imageRequests: [String] = []
    private var inFlight = 0
    private var _maxInFlight = 0
    private(set) var port = 0

    var behavior: Behavior {
        get { lock.withLock { _behavior } }
        set { lock.withLock { _behavior = newValue } }
    }
    func update(_ change: (inout Behavior) -> Void) { lock.withLock { change(&_behavior) } }
    var searches: [[String: String]] { lock.withLock { _searches } }
    var imageRequests: [String] { lock.withLock { _imageRequests } }
    var maxImagesInFlight: Int { lock.withLock { _maxInFlight } }
    var imagesInFlight: Int { lock.withLock { inFlight } }

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var flickrURL: String { baseURL + "/services/rest/" }
    var wikimediaURL: String { baseURL + "/w/api.php" }

    /// Runs `body` with the stub listening on a free loopback port.
    static func run<T: Sendable>(_ body: @Sendable (PhotoStub) async throws -> T) async throws -> T {
        let stub = PhotoStub()
        let logger = TestDatabases.logger("photo-stub")
        let router = Router()
        stub.register(on: router)
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "photo-stub"),
            onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            stub.port = await iterator.next() ?? 0
            do {
                let value = try await body(stub)
                // Release requests still sleeping so the stub can stop.
                stub.update {
                    $0.imageDelay = .zero
                    $0.searchDelay = .zero
                }
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return value
            } catch {
                stub.update {
                    $0.imageDelay = .zero
                    $0.searchDelay = .zero
                }
                await group.triggerGracefulShutdown()
                throw error
            }
        }
    }

    private func register(on router: Router<BasicRequestContext>) {
        router.get("services/rest") { request, _ in try await self.flickr(request) }
        router.get("w/api.php") { request, _ in try await self.wikimedia(request) }
        router.get("img/:name") { request, context in try await self.image(context.parameters.get("name") ?? "") }
    }

    private func query(_ request: Request) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { result[String(key)] = String(value) }
        return result
    }

    private func json(_ object: Any, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: object)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private func failure(_ failure: SearchFailure, flickr: Bool) throws -> Response {
        switch failure {
        case .rateLimited:
            return Response(
                status: .tooManyRequests, headers: [.contentType: "text/plain", .retryAfter: "120"],
                body: .init(byteBuffer: ByteBuffer(string: "Too Many Requests")))
        case .statFail:
            if flickr { return try json(["stat": "fail", "code": 100, "message": "Invalid API Key (Key has invalid format)"]) }
            return try json(["error": ["code": "badvalue", "info": "Unrecognized value for parameter \"generator\"."]])
        case .serverError:
            return Response(status: .internalServerError, body: .init(byteBuffer: ByteBuffer(string: "oops")))
        case .garbage:
            return Response(
                status: .ok, headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(string: "<html>maintenance</html>")))
        }
    }

    private func flickr(_ request: Request) async throws -> Response {
        let query = query(request)
        let behavior = lock.withLock {
            _searches.append(query)
            return _behavior
        }
        try await Task.sleep(for: behavior.searchDelay)
        if let failure = behavior.searchFailure { return try self.failure(failure, flickr: true) }
        guard query["method"] == "flickr.photos.search", query["format"] == "json", query["nojsoncallback"] == "1" else {
            return try json(["stat": "fail", "code": 112, "message": "Method not found"])
        }
        guard query["api_key"]?.isEmpty == false else {
            return try json(["stat": "fail", "code": 100, "message": "Invalid API Key (Key not found)"])
        }
        let perPage = Int(query["per_page"] ?? "100") ?? 100
        let page = max(1, Int(query["page"] ?? "1") ?? 1)
        let total = behavior.flickrTotal
        let pages = (total + perPage - 1) / perPage
        let start = (page - 1) * perPage
        let count = page <= pages ? min(perPage, total - start) : 0
        let photos: [[String: Any]] = (0..<count).map { index in
            let id = "f\(page)-\(index)"
            let photo: [String: Any] = [
                "id": id, "owner": "1234@N0\(index % 10)", "secret": "abc", "server": "65535", "farm": 66,
                "title": "Stub photo \(id)", "ispublic": 1, "isfriend": 0, "isfamily": 0,
                "ownername": "Photographer \(index)", "license": "4",
                "url_m": "\(baseURL)/img/\(id).jpg", "height_m": 8, "width_m": 8,
            ]
            return photo
        }
        let totalValue: Any = behavior.totalAsNumber ? total : String(total)
        return try json(["photos": ["page": page, "pages": pages, "perpage": perPage, "total": totalValue, "photo": photos], "stat": "ok"])
    }

    private func wikimedia(_ request: Request) async throws -> Response {
        let query = query(request)
        let behavior = lock.withLock {
            _searches.append(query)
            return _behavior
        }
        try await Task.sleep(for: behavior.searchDelay)
        if let failure = behavior.searchFailure { return try self.failure(failure, flickr: false) }
        guard request.headers[.userAgent]?.contains("OnTheMap") == true else {
            return Response(status: .forbidden, body: .init(byteBuffer: ByteBuffer(string: "Please set a user-agent")))
        }
        guard query["action"] == "query", query["generator"] == "geosearch", query["ggsnamespace"] == "6",
            query["prop"] == "imageinfo", query["iiurlwidth"] != nil, query["ggscoord"]?.contains("|") == true
        else {
            return try json(["error": ["code": "badparams", "info": "unexpected query \(query)"]])
        }
        let limit = Int(query["ggslimit"] ?? "10") ?? 10
        let count = min(limit, behavior.wikimediaTotal)
        guard count > 0 else { return try json(["batchcomplete": ""]) }
        var pages: [String: Any] = [:]
        for index in 0..<count {
            let pageID = 1000 + index
            pages[String(pageID)] = [
                "pageid": pageID, "ns": 6, "title": "File:Stub photo \(index).jpg",
                "imageinfo": [
                    [
                        "thumburl": "\(baseURL)/img/w\(index).png", "thumbwidth": 4, "thumbheight": 4,
                        "url": "\(baseURL)/img/w\(index)-full.png",
                        "descriptionurl": "https://commons.wikimedia.org/wiki/File:Stub_photo_\(index).jpg",
                        "user": "Uploader \(index)",
                        "extmetadata": [
                            "Artist": [
                                "value": "<a href=\"//commons.wikimedia.org/wiki/User:A\">Artist &amp; \(index)</a>",
                                "source": "commons-desc-page",
                            ],
                            "LicenseShortName": ["value": "CC BY-SA 4.0", "source": "commons-desc-page"],
                        ],
                    ]
                ],
            ]
        }
        // A sound file near the point: not an image, must be skipped.
        pages["999"] = [
            "pageid": 999, "ns": 6, "title": "File:Birdsong.ogg",
            "imageinfo": [["url": "\(baseURL)/img/song.ogg", "descriptionurl": "https://commons.wikimedia.org/wiki/File:Birdsong.ogg"]],
        ]
        return try json(["batchcomplete": "", "query": ["pages": pages]])
    }

    private func image(_ name: String) async throws -> Response {
        let id = String(name.split(separator: ".").first ?? "")
        let behavior = lock.withLock {
            _imageRequests.append(id)
            inFlight += 1
            _maxInFlight = max(_maxInFlight, inFlight)
            return _behavior
        }
        defer { lock.withLock { inFlight -= 1 } }
        // Sleeps in steps so a test can release slow requests by setting the delay to zero.
        let start = ContinuousClock.now
        while ContinuousClock.now - start < self.behavior.imageDelay {
            try await Task.sleep(for: min(.milliseconds(20), self.behavior.imageDelay))
        }
        if behavior.missing.contains(id) { return Response(status: .notFound) }
        var data = name.hasSuffix(".png") ? GeneratedImages.png(seed: id) : GeneratedImages.jpeg(seed: id)
        let type = name.hasSuffix(".png") ? "image/png" : "image/jpeg"
        if behavior.truncated.contains(id) || behavior.truncated.contains("*") { data = data.prefix(data.count / 2) }
        return Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
