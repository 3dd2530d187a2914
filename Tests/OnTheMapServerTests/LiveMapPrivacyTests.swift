import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OnTheMapModels
import TestDatabases
import Testing

@testable import OnTheMapServer
@testable import Storage

/// The live map forgets what every other read forgets, and stops when its reader's access
/// does: a replay never serves an earlier copy of a record (coarsened, hidden, deleted, left,
/// or its author's account deleted), from memory or from the database's log; a stream closes
/// when its reader's membership, session, account or class access ends; a reload names the
/// class's own version. Runs on SQLite, and on PostgreSQL under `Scripts/with-postgres.sh`.
@Suite("Live map privacy")
struct LiveMapPrivacyTests {
    /// Every event a stream from `since` sends before it ends on its own (after a second).
    static func replay(_ client: some TestClientProtocol, prefix: String = "", since: Int64, headers: HTTPFields = [:]) async throws
        -> [LiveMapTests.Event]
    {
        try await client.execute(uri: "\(prefix)/api/locations/changes?timeout=1&since=\(since)", method: .get, headers: headers) {
            response throws in
            guard response.status == .ok else { throw TestFailure("changes: \(response.status) \(response.text)") }
            return LiveMapTests.events(response.text)
        }
    }

    static func server(public visibility: Bool = true) async throws -> (Configuration, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-tests-\(UUID().uuidString)")
        let configuration = testConfiguration(dataDirectory: directory)
        if visibility { try await setDefaultClass(.public, configuration: configuration) }
        return (configuration, directory)
    }

    /// A server, and the host's own connection to its database (what `onthemap admin` uses
    /// from another process), for `body`.
    static func withServerAndHost(
        public visibility: Bool = true,
        _ body: @Sendable (any TestClientProtocol, SQLStore) async throws -> Void
    ) async throws {
        let (configuration, directory) = try await server(public: visibility)
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = try await buildApplication(configuration: configuration, logger: testLogger)
        let host = try await SQLStore.open(url: configuration.resolvedDatabaseURL, logger: testLogger)
        defer { Task { try? await host.close() } }
        try await app.test(.router) { client in try await body(client, host) }
    }

