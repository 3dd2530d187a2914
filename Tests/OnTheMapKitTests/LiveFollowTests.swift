import Foundation
import Testing

@testable import OnTheMapKit

@Suite("Server-Sent Events parsing")
struct ServerSentEventParserTests {
    private let stream = """
        retry: 2000

        : heartbeat

        id: 7
        event: created
        data: {"objectId":"a"}

        id: 8\r
        event: updated\r
        data: first\r
        data: second\r
        \r
        data: no type

        id: bad\u{0}id
        event: deleted
        data: x

        event: reload
        data: {"version":9}


        """

    private func expected(lastID: String?) -> [ServerSentEvent] {
        [
            ServerSentEvent(event: "created", data: #"{"objectId":"a"}"#, id: "7"),
            ServerSentEvent(event: "updated", data: "first\nsecond", id: "8"),
            ServerSentEvent(event: "message", data: "no type", id: nil),
            ServerSentEvent(event: "deleted", data: "x", id: nil),
            ServerSentEvent(event: "reload", data: #"{"version":9}"#, id: nil),
        ]
    }

    @Test func wholeStream() throws {
        var parser = ServerSentEventParser()
        let events = try parser.feed(Array(stream.utf8))
        #expect(events == expected(lastID: "8"))
        #expect(parser.retryMilliseconds == 2000)
        // The id with a NUL was ignored; the last good one stays.
        #expect(parser.lastEventID == "8")
    }

    /// The network may cut anywhere, CRLF included: every split gives the same events.
    @Test func everySplitGivesTheSameEvents() throws {
        let bytes = Array(stream.utf8)
        for cut in 1..<bytes.count {
            var parser = ServerSentEventParser()
            let events = try parser.feed(bytes[..<cut]) + parser.feed(bytes[cut...])
            #expect(events == expected(lastID: "8"), "split at \(cut)")
        }
    }

    @Test func aTrailingEventWithoutItsBlankLineIsNotDispatched() throws {
        var parser = ServerSentEventParser()
        #expect(try parser.feed(Array("id: 3\ndata: half".utf8)).isEmpty)
    }

    @Test func anEndlessLineIsRefused() {
        var parser = ServerSentEventParser(maximumLineLength: 64)
        #expect(throws: ServerSentEventParser.Failure.lineTooLong) {
            _ = try parser.feed([UInt8](repeating: 0x61, count: 65))
        }
    }
}

/// The follower against a server that misbehaves the way networks do: streams that end,
/// replayed events, a reload request. A stub plays the server so each case is exact.
@Suite("Following the live map", .serialized)
struct LiveFollowTests {
    static func record(_ id: String, _ place: String, minutesAgo: Int) -> String {
        #"{"firstName":"F\#(id)","lastName":"L","latitude":1,"longitude":2,"mapString":"\#(place)","mediaURL":"https://example.com","objectId":"\#(id)","uniqueKey":"k\#(id)","updatedAt":"\#(timestamp(minutesAgo))"}"#
    }

    static func events(_ frames: [(Int, String, String)]) -> StubServer.Reply {
        let text = "retry: 10\n\n" + frames.map { "id: \($0.0)\nevent: \($0.1)\ndata: \($0.2)\n\n" }.joined()
        return .respond(status: 200, body: Data(text.utf8), headers: [("Content-Type", "text/event-stream")])
    }

    final class Script: @unchecked Sendable {
        let lock = NSLock()
        var connections = 0
        var snapshots = 0
    }

    private func client(_ server: StubServer) -> LiveLocationClient {
        LiveLocationClient(
            configuration: OnTheMapConfiguration(server: server.baseURL, timeout: 10),
            minimumRetry: .milliseconds(20), maximumRetry: .milliseconds(100))
    }

    /// Collects updates (connection states left out) until `count` arrived.
    private func collect(_ stream: AsyncThrowingStream<LiveLocationUpdate, any Error>, count: Int) async throws -> [LiveLocationUpdate] {
        var result: [LiveLocationUpdate] = []
        for try await update in stream {
            if case .connection = update { continue }
            result.append(update)
            if result.count == count { break }
        }
        return result
    }

