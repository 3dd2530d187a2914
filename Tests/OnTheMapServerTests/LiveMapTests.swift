import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import OnTheMapModels
import Synchronization
import TestDatabases
import Testing

@testable import OnTheMapServer
@testable import Storage

/// The live map: snapshot, change stream, resume, reload, slow viewers, hand-made writes.
/// Runs on SQLite, and on PostgreSQL under `Scripts/with-postgres.sh`.
@Suite("Live map")
struct LiveMapTests {
    /// One parsed Server-Sent Event.
    struct Event: Equatable {
        var id: String?
        var event: String
        var data: String

        var json: [String: Any] { (try? jsonObject(Data(data.utf8))) ?? [:] }
        var objectId: String? { json["objectId"] as? String }
    }

    static func events(_ text: String) -> [Event] {
        text.components(separatedBy: "\n\n").compactMap { block in
            var event = Event(id: nil, event: "message", data: "")
            var hasData = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: true) where !line.hasPrefix(":") {
                let parts = line.split(separator: ":", maxSplits: 1).map(String.init)
                let value = parts.count > 1 ? String(parts[1].drop { $0 == " " }) : ""
                switch parts[0] {
                case "id": event.id = value
                case "event": event.event = value
                case "data":
                    event.data = value
                    hasData = true
                default: break
                }
            }
            return hasData ? event : nil
        }
    }

    static func snapshot(_ client: some TestClientProtocol) async throws -> (version: Int64, locations: [[String: Any]], etag: String?) {
        try await client.execute(uri: "/api/locations/snapshot", method: .get) { response throws in
            guard response.status == .ok else { throw TestFailure("snapshot: \(response.status) \(response.text)") }
            let json = try response.json
            let version = try #require(json["version"] as? Int)
            return (Int64(version), json["locations"] as? [[String: Any]] ?? [], response.headers[.eTag])
        }
    }

    /// Waits until the snapshot (its place names by objectId) satisfies `condition`: a write
    /// made outside the server reaches it at the server's next poll of the log.
    static func waitForMap(_ client: some TestClientProtocol, _ condition: ([String: String]) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let places = Dictionary(
                try await snapshot(client).locations.compactMap { location in
                    (location["objectId"] as? String).map { ($0, location["mapString"] as? String ?? "") }
                }, uniquingKeysWith: { first, _ in first })
            if condition(places) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("the map never showed what was expected")
    }

    /// The stream's events over `seconds` (the server ends it then), with `during` run
    /// once it is open.
    static func follow(
        _ client: some TestClientProtocol, _ query: String, headers: HTTPFields = [:], seconds: Int = 2,
        during: @Sendable () async throws -> Void = {}
    ) async throws -> [Event] {
        async let text = client.execute(uri: "/api/locations/changes?timeout=\(seconds)&\(query)", method: .get, headers: headers) {
            response throws in
            guard response.status == .ok else { throw TestFailure("changes: \(response.status) \(response.text)") }
            #expect(response.headers[.contentType]?.hasPrefix("text/event-stream") == true)
            return response.text
        }
        // Writes made before the stream opens reach it too: it starts from `since`.
        try await during()
        return events(try await text)
    }

    /// The stream's first `count` events, read as they arrive on a real connection (the
    /// server on `port`), with `during` run once the request is sent: no waiting for the
    /// stream's lifetime to end.
    static func follow(
        port: Int, _ query: String, headers: [String: String] = [:], count: Int, during: @Sendable () async throws -> Void = {}
    ) async throws -> [Event] {
        let extra = headers.map { "\($0.key): \($0.value)\r\n" }.joined()
        async let raw = rawStream(port: port, "GET /api/locations/changes?\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(extra)\r\n") { text in
            events(dechunkedBody(text)).count >= count
        }
        try await during()
        let text = try await raw
        #expect(text.hasPrefix("HTTP/1.1 200") && text.lowercased().contains("content-type: text/event-stream"))
        return Array(events(dechunkedBody(text)).prefix(count))
    }

    @Test("a moderator's hide, show and delete, and disabling an author, reach the map at once, as a student's own write does")
    func moderationReachesTheMapAtOnce() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let admin = try await client.makeUser()
            let author = try await client.makeUser()
            let post = try await client.postLocation(author)
            func onMap() async throws -> Bool {
                try await Self.snapshot(client).locations.contains { $0["objectId"] as? String == post }
            }
            #expect(try await onMap())
            for (action, body, visible) in [
                ("admin/locations/\(post)/hide", ["reason": "spam"], false),
                ("admin/locations/\(post)/unhide", [:], true),
                ("admin/users/\(author.key)/disable", [:], false),
                ("admin/users/\(author.key)/enable", [:], true),
            ] {
                try await client.execute(uri: "/api/\(action)", method: .post, headers: admin.cookieHeaders, body: jsonBody(body)) {
                    response throws in
                    #expect(response.status == .ok, "\(action)")
                }
                // No poll interval to wait out: the write itself told the live map.
                #expect(try await onMap() == visible, "\(action)")
            }
            try await client.execute(
                uri: "/api/admin/locations/\(post)", method: .delete, headers: admin.cookieHeaders,
                body: jsonBody(["reason": "gone"])
            ) { response throws in
                #expect(response.status == .ok)
            }
            #expect(try await !onMap())
        }
    }

    @Test("the snapshot holds every location, newest first, with an ETag, a 304 and gzip")
    func snapshot() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let empty = try await Self.snapshot(client)
            #expect(empty.locations.isEmpty)
            let user = try await client.makeUser()
            let other = try await client.makeUser()
            let first = try await client.postLocation(user, ["mapString": "Lyon, France"])
            let second = try await client.postLocation(other, ["mapString": "Quito"])
            let snapshot = try await Self.snapshot(client)
            #expect(snapshot.version >= empty.version + 2)
            #expect(snapshot.locations.map { $0["objectId"] as? String } == [second, first])
            #expect(snapshot.locations.first?["mapString"] as? String == "Quito")
            #expect(snapshot.locations.first?["createdAt"] == nil, "only what the map and the list need")
            #expect(snapshot.etag == "\"\(snapshot.version)\"")

            try await client.execute(uri: "/api/locations/snapshot", method: .get, headers: [.ifNoneMatch: snapshot.etag!]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
            let plain = try await client.execute(uri: "/api/locations/snapshot", method: .get) { $0.body }
            try await client.execute(uri: "/api/locations/snapshot", method: .get, headers: [.acceptEncoding: "gzip, deflate"]) {
                response in
                #expect(response.headers[.contentEncoding] == "gzip")
                #expect(response.body.readableBytes < plain.readableBytes)
                #expect(Gzip.decompress(response.body) == plain)
            }
            try await client.execute(uri: "/api/locations/snapshot", method: .get, headers: [.acceptEncoding: "gzip;q=0"]) { response in
                #expect(response.headers[.contentEncoding] == nil)
            }
            // A write changes the version, so the old ETag no longer matches.
            try await client.execute(uri: "/parse/classes/StudentLocation/\(first)", method: .delete, headers: user.parseHeaders) { _ in }
            let after = try await Self.snapshot(client)
            #expect(after.version > snapshot.version)
            #expect(after.locations.map { $0["objectId"] as? String } == [second])
        }
    }

    @Test("the map's snapshot holds the same locations, in the same order, as columns with an ETag of its own")
    func mapColumns() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let user = try await client.makeUser()
            let other = try await client.makeUser()
            _ = try await client.postLocation(user, ["mapString": "Lyon, France", "latitude": 45.76, "longitude": 4.84])
            _ = try await client.postLocation(
                other, ["mapString": "Quito \"Ecuador\"", "mediaURL": "https://example.com/q", "latitude": -0.18, "longitude": -78.47])
            let records = try await Self.snapshot(client)
            let (json, etag) = try await client.execute(uri: "/api/locations/snapshot/map", method: .get) { response throws in
                guard response.status == .ok else { throw TestFailure("map snapshot: \(response.status) \(response.text)") }
                return (try response.json, response.headers[.eTag])
            }
            #expect(json["version"] as? Int == Int(records.version))
            #expect(json["count"] as? Int == records.locations.count)
            #expect(etag == "\"\(records.version)-map\"")
            let columns = try #require(json["columns"] as? [String: [Any]])
            #expect(
                Set(columns.keys) == [
                    "firstName", "lastName", "latitude", "longitude", "mapString", "mediaURL", "objectId", "timeZone", "uniqueKey",
                ])
            // The time zone is the map's own (SnapshotTimeZoneTests); every other column is the records'.
            for (name, values) in columns where name != "timeZone" {
                #expect(values.count == records.locations.count, "\(name)")
                for (index, record) in records.locations.enumerated() {
                    #expect("\(values[index])" == "\(record[name]!)", "\(name)[\(index)]")
                }
            }
            try await client.execute(uri: "/api/locations/snapshot/map", method: .get, headers: [.ifNoneMatch: etag!]) { response in
                #expect(response.status == .notModified)
            }
            // The records' ETag is another representation's: no 304 for it.
            try await client.execute(uri: "/api/locations/snapshot/map", method: .get, headers: [.ifNoneMatch: records.etag!]) { response in
                #expect(response.status == .ok)
            }
            let plain = try await client.execute(uri: "/api/locations/snapshot/map", method: .get) { $0.body }
            try await client.execute(uri: "/api/locations/snapshot/map", method: .get, headers: [.acceptEncoding: "gzip"]) { response in
                #expect(response.headers[.contentEncoding] == "gzip")
                #expect(Gzip.decompress(response.body) == plain)
            }
        }
    }

    @Test("the map's binary snapshot holds what its JSON one holds, with a type and an ETag of its own")
    func mapBinary() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let user = try await client.makeUser()
            _ = try await client.postLocation(user, ["mapString": "Lyon, France", "latitude": 45.76, "longitude": 4.84])
            let json = try await client.execute(uri: "/api/locations/snapshot/map", method: .get) { try $0.json }
            let (binary, etag) = try await client.execute(uri: "/api/locations/snapshot/map.bin", method: .get) { response throws in
                guard response.status == .ok else { throw TestFailure("binary snapshot: \(response.status) \(response.text)") }
                #expect(response.headers[.contentType] == "application/vnd.onthemap.map-columns")
                return (response.body, response.headers[.eTag])
            }
            #expect(NSDictionary(dictionary: try MapColumnsBinaryTests.read(binary)).isEqual(to: json))
            #expect(etag == "\"\(json["version"] as? Int ?? -1)-map-bin\"")
            try await client.execute(uri: "/api/locations/snapshot/map.bin", method: .get, headers: [.ifNoneMatch: etag!]) { response in
                #expect(response.status == .notModified)
            }
            // The JSON layout's ETag is another representation's: no 304 for it.
            let jsonTag = "\"\(json["version"] as? Int ?? -1)-map\""
            try await client.execute(uri: "/api/locations/snapshot/map.bin", method: .get, headers: [.ifNoneMatch: jsonTag]) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/api/locations/snapshot/map.bin", method: .get, headers: [.acceptEncoding: "gzip"]) { response in
                #expect(response.headers[.contentEncoding] == "gzip")
                #expect(Gzip.decompress(response.body) == binary)
            }
        }
    }

    @Test("changes arrive in order: created, updated, deleted, each with its version as id and its place's time zone")
    func ordering() async throws {
        try await withTestServer(mode: .live, defaultClass: .public) { client in
            let user = try await client.makeUser()
            let start = try await Self.snapshot(client).version
            let events = try await Self.follow(port: try #require(client.port), "since=\(start)", count: 4) {
                let id = try await client.postLocation(user)
                try await client.execute(
                    uri: "/v1/StudentLocation/\(id)", method: .put, headers: user.parseHeaders,
                    body: jsonBody(["mapString": "Paris, France", "latitude": 48.85, "longitude": 2.35])
                ) { _ in }
                try await client.execute(uri: "/v1/StudentLocation/\(id)", method: .delete, headers: user.parseHeaders) { _ in }
                // Mid-Pacific, no place within reach: no zone.
                _ = try await client.postLocation(user, ["mapString": "At sea", "latitude": 0.0, "longitude": -140.0])
            }
            try #require(events.map(\.event) == ["created", "updated", "deleted", "created"])
            // The zone the map layout gives the point, so a new post shows the time there at once.
            #expect(events[0].json["timeZone"] as? String == "Europe/London")
            #expect(events[1].json["timeZone"] as? String == "Europe/Paris")
            #expect(events[3].json.keys.contains("timeZone") == false)
            let versions = events.compactMap { $0.id.flatMap { Int64($0) } }
            #expect(versions.count == 4 && versions == versions.sorted() && versions.first! > start)
            #expect(events[1].json["mapString"] as? String == "Paris, France")
            #expect(events[1].json["latitude"] as? Double == 48.85)
            #expect(Set(events.prefix(3).compactMap(\.objectId)).count == 1)
            #expect(events[2].data == #"{"objectId":"\#(events[0].objectId!)"}"#)
        }
    }

    @Test("a viewer that reconnects with Last-Event-ID misses nothing and gets nothing twice")
    func resume() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let user = try await client.makeUser()
            let start = try await Self.snapshot(client).version
            var posted: [String] = []
            for index in 0..<5 { posted.append(try await client.postLocation(user, ["mapString": "Place \(index)"])) }
            // The first connection saw two changes and dropped.
            let all = try await Self.follow(client, "since=\(start)", seconds: 1)
            try #require(all.compactMap(\.objectId) == posted)
            let lastSeen = try #require(all[1].id)
            // More writes while it was away.
            for index in 5..<7 { posted.append(try await client.postLocation(user, ["mapString": "Place \(index)"])) }
            // EventSource sends the last id it saw; the URL still says where it first began.
            let resumed = try await Self.follow(client, "since=\(start)", headers: [HTTPField.Name("Last-Event-ID")!: lastSeen], seconds: 1)
            #expect(resumed.map(\.event) == Array(repeating: "created", count: 5))
            #expect(resumed.compactMap(\.objectId) == Array(posted[2...]))
            #expect(Set(resumed.compactMap(\.id)).isDisjoint(with: all[...1].compactMap(\.id)))
        }
    }

    @Test("a viewer too far behind, or with an id this database never gave, is told to reload")
    func reload() async throws {
        try await withTestServer({ $0.liveMap.ringCapacity = 3 }, defaultClass: .public) { client in
            let user = try await client.makeUser()
            let start = try await Self.snapshot(client).version
            for _ in 0..<5 { try await client.postLocation(user) }
            let behind = try await Self.follow(client, "since=\(start)", seconds: 1)
            let now = try await Self.snapshot(client).version
            #expect(behind == [Event(id: nil, event: "reload", data: #"{"version":\#(now)}"#)])
            let future = try await Self.follow(client, "", headers: [HTTPField.Name("Last-Event-ID")!: "\(now + 1000)"], seconds: 1)
            #expect(future.map(\.event) == ["reload"])
            // Within the ring: resumes.
            let recent = try await Self.follow(client, "since=\(now - 2)", seconds: 1)
            #expect(recent.map(\.event) == ["created", "created"])
        }
    }

    @Test("a bad Last-Event-ID, since or timeout is a 400 in our format, and nothing is subscribed")
    func badInput() async throws {
        try await withTestServer(defaultClass: .public) { client in
            for (query, headers, code) in [
                ("", [HTTPField.Name("Last-Event-ID")!: "abc"] as HTTPFields, "invalid_last_event_id"),
                ("", [HTTPField.Name("Last-Event-ID")!: "-3"], "invalid_last_event_id"),
                ("", [HTTPField.Name("Last-Event-ID")!: "99999999999999999999999"], "invalid_last_event_id"),
                ("since=1.5", [:], "invalid_since"),
                ("since=", [:], "invalid_since"),
                ("timeout=0", [:], "invalid_timeout"),
                ("timeout=99999", [:], "invalid_timeout"),
            ] {
                try await client.execute(uri: "/api/locations/changes?\(query)", method: .get, headers: headers) { response in
                    #expect(response.status == .badRequest, "\(query) \(headers)")
                    let error = try response.json["error"] as? [String: Any]
                    #expect(error?["code"] as? String == code)
                    #expect((error?["message"] as? String)?.isEmpty == false)
                }
            }
        }
    }

    @Test("a write made by hand in SQL, not through the server, reaches viewers too")
    func handMadeWrite() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = testConfiguration(dataDirectory: directory)
        try await setDefaultClass(.public, configuration: configuration)
        let app = try await buildApplication(configuration: configuration, logger: testLogger)
        let other = try await SQLStore.open(url: configuration.resolvedDatabaseURL, logger: testLogger)
        defer { Task { try? await other.close() } }
        try await app.test(.live) { client in
            let start = try await Self.snapshot(client).version
            // Each write is let reach the map before the next: the log keeps only a record's
            // newest change, so a server that reads it later would see the deletion alone.
            let events = try await Self.follow(port: try #require(client.port), "since=\(start)", count: 3) {
                try await other.withDatabase { db in
                    try await db.raw(
                        """
                        INSERT INTO student_locations (object_id, owner_key, unique_key, first_name, last_name, map_string, media_url,
                                                       latitude, longitude, created_at, updated_at)
                        VALUES ('byhand0001', NULL, 'k', 'Grace', 'Hopper', 'Arlington, VA', 'https://example.com', 38.88, -77.1,
                                '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')
                        """
                    ).run()
                }
                try await Self.waitForMap(client) { $0["byhand0001"] == "Arlington, VA" }
                try await other.withDatabase { db in
                    try await db.raw("UPDATE student_locations SET map_string = 'New York' WHERE object_id = 'byhand0001'").run()
                }
                try await Self.waitForMap(client) { $0["byhand0001"] == "New York" }
                try await other.withDatabase { db in
                    try await db.raw("DELETE FROM student_locations WHERE object_id = 'byhand0001'").run()
                }
            }
            try #require(events.map(\.event) == ["created", "updated", "deleted"])
            #expect(events[1].json["mapString"] as? String == "New York")
        }
    }

    @Test("after a write made outside the server (a host's command), the list is never older than the map")
    func listFollowsTheMapAfterOutsideWrites() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = testConfiguration(dataDirectory: directory)
        #expect(configuration.cacheListResponses)
        try await setDefaultClass(.public, configuration: configuration)
        let app = try await buildApplication(configuration: configuration, logger: testLogger)
        let host = try await SQLStore.open(url: configuration.resolvedDatabaseURL, logger: testLogger)
        defer { Task { try? await host.close() } }
        try await app.test(.router) { client in
            let user = try await client.makeUser()
            let post = try await client.postLocation(user)
            func listed() async throws -> Bool {
                ((try await client.list("?limit=300")["results"] as? [[String: Any]]) ?? []).contains { $0["objectId"] as? String == post }
            }
            func onMap() async throws -> Bool {
                try await Self.snapshot(client).locations.contains { $0["objectId"] as? String == post }
            }
            #expect(try await listed())
            #expect(try await listed())  // this answer comes from the cache
            // What `onthemap admin delete-location` does, on the same database.
            #expect(try await host.moderatorDelete(objectId: post, reason: "test", moderatorKey: nil, now: Date()))
            // Wait for the map to show it (its poll reads the change log), then the list must too.
            let deadline = ContinuousClock.now + .seconds(30)
            while try await onMap(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(try await !onMap())
            #expect(try await !listed())
        }
    }

    @Test("a stream ends once its lifetime is over, at the sweep after it; one without a lifetime stays")
    func lifetimes() async throws {
        try await Self.withStartedLive { live in try await Self.lifetimes(live) }
    }

    static func lifetimes(_ live: LiveLocations) async throws {
        let opened = ContinuousClock.now
        let classId = MapClass.migratedDefaultID
        guard case .stream(_, let short) = live.subscribe(since: live.version, classId: classId, reader: nil, lifetime: .seconds(60)),
            case .stream(_, let long) = live.subscribe(since: live.version, classId: classId, reader: nil, lifetime: .seconds(300)),
            case .stream(_, let forever) = live.subscribe(since: live.version, classId: classId, reader: nil)
        else { throw TestFailure("not subscribed") }
        live.endExpired(now: opened.advanced(by: .seconds(59)))
        #expect(live.viewerCount == 3)
        live.endExpired(now: opened.advanced(by: .seconds(61)))
        #expect(live.viewerCount == 2)
        var frames = 0
        for await _ in short { frames += 1 }  // ended: the loop finishes
        #expect(frames == 0)
        live.endExpired(now: opened.advanced(by: .seconds(3600)))
        #expect(live.viewerCount == 1)
        for await _ in long {}
        live.finishAll()
        for await _ in forever {}  // ended by the shutdown only
    }

    /// `body` with a started live map over a fresh SQLite store in a folder of its own.
    static func withStartedLive(
        _ settings: LiveLocations.Settings = LiveLocations.Settings(), _ body: (LiveLocations) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = testConfiguration(dataDirectory: directory)
        let store = try await SQLStore.open(url: configuration.resolvedDatabaseURL, logger: testLogger)
        let live = LiveLocations(store: store, settings: settings, logger: testLogger)
        try await live.start()
        do {
            try await body(live)
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    @Test("a viewer that does not read is dropped once its bounded buffer is full")
    func slowViewer() async throws {
        var settings = LiveLocations.Settings()
        settings.ringCapacity = 4
        settings.viewerBuffer = 2
        try await Self.withStartedLive(settings) { live in try await Self.slowViewer(live, settings) }
    }

    static func slowViewer(_ live: LiveLocations, _ settings: LiveLocations.Settings) async throws {
        guard case .stream(_, let slow) = live.subscribe(since: live.version, classId: MapClass.migratedDefaultID, reader: nil) else {
            throw TestFailure("not subscribed")
        }
        guard case .stream(_, let fast) = live.subscribe(since: live.version, classId: MapClass.migratedDefaultID, reader: nil) else {
            throw TestFailure("not subscribed")
        }
        #expect(live.viewerCount == 2)
        let seen = Mutex(0)
        let reader = Task {
            for await frame in fast where frame.version != nil { seen.withLock { $0 += 1 } }
            return seen.withLock { $0 }
        }
        let base = live.version
        for offset in 1...20 {
            live.publish([
                LocationChange(
                    version: base + Int64(offset), kind: .deleted, objectId: "gone\(offset)", record: nil,
                    classId: MapClass.migratedDefaultID)
            ])
            // The reader keeps up (however loaded the machine); the other never reads.
            while seen.withLock({ $0 }) < offset { try await Task.sleep(for: .milliseconds(1)) }
        }
        // The slow one holds what fitted (ring + buffer) and is then disconnected.
        #expect(live.viewerCount == 1)
        var buffered = 0
        for await _ in slow { buffered += 1 }
        #expect(buffered == settings.ringCapacity + settings.viewerBuffer)
        live.finishAll()
        #expect(await reader.value == 20)
    }
}

/// Two servers on one PostgreSQL database: a write on either, or one made by hand in SQL,
/// reaches the viewers of both with the same version.
@Suite("Live map on several servers", .enabled(if: TestDatabases.postgresServerURL != nil))
struct SharedLiveMapTests {
    @Test("both servers stream every write, theirs, the other's and psql's, with the same ids")
    func twoServers() async throws {
        try await withTwoServers(defaultClass: .public) { first, second, directory in
            let schema =
                "t_" + String(String(directory.lastPathComponent.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }).suffix(60))
            let user = try await first.makeUser()
            let start = try await LiveMapTests.snapshot(first).version
            async let seenByOne = LiveMapTests.follow(port: try #require(first.port), "since=\(start)", count: 4)
            async let seenBySecond = LiveMapTests.follow(port: try #require(second.port), "since=\(start)", count: 4) {
                // Each write reaches both maps before the next (the log keeps only a
                // record's newest change: a server reading later would skip to it).
                func onBoth(_ place: String, of id: String) async throws {
                    try await LiveMapTests.waitForMap(first) { $0[id] == place }
                    try await LiveMapTests.waitForMap(second) { $0[id] == place }
                }
                let a = try await first.postLocation(user, ["mapString": "On one"])
                try await onBoth("On one", of: a)
                try await second.execute(
                    uri: "/v1/StudentLocation/\(a)", method: .put, headers: user.parseHeaders,
                    body: jsonBody(["mapString": "On two"])
                ) { response in #expect(response.status == .ok) }
                try await onBoth("On two", of: a)
                // By hand, from a session whose search_path is not the schema.
                try await TestDatabases.execute(
                    """
                    UPDATE "\(schema)".student_locations SET map_string = 'By hand' WHERE object_id = '\(a)'
                    """)
                try await onBoth("By hand", of: a)
                try await TestDatabases.execute("TRUNCATE \"\(schema)\".student_locations CASCADE")  // reports refer to it
            }
            let (byOne, bySecond) = try await (seenByOne, seenBySecond)
            try #require(bySecond.map(\.event) == ["created", "updated", "updated", "reload"])
            #expect(bySecond.compactMap { $0.json["mapString"] as? String } == ["On one", "On two", "By hand"])
            #expect(byOne == bySecond, "the same changes with the same ids on both servers")
            // After the reset both snapshots agree the table is empty.
            #expect(try await LiveMapTests.snapshot(first).locations.isEmpty)
            #expect(try await LiveMapTests.snapshot(second).locations.isEmpty)
        }
    }
}