    @Test("after a class shows towns, a viewer resuming from before reads the town, never the exact point or the typed address")
    func coarsenedPointsDoNotComeBack() async throws {
        try await Self.withServerAndHost { client, host in
            let user = try await client.makeUser()
            let start = try await LiveMapTests.snapshot(client).version
            let id = try await client.postLocation(
                user, ["mapString": "Flat 4B, 5 Avenue Anatole France", "latitude": 48.8584, "longitude": 2.2945])
            try #require(
                try await Self.replay(client, since: start).contains { $0.data.contains("Anatole") }, "the class shows exact points")

            // The host shows towns (`onthemap admin class set main --precision city`), from another process.
            let main = try #require(try await host.mapClass(slug: "main"))
            var changes = ClassChanges(now: Date())
            changes.precision = .city
            #expect(try await ClassHostTools.change(main, changes, store: host).moved == 1)
            try await LiveMapTests.waitForMap(client) { $0[id].map { !$0.contains("Anatole") } ?? false }

            // A student who joins later resumes from before the change.
            let later = try await Self.replay(client, since: start)
            #expect(later.map(\.event) == ["updated"])
            for event in later {
                #expect(
                    !event.data.contains("Anatole") && !event.data.contains("48.8584") && !event.data.contains("2.2945"), "\(event.data)")
            }
            #expect((later.first?.json["mapString"] as? String)?.contains("Paris") == true)
            // Nor does the database's log hold it for a server started later.
            for change in try await host.locationChanges(after: 0, limit: 1000) {
                #expect(change.record.map { !$0.mapString.contains("Anatole") && $0.latitude != 48.8584 } ?? true)
            }
        }
    }

    @Test("hidden, deleted, left and deleted accounts' posts are never replayed, from memory or by a server started later")
    func forgottenPostsDoNotReplay() async throws {
        let (configuration, directory) = try await Self.server()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secrets = ["Doxxed: 12 Via Roma", "Deleted by its author", "Posted before leaving", "Account deleted"]
        @Sendable func check(_ events: [LiveMapTests.Event]) {
            let text = events.map(\.data).joined(separator: "\n")
            for secret in secrets { #expect(!text.contains(secret), "\(secret) replayed") }
            #expect(!text.contains("Lovelace-gone"), "the deleted account's name replayed")
            #expect(text.contains("Still here"))
        }
        let app = try await buildApplication(configuration: configuration, logger: testLogger)
        let start: Int64 = try await app.test(.router) { client in
            let admin = try await client.makeUser()  // the first account administers the server
            let start = try await LiveMapTests.snapshot(client).version
            var users: [TestUser] = []
            for _ in 0..<5 { users.append(try await client.makeUser()) }
            var posts: [String] = []
            for (user, place) in zip(users, secrets + ["Still here"]) {
                var fields: [String: Any] = ["mapString": place]
                if place == "Account deleted" { fields["lastName"] = "Lovelace-gone" }
                posts.append(try await client.postLocation(user, fields))
            }
            #expect(
                try await ClassTests.status(
                    client, "/api/admin/locations/\(posts[0])/hide", .post, headers: admin.cookieHeaders,
                    body: ["reason": "doxxing"]
                ).0 == .ok)
            #expect(
                try await ClassTests.status(client, "/v1/StudentLocation/\(posts[1])", .delete, headers: users[1].parseHeaders).0 == .ok)
            #expect(try await ClassTests.status(client, "/api/classes/main/leave", .post, headers: users[2].cookieHeaders).0 == .ok)
            #expect(
                try await ClassTests.status(
                    client, "/api/account/delete", .post, headers: users[3].cookieHeaders,
                    body: ["password": users[3].password]
                ).0 == .ok)
            let replayed = try await Self.replay(client, since: start)
            check(replayed)
            #expect(Set(replayed.filter { $0.event == "deleted" }.compactMap(\.objectId)) == Set(posts[0..<4]), "each is gone from the map")
            return start
        }
        // A server started afterwards reads its replay from the database's log alone.
        let again = try await buildApplication(configuration: configuration, logger: testLogger)
        try await again.test(.router) { client in check(try await Self.replay(client, since: start)) }
    }

    @Test("edits of a post waiting for approval send nothing to the class's viewers")
    func waitingEditsAreSilent() async throws {
        try await Self.withServerAndHost { client, host in
            _ = try await client.makeUser()  // the administrator, who would not wait
            let student = try await client.makeUser()
            var changes = ClassChanges(now: Date())
            changes.approval = .all
            _ = try await host.changeClass(id: MapClass.migratedDefaultID, changes)
            let start = try await LiveMapTests.snapshot(client).version
            let id = try await client.postLocation(student, ["mapString": "Waiting"])
            for place in ["Edited once", "Edited twice"] {
                #expect(
                    try await ClassTests.status(
                        client, "/v1/StudentLocation/\(id)", .put, headers: student.parseHeaders,
                        body: ["mapString": place]
                    ).0 == .ok)
            }
            #expect(try await Self.replay(client, since: start).isEmpty, "a waiting post is on no one's map")
        }
    }

    @Test("a reload names the class's own last version, not the writes of classes its reader cannot see")
    func reloadCarriesTheClassVersion() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let admin = try await client.makeUser()
            _ = try await ClassTests.makeClass(client, by: admin, slug: "busy-1", visibility: "members", join: "invite")
            let mine = try await LiveMapTests.snapshot(client).version
            for index in 0..<3 {
                #expect(try await ClassTests.post(client, admin, prefix: "/c/busy-1", place: "Busy \(index)").status == .created)
            }
            #expect(try await LiveMapTests.snapshot(client).version == mine, "the main map did not change")
            let future = try await LiveMapTests.follow(
                client, "", headers: [HTTPField.Name("Last-Event-ID")!: "\(mine + 1000)"], seconds: 1)
            #expect(future == [LiveMapTests.Event(id: nil, event: "reload", data: #"{"version":\#(mine)}"#)])
        }
    }

    @Test("a stream lasts five minutes at most, whatever timeout its client asks for; bad ones are refused")
    func streamLifetime() throws {
        #expect(try LiveMapController.lifetime(nil) == 300)
        #expect(try LiveMapController.lifetime("3600") == 300)
        #expect(try LiveMapController.lifetime("30") == 30)
        #expect(throws: APIError.self) { try LiveMapController.lifetime("0") }
        #expect(throws: APIError.self) { try LiveMapController.lifetime("3601") }
    }

    // MARK: Streams end with access

    /// A stream opened on a real connection, read once its first frame arrived.
    static func openStream(port: Int, _ path: String, session: String? = nil) async throws -> RawSocket {
        let socket = try RawSocket(port: port)
        let cookie = session.map { "Cookie: onthemap_session=\($0)\r\n" } ?? ""
        _ = socket.send(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(cookie)\r\n".utf8))
        let opened = await socket.readAsync(until: 30, stopAfter: "retry:")
        guard opened.text.hasPrefix("HTTP/1.1 200") else { throw TestFailure("stream not opened: \(opened.text)") }
        return socket
    }

    /// Whether the stream ends (its last chunk, or the connection closing) before a long wait
    /// runs out: the stream asked to live a minute, so an end means the server closed it.
    static func ends(_ socket: RawSocket) async -> Bool {
        let rest = await socket.readAsync(until: 30, stopAfter: "0\r\n\r\n")
        return rest.closed || rest.text.contains("0\r\n\r\n")
    }

    @Test(
        "a stream closes when its reader is removed from the class, logs out everywhere, is disabled or deleted, or the class closes to members"
    )
    func streamsEndWithAccess() async throws {
        try await withTestServer(mode: .live) { client in
            let port = try #require(client.port)
            let admin = try await client.makeUser()
            let made = try await ClassTests.makeClass(client, by: admin, slug: "watched-1", visibility: "members", join: "invite")
            let code = made["invite_code"] as? String
            var students: [TestUser] = []
            for _ in 0..<5 {
                let student = try await client.makeUser()
                #expect(try await ClassTests.join(client, student, slug: "watched-1", code: code).status == .ok)
                students.append(student)
            }
            let path = "/c/watched-1/api/locations/changes?timeout=60"
            func stream(_ user: TestUser) async throws -> RawSocket { try await Self.openStream(port: port, path, session: user.sessionID) }

            // Removed by the teacher; a classmate's stream goes on and hears the next post.
            let removed = try await stream(students[0])
            let classmate = try await stream(students[4])
            #expect(
                try await ClassTests.status(
                    client, "/api/classes/watched-1/members/\(students[0].key)", .delete, headers: admin.cookieHeaders
                ).0 == .ok)
            #expect(await Self.ends(removed))
            #expect(try await ClassTests.post(client, admin, prefix: "/c/watched-1", place: "After the removal").status == .created)
            let heard = await classmate.readAsync(until: 30, stopAfter: "After the removal")
            #expect(heard.text.contains("After the removal") && !heard.text.contains("0\r\n\r\n"))

            // Logged out everywhere.
            let loggedOut = try await stream(students[1])
            #expect(try await ClassTests.status(client, "/api/session?all=1", .delete, headers: students[1].cookieHeaders).0 == .ok)
            #expect(await Self.ends(loggedOut))

            // Disabled by an administrator.
            let disabled = try await stream(students[2])
            #expect(
                try await ClassTests.status(client, "/api/admin/users/\(students[2].key)/disable", .post, headers: admin.cookieHeaders).0
                    == .ok)
            #expect(await Self.ends(disabled))

            // Deleted by its owner.
            let deleted = try await stream(students[3])
            #expect(
                try await ClassTests.status(
                    client, "/api/account/delete", .post, headers: students[3].cookieHeaders,
                    body: ["password": students[3].password]
                ).0 == .ok)
            #expect(await Self.ends(deleted))

            // A public class turned members-only: its anonymous readers' streams close.
            #expect(
                try await ClassTests.status(
                    client, "/api/classes/watched-1", .patch, headers: admin.cookieHeaders,
                    body: ["visibility": "public"]
                ).0 == .ok)
            let anonymous = try await Self.openStream(port: port, path)
            #expect(
                try await ClassTests.status(
                    client, "/api/classes/watched-1", .patch, headers: admin.cookieHeaders,
                    body: ["visibility": "members"]
                ).0 == .ok)
            #expect(await Self.ends(anonymous))
            // And reconnecting goes through the full check.
            #expect(
                try await ClassTests.status(
                    client, path.replacingOccurrences(of: "timeout=60", with: "timeout=1"),
                    headers: students[0].cookieHeaders
                ).0 != .ok)
        }
    }

    // MARK: Class writes use the database's class

    @Test("a teacher's change keeps what the host changed a moment before; a post right after the class shows towns is placed at its town")
    func classWritesUseTheDatabase() async throws {
        try await Self.withServerAndHost(public: false) { client, host in
            let admin = try await client.makeUser()
            let student = try await client.makeUser()
            let made = try await ClassTests.makeClass(client, by: admin, slug: "cached-1", precision: "exact")
            #expect(try await ClassTests.join(client, student, slug: "cached-1", code: made["invite_code"] as? String).status == .ok)
            // The server now holds the class in its cache.
            #expect(try await ClassTests.post(client, student, prefix: "/c/cached-1", place: "Warm").status == .created)

            // The host revokes the invite link and shows towns, from another process.
            let current = try #require(try await host.mapClass(slug: "cached-1"))
            var changes = ClassChanges(now: Date())
            changes.inviteCode = .some(nil)
            changes.precision = .city
            _ = try await ClassHostTools.change(current, changes, store: host)

            // At once, the teacher renames the class and the student posts a street address.
            #expect(
                try await ClassTests.status(
                    client, "/api/classes/cached-1", .patch, headers: admin.cookieHeaders,
                    body: ["name": "Renamed"]
                ).0 == .ok)
            let posted = try await client.execute(
                uri: "/c/cached-1/parse/classes/StudentLocation", method: .post, headers: student.parseHeaders,
                body: jsonBody([
                    "firstName": "Ada", "lastName": "L", "mapString": "12 Elm Street, Springfield",
                    "mediaURL": "https://example.com", "latitude": 39.7817, "longitude": -89.6712,
                ])
            ) { response throws in
                try #require(response.status == .created, "\(response.text)")
                return try #require(try response.json["objectId"] as? String)
            }
            let saved = try #require(try await host.mapClass(slug: "cached-1"))
            #expect(saved.name == "Renamed")
            #expect(saved.inviteCode == nil, "the revoked link stays revoked")
            #expect(saved.precision == .city)
            let stored = try #require(try await host.location(objectId: posted, in: saved.id, author: nil))
            #expect(stored.record.mapString == "Springfield, Illinois, United States")
            #expect(stored.record.latitude != 39.7817)
        }
    }

    @Test("coarsening moves every post, however far from a town: the nearest place at any distance, or a 1-degree cell")
    func coarseningSkipsNothing() throws {
        // The oceanic pole of inaccessibility: no land within 2,600 km.
        let far = StudentInformation(
            objectId: "far0000001", uniqueKey: "k", firstName: "F", lastName: "L", mapString: "At sea, exactly here",
            mediaURL: "https://x.y", latitude: -48.8767, longitude: -123.3933, createdAt: "", updatedAt: "")
        for precision in [MapClass.Precision.city, .region, .country] {
            let moved = try #require(ClassPlacement.rewrite(far, precision: precision))
            #expect(moved.mapString != far.mapString)
            #expect(moved.latitude != far.latitude || moved.longitude != far.longitude)
        }
        #expect(ClassPlacement.rewrite(far, precision: .exact) == nil)
        let cell = ClassPlacement.neutralCell(latitude: -48.8767, longitude: -123.3933)
        #expect(cell == PlaceRewrite(latitude: -48.5, longitude: -123.5, mapString: "49°S 124°W"))
        #expect(ClassPlacement.neutralCell(latitude: 90, longitude: 180).latitude == 89.5)
    }

    // MARK: Members

    @Test("a teacher adds by email only: a key changes a member's role, and is a 404 for anyone else")
    func membersByKey() async throws {
        try await withTestServer { client in
            let admin = try await client.makeUser()
            let outsider = try await client.makeUser()
            let member = try await client.makeUser()
            let made = try await ClassTests.makeClass(client, by: admin, slug: "roster-1")
            #expect(try await ClassTests.join(client, member, slug: "roster-1", code: made["invite_code"] as? String).status == .ok)

            let refused = try await ClassTests.status(
                client, "/api/classes/roster-1/members/\(outsider.key)", .put,
                headers: admin.cookieHeaders, body: ["role": "student"])
            #expect(refused.0 == .notFound)
            #expect(!"\(refused.1)".contains(outsider.email))
            let unknown = try await ClassTests.status(
                client, "/api/classes/roster-1/members/9999999999", .put,
                headers: admin.cookieHeaders, body: ["role": "student"])
            func error(_ answer: [String: Any]) -> [String] {
                let error = answer["error"] as? [String: Any]
                return [error?["code"] as? String ?? "", error?["message"] as? String ?? ""]
            }
            #expect(unknown.0 == .notFound && error(unknown.1) == error(refused.1), "an account and no account answer alike")

            let promoted = try await ClassTests.status(
                client, "/api/classes/roster-1/members/\(member.key)", .put,
                headers: admin.cookieHeaders, body: ["role": "moderator"])
            #expect(promoted.0 == .ok)
            let roster = try await ClassTests.status(client, "/api/classes/roster-1/members", headers: admin.cookieHeaders).1
            let members = try #require(roster["members"] as? [[String: Any]])
            #expect(members.count == 2, "the outsider was not added")
            #expect(!"\(roster)".contains(outsider.email))
            #expect(members.contains { $0["role"] as? String == "moderator" })
        }
    }

    @Test(
        "adding by email invites the address: the same answer whether or not an account has it; the account joins by itself with the invited role"
    )
    func invitations() async throws {
        try await withTestServer { client in
            let admin = try await client.makeUser()
            let invitee = try await client.makeUser(email: "invitee-\(UUID().uuidString.prefix(6).lowercased())@example.com")
            let made = try await ClassTests.makeClass(client, by: admin, slug: "invites-1", visibility: "members", join: "closed")
            _ = made
            func invite(_ email: String, _ role: String) async throws -> (HTTPResponse.Status, [String: Any]) {
                try await ClassTests.status(
                    client, "/api/classes/invites-1/members", .post, headers: admin.cookieHeaders,
                    body: ["email": email, "role": role])
            }
            // An address with an account and one without: answered alike, and neither is on the roster yet.
            let known = try await invite(invitee.email.uppercased(), "moderator")
            let unknown = try await invite("nobody-here@example.com", "moderator")
            #expect(known.0 == .ok && unknown.0 == .ok)
            func members(_ answer: [String: Any]) -> [[String: Any]] { answer["members"] as? [[String: Any]] ?? [] }
            func invited(_ answer: [String: Any]) -> [String] {
                (answer["invitations"] as? [[String: Any]] ?? []).compactMap { $0["email"] as? String }
            }
            #expect(members(known.1).count == 1 && members(unknown.1).count == 1, "only the teacher, in both answers")
            #expect(invited(known.1) == [invitee.email] && invited(unknown.1) == ["nobody-here@example.com", invitee.email].sorted())
            #expect(try await invite("not an address", "student").0 == .badRequest)

            // The invitee sees the class among those to join, and joins it, closed as it is.
            let list = try await ClassTests.status(client, "/api/classes", headers: invitee.cookieHeaders).1
            let joinable = try #require(list["joinable"] as? [[String: Any]])
            #expect(joinable.contains { $0["slug"] as? String == "invites-1" && $0["invited"] as? Bool == true })
            #expect(try await ClassTests.status(client, "/api/classes/invites-1", headers: invitee.cookieHeaders).0 == .ok)
            let joined = try await ClassTests.join(client, invitee, slug: "invites-1", code: nil)
            #expect(joined.status == .ok)
            #expect(try joined.json["role"] as? String == "moderator")
            let roster = try await ClassTests.status(client, "/api/classes/invites-1/members", headers: admin.cookieHeaders).1
            #expect(members(roster).contains { $0["email"] as? String == invitee.email && $0["role"] as? String == "moderator" })
            #expect(invited(roster) == ["nobody-here@example.com"])

            // Withdrawn, an invitation lets no one in; a second withdrawal is a 404.
            let withdrawn = try await ClassTests.status(
                client, "/api/classes/invites-1/invitations/nobody-here%40example.com", .delete,
                headers: admin.cookieHeaders)
            #expect(withdrawn.0 == .ok && invited(withdrawn.1).isEmpty)
            #expect(
                try await ClassTests.status(
                    client, "/api/classes/invites-1/invitations/nobody-here%40example.com", .delete,
                    headers: admin.cookieHeaders
                ).0 == .notFound)
            let latecomer = try await client.makeUser(email: "nobody-here@example.com")
            #expect(try await ClassTests.join(client, latecomer, slug: "invites-1", code: nil).status == .forbidden)

            // A password sign-up proves nothing about its address: one made after the invitation
            // cannot take it (someone could sign up with a classmate's address); invited again
            // once the account exists, it can, as adding an existing account always could.
            #expect(try await invite("later@example.com", "student").0 == .ok)
            let squatter = try await client.makeUser(email: "later@example.com")
            let offered = try await ClassTests.status(client, "/api/classes", headers: squatter.cookieHeaders).1
            #expect(!"\(offered)".contains("invites-1"))
            #expect(try await ClassTests.join(client, squatter, slug: "invites-1", code: nil).status == .forbidden)
            #expect(try await invite("later@example.com", "student").0 == .ok)
            #expect(try await ClassTests.join(client, squatter, slug: "invites-1", code: nil).status == .ok)
            // Moderators read the roster without addresses or invitations.
            let asModerator = try await ClassTests.status(client, "/api/classes/invites-1/members", headers: invitee.cookieHeaders).1
            #expect(invited(asModerator).isEmpty && !"\(asModerator)".contains("@"))
        }
    }
}