    @Test func resumesAfterADropWithoutLossOrRepeatAndReloadsWhenTold() async throws {
        let script = Script()
        let server = try StubServer { request in
            script.lock.lock()
            defer { script.lock.unlock() }
            if request.path == "/api/locations/snapshot" {
                script.snapshots += 1
                let version = script.snapshots == 1 ? 10 : 20
                return .json(200, #"{"count":1,"locations":[\#(Self.record("a", "Oslo", minutesAgo: 9))],"version":\#(version)}"#)
            }
            script.connections += 1
            switch script.connections {
            // Two changes, then the connection ends (a proxy, a restart).
            case 1:
                return Self.events([
                    (11, "created", Self.record("b", "Rome", minutesAgo: 1)),
                    (12, "updated", Self.record("a", "Bergen", minutesAgo: 0)),
                ])
            // A replay of 12 (must not apply twice), then 13.
            case 2:
                return Self.events([
                    (12, "updated", Self.record("a", "Bergen", minutesAgo: 0)),
                    (13, "deleted", #"{"objectId":"b"}"#),
                ])
            case 3: return .respond(status: 503, body: Data(#"{"error":"busy"}"#.utf8))
            // Too far behind: reload, then carry on from the new snapshot's version.
            case 4:
                return .respond(
                    status: 200, body: Data("retry: 10\n\nevent: reload\ndata: {\"version\":20}\n\n".utf8),
                    headers: [("Content-Type", "text/event-stream")])
            default: return Self.events([(21, "created", Self.record("c", "Lima", minutesAgo: 0))])
            }
        }
        defer { server.stop() }
        let updates = try await collect(client(server).follow(), count: 6)
        #expect(updates.count == 6)
        guard updates.count == 6 else { return }
        #expect(updates[0] == .snapshot([StudentInformation(dictionary: try json(Self.record("a", "Oslo", minutesAgo: 9)))!], version: 10))
        #expect(versions(updates) == [10, 11, 12, 13, 20, 21])
        if case .deleted(let id, _) = updates[3] { #expect(id == "b") } else { Issue.record("not a delete: \(updates[3])") }
        // Each reconnect named the last change it applied.
        let resumes = server.requests.filter { $0.path == "/api/locations/changes" }.map { $0.headers["last-event-id"] }
        #expect(Array(resumes.prefix(5)) == ["10", "12", "13", "13", "20"])
    }

    @MainActor @Test func storeAppliesUpdatesInOrderAndKeepsNewestFirst() async throws {
        let server = try StubServer { request in
            if request.path == "/api/locations/snapshot" {
                let rows = [Self.record("old", "Oslo", minutesAgo: 30), Self.record("mid", "Rome", minutesAgo: 20)]
                return .json(200, #"{"count":2,"locations":[\#(rows.joined(separator: ","))],"version":5}"#)
            }
            if request.headers["last-event-id"] == "5" {
                return Self.events([
                    (6, "created", Self.record("new", "Lima", minutesAgo: 0)),
                    (7, "updated", Self.record("old", "Cairo", minutesAgo: 0)),
                    (8, "deleted", #"{"objectId":"mid"}"#),
                ])
            }
            return .silence
        }
        defer { server.stop() }
        let store = StudentStore(source: EmptySource())
        let seen = Seen()
        let (done, finished) = AsyncStream<Void>.makeStream()
        let handle = store.startFollowing(
            client(server),
            onUpdate: { update in
                if case .connection = update { return }
                seen.lists.append(store.students.map { "\($0.objectId):\($0.mapString)" }.joined(separator: ","))
                if case .deleted = update { finished.finish() }
            })
        for await _ in done {}
        #expect(
            seen.lists == [
                "mid:Rome,old:Oslo", "new:Lima,mid:Rome,old:Oslo",
                "new:Lima,old:Cairo,mid:Rome", "new:Lima,old:Cairo",
            ])
        #expect(store.totalCount == 2)
        #expect(store.hasMore == false)
        #expect(store.liveState == .connecting || store.liveState == .live)
        handle.cancel()
    }

    @MainActor final class Seen { var lists: [String] = [] }

    @Test func aServerWithoutTheLiveMapEndsFollowingWithAClearError() async throws {
        let server = try StubServer { _ in .json(404, #"{"error":"not found"}"#) }
        defer { server.stop() }
        await #expect(throws: OnTheMapError.unavailable(feature: "live updates")) {
            _ = try await collect(client(server).follow(), count: 1)
        }
    }

    private func versions(_ updates: [LiveLocationUpdate]) -> [Int64] {
        updates.compactMap { update in
            switch update {
            case .snapshot(_, let version), .created(_, let version), .updated(_, let version), .deleted(_, let version): version
            case .connection: nil
            }
        }
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }
}

/// A page source with nothing in it (following replaces paging).
struct EmptySource: StudentPageSource {
    func studentPage(limit: Int, skip: Int) async throws(OnTheMapError) -> StudentPage {
        throw .unavailable(feature: "paging")
    }
}

/// Following a real in-process server: another client's post, move and delete arrive once
/// and in order after the snapshot, and a store following the same server ends up equal to
/// the server's list.
@Suite("Following the live map of a real server")
struct LiveFollowServerTests {
    @Test func anotherClientsWritesArriveInOrder() async throws {
        try await withLiveServer { server in
            let poster = try await LiveUser.make(server, first: "Ada", last: "Lovelace")
            let first = try await poster.locations.post(poster.input("Oslo, Norway", latitude: 59.9, longitude: 10.7))
            // Another member of the class follows (the map is its members').
            let viewer = try await LiveUser.make(server, first: "Grace", last: "Hopper")
            let live = LiveLocationClient(
                configuration: configuration(server, timeout: liveTimeout), sessionStore: viewer.udacity.sessionStore)
            var updates = live.follow().makeAsyncIterator()
            func next() async throws -> LiveLocationUpdate? {
                while let update = try await updates.next() {
                    if case .connection(let state) = update, state != .live { continue }
                    return update
                }
                return nil
            }
            guard case .snapshot(let students, let version) = try await next() else {
                Issue.record("the first update is not the snapshot")
                return
            }
            #expect(students.map(\.objectId) == [first.objectId])
            // Writes after the stream is live, so none can fall between snapshot and stream.
            #expect(try await next() == .connection(.live))

            let second = try await poster.locations.post(poster.input("Lima, Peru", latitude: -12.05, longitude: -77.04))
            _ = try await poster.locations.update(
                objectId: first.objectId,
                with: poster.input("Bergen, Norway", latitude: 60.39, longitude: 5.32))
            try await poster.locations.delete(objectId: second.objectId)

            var seen: [String] = []
            var versions: [Int64] = []
            while seen.count < 3, let update = try await next() {
                switch update {
                case .created(let student, let v):
                    seen.append("created \(student.mapString)")
                    versions.append(v)
                case .updated(let student, let v):
                    seen.append("updated \(student.mapString)")
                    versions.append(v)
                case .deleted(let id, let v):
                    seen.append(id == second.objectId ? "deleted second" : "deleted ?")
                    versions.append(v)
                default: continue
                }
            }
            #expect(seen == ["created Lima, Peru", "updated Bergen, Norway", "deleted second"])
            #expect(versions == versions.sorted() && versions.first.map { $0 > version } == true)
        }
    }
}