/// Two servers on one PostgreSQL database: what one server forgets or ends, the other does too.
@Suite("Live map privacy on several servers", .enabled(if: TestDatabases.postgresServerURL != nil))
struct SharedLiveMapPrivacyTests {
    @Test("a removal through one server closes the reader's stream on the other, and neither replays the removed post")
    func removalEndsStreamsEverywhere() async throws {
        try await withTwoServers { first, second, _ in
            let admin = try await first.makeUser()
            let student = try await first.makeUser()
            let made = try await ClassTests.makeClass(first, by: admin, slug: "shared-1", visibility: "members", join: "invite")
            #expect(try await ClassTests.join(first, student, slug: "shared-1", code: made["invite_code"] as? String).status == .ok)
            let start = try await LiveMapPrivacyTests.replayVersion(second, admin)
            let post = try await ClassTests.post(first, student, prefix: "/c/shared-1", place: "Left behind")
            #expect(post.status == .created)
            let stream = try await LiveMapPrivacyTests.openStream(
                port: try #require(second.port),
                "/c/shared-1/api/locations/changes?timeout=60", session: student.sessionID)
            #expect(
                try await ClassTests.status(
                    first, "/api/classes/shared-1/members/\(student.key)", .delete,
                    headers: admin.cookieHeaders
                ).0 == .ok)
            #expect(await LiveMapPrivacyTests.ends(stream))
            for client in [first, second] {
                let replayed = try await LiveMapPrivacyTests.replay(
                    client, prefix: "/c/shared-1", since: start, headers: admin.cookieHeaders)
                #expect(!replayed.contains { $0.data.contains("Left behind") })
            }
        }
    }
}

extension LiveMapPrivacyTests {
    /// The version of the class `shared-1`'s snapshot, as its teacher reads it.
    static func replayVersion(_ client: some TestClientProtocol, _ teacher: TestUser) async throws -> Int64 {
        try await client.execute(uri: "/c/shared-1/api/locations/snapshot", method: .get, headers: teacher.cookieHeaders) {
            response throws in
            Int64(try #require(try response.json["version"] as? Int))
        }
    }
}
