import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OnTheMapModels
import Storage
import Testing

@testable import OnTheMapServer

/// Classes through the API, on the database `TestDatabases` picks (SQLite, or PostgreSQL in
/// CI): isolation through both protocols and the live map, every visibility for anonymous,
/// non-member and member callers, each role's rights, the invite flow, and `/c/<slug>`
/// answering exactly as the unprefixed routes do.
@Suite("Classes")
struct ClassTests {
    /// The first account of a server is its administrator: it makes the class.
    static func makeClass(
        _ client: some TestClientProtocol, by admin: TestUser, slug: String,
        visibility: String = "members", join: String = "invite", precision: String? = nil
    ) async throws -> [String: Any] {
        var form = ["slug": slug, "name": "Class \(slug)", "visibility": visibility, "join": join]
        form["precision"] = precision
        return try await client.execute(uri: "/api/classes", method: .post, headers: admin.cookieHeaders, body: jsonBody(form)) {
            response throws in
            guard response.status == .created else { throw TestFailure("class not created: \(response.status) \(response.text)") }
            return try response.json
        }
    }

    static func join(_ client: some TestClientProtocol, _ user: TestUser, slug: String, code: String?) async throws -> TestResponse {
        try await client.execute(
            uri: "/api/classes/\(slug)/join", method: .post, headers: user.cookieHeaders,
            body: jsonBody(code.map { ["code": $0] } ?? [:])
        ) { $0 }
    }

    static func post(_ client: some TestClientProtocol, _ user: TestUser, prefix: String, place: String) async throws -> TestResponse {
        try await client.execute(
            uri: "\(prefix)/parse/classes/StudentLocation", method: .post, headers: user.parseHeaders,
            body: jsonBody([
                "firstName": "Ada", "lastName": "L", "mapString": place, "mediaURL": "https://example.com/\(place)",
                "latitude": 10.5, "longitude": 20.25,
            ])
        ) { $0 }
    }

    static func status(
        _ client: some TestClientProtocol, _ uri: String, _ method: HTTPRequest.Method = .get,
        headers: HTTPFields = parseHeaders, body: Any? = nil
    ) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await client.execute(uri: uri, method: method, headers: headers, body: body.map(jsonBody)) { response throws in
            (response.status, (try? response.json) ?? [:])
        }
    }

    @Test("a post in one class is invisible, unfindable and unchangeable from another, through both protocols and the snapshot")
    func isolation() async throws {
        try await withTestServer { client in
            let admin = try await client.makeUser()
            let student = try await client.makeUser()
            let made = try await Self.makeClass(client, by: admin, slug: "cohort-a", precision: "exact")
            #expect(try await Self.join(client, student, slug: "cohort-a", code: made["invite_code"] as? String).status == .ok)
            let created = try await Self.post(client, student, prefix: "/c/cohort-a", place: "Kyoto")
            #expect(created.status == .created)
            let id = try created.json["objectId"] as! String
            #expect(
                created.headers[.location] == "/c/cohort-a/parse/classes/StudentLocation/\(id)", "the Location names the class's address")

            // In its class, through both mounts.
            let inClass = try await client.list("", headers: student.parseHeaders)
            #expect((inClass["results"] as? [[String: Any]])?.isEmpty == true, "the default class has nothing")
            let classList = try await Self.status(client, "/c/cohort-a/parse/classes/StudentLocation", headers: student.parseHeaders)
            #expect((classList.1["results"] as? [[String: Any]])?.map { $0["objectId"] as? String } == [id])
            let v1 = try await Self.status(client, "/c/cohort-a/v1/StudentLocation?uniqueKey=\(student.key)", headers: student.parseHeaders)
            #expect((v1.1["results"] as? [[String: Any]])?.count == 1)

            // From the default class: not listed, not found by id or by owner, not changed.
            let mine = try await Self.status(client, "/v1/StudentLocation?uniqueKey=\(student.key)", headers: student.parseHeaders)
            #expect((mine.1["results"] as? [[String: Any]])?.isEmpty == true)
            let search = "/parse/classes/StudentLocation?where=%7B%22uniqueKey%22%3A%22\(student.key)%22%7D"
            #expect(
                (try await Self.status(client, search, headers: student.parseHeaders).1["results"] as? [[String: Any]])?.isEmpty == true)
            #expect(try await Self.status(client, "/parse/classes/StudentLocation/\(id)", headers: student.parseHeaders).0 == .notFound)
            #expect(
                try await Self.status(
                    client, "/v1/StudentLocation/\(id)", .put, headers: student.parseHeaders,
                    body: ["mapString": "Moved"]
                ).0 == .notFound)
            #expect(
                try await Self.status(client, "/parse/classes/StudentLocation/\(id)", .delete, headers: student.parseHeaders).0 == .notFound
            )
            #expect(
                try await Self.status(
                    client, "/api/locations/\(id)/report", .post, headers: student.cookieHeaders,
                    body: ["reason": "spam"]
                ).0 == .notFound)
            #expect(
                try await Self.status(
                    client, "/api/admin/locations/\(id)/hide", .post, headers: admin.cookieHeaders,
                    body: ["reason": "x"]
                ).0 == .notFound)
            // The snapshots: the class's has it, the default class's does not.
            let snapshot = try await Self.status(client, "/c/cohort-a/api/locations/snapshot", headers: student.cookieHeaders)
            #expect((snapshot.1["locations"] as? [[String: Any]])?.map { $0["objectId"] as? String } == [id])
            let other = try await Self.status(client, "/api/locations/snapshot", headers: student.cookieHeaders)
            #expect((other.1["locations"] as? [[String: Any]])?.isEmpty == true)
            // Unchanged in its class.
            let again = try await Self.status(client, "/c/cohort-a/parse/classes/StudentLocation/\(id)", headers: student.parseHeaders)
            #expect(again.1["mapString"] as? String == "Kyoto")
            // The host's metrics count the reads of classes that are not public as one series,
            // naming neither members-only class.
            let metrics = try await client.execute(uri: "/metrics", method: .get) { $0.text }
            #expect(metrics.contains(#"onthemap_class_requests_total{class="private"}"#), "\(metrics.prefix(2000))")
            #expect(!metrics.contains("cohort-a") && !metrics.contains(#"class="main""#))
        }
    }

    @Test(
        "who may read a class: each visibility for anonymous, non-member and member callers, in each protocol's format",
        arguments: [("members", [401, 403, 200]), ("server", [401, 200, 200]), ("public", [200, 200, 200])])
    func visibility(visibility: String, expected: [Int]) async throws {
        try await withTestServer { client in
            let admin = try await client.makeUser()
            let member = try await client.makeUser()
            let outsider = try await client.makeUser()
            let made = try await Self.makeClass(client, by: admin, slug: "cohort-v", visibility: visibility)
            #expect(try await Self.join(client, member, slug: "cohort-v", code: made["invite_code"] as? String).status == .ok)
            let callers: [(String, HTTPFields, HTTPFields)] = [
                ("anonymous", parseHeaders, [:]),
                ("non-member", outsider.parseHeaders, outsider.cookieHeaders),
                ("member", member.parseHeaders, member.cookieHeaders),
            ]
            for ((name, parse, cookies), status) in zip(callers, expected) {
                let list = try await Self.status(client, "/c/cohort-v/parse/classes/StudentLocation", headers: parse)
                #expect(list.0.code == status, "\(visibility), \(name): Parse list")
                let snapshot = try await Self.status(client, "/c/cohort-v/api/locations/snapshot", headers: cookies)
                #expect(snapshot.0.code == status, "\(visibility), \(name): snapshot")
                let stream = try await Self.status(client, "/c/cohort-v/api/locations/changes?timeout=1", headers: cookies)
                #expect(stream.0.code == status, "\(visibility), \(name): change stream")
                switch status {
                case 401:
                    #expect(list.1["code"] as? Int == 209)
                    #expect((snapshot.1["error"] as? [String: Any])?["code"] as? String == "not_logged_in")
                case 403:
                    #expect(list.1["code"] as? Int == 119)
                    #expect((snapshot.1["error"] as? [String: Any])?["code"] as? String == "not_a_member")
                default:
                    #expect(list.1["results"] is [Any])
                }
            }
            // A non-member never posts, whatever the class shows.
            #expect(try await Self.post(client, outsider, prefix: "/c/cohort-v", place: "Nowhere").status == .forbidden)
        }
    }

    @Test("roles: students post and leave, moderators moderate, teachers manage; a class keeps a teacher")
    func roles() async throws {
        try await withTestServer { client in
            let admin = try await client.makeUser()
            let teacher = try await client.makeUser()
            let moderator = try await client.makeUser()
            let student = try await client.makeUser()
            let made = try await Self.makeClass(client, by: admin, slug: "cohort-r")
            let code = made["invite_code"] as? String
            for user in [teacher, moderator, student] {
                #expect(try await Self.join(client, user, slug: "cohort-r", code: code).status == .ok)
            }
            // The administrator who made it hands it to its teacher, then steps down.
            #expect(
                try await Self.status(
                    client, "/api/classes/cohort-r/members/\(teacher.key)", .put, headers: admin.cookieHeaders,
                    body: ["role": "teacher"]
                ).0 == .ok)
            #expect(
                try await Self.status(
                    client, "/api/classes/cohort-r/members/\(moderator.key)", .put, headers: teacher.cookieHeaders,
                    body: ["role": "moderator"]
                ).0 == .ok)
            #expect(try await Self.status(client, "/api/classes/cohort-r/leave", .post, headers: admin.cookieHeaders).0 == .ok)

            // A student changes neither roles nor settings, nor moderates.
            let refused = try await Self.status(
                client, "/api/classes/cohort-r/members/\(student.key)", .put, headers: student.cookieHeaders,
                body: ["role": "teacher"])
            #expect(refused.0 == .forbidden)
            #expect(
                try await Self.status(
                    client, "/api/classes/cohort-r", .patch, headers: student.cookieHeaders,
                    body: ["visibility": "public"]
                ).0 == .forbidden)
            let posted = try await Self.post(client, student, prefix: "/c/cohort-r", place: "Lagos")
            let id = try posted.json["objectId"] as! String
            #expect(
                try await Self.status(
                    client, "/c/cohort-r/api/admin/locations/\(id)/hide", .post, headers: student.cookieHeaders,
                    body: ["reason": "no"]
                ).0 == .forbidden)
            // A moderator hides and shows, but does not change settings.
            #expect(
                try await Self.status(
                    client, "/c/cohort-r/api/admin/locations/\(id)/hide", .post, headers: moderator.cookieHeaders,
                    body: ["reason": "Not a real place"]
                ).0 == .ok)
            #expect(try await Self.status(client, "/c/cohort-r/api/admin/moderation", headers: moderator.cookieHeaders).0 == .ok)
            #expect(
                try await Self.status(client, "/api/admin/moderation", headers: moderator.cookieHeaders).0 == .forbidden,
                "a moderator of one class moderates only that class")
            #expect(
                try await Self.status(
                    client, "/api/classes/cohort-r", .patch, headers: moderator.cookieHeaders,
                    body: ["name": "Mine now"]
                ).0 == .forbidden)
            // A teacher changes settings.
            let changed = try await Self.status(
                client, "/api/classes/cohort-r", .patch, headers: teacher.cookieHeaders,
                body: ["name": "Cohort R, spring", "join": "closed"])
            #expect(changed.0 == .ok)
            #expect(changed.1["name"] as? String == "Cohort R, spring")
            #expect(changed.1["join"] as? String == "closed")

            // The last teacher can neither leave nor be demoted nor removed; nothing changes.
            #expect(try await Self.status(client, "/api/classes/cohort-r/leave", .post, headers: teacher.cookieHeaders).0 == .conflict)
            #expect(
                try await Self.status(
                    client, "/api/classes/cohort-r/members/\(teacher.key)", .put, headers: teacher.cookieHeaders,
                    body: ["role": "student"]
                ).0 == .conflict)
            #expect(
                try await Self.status(client, "/api/classes/cohort-r/members/\(teacher.key)", .delete, headers: teacher.cookieHeaders).0
                    == .conflict)
            let roster = try await Self.status(client, "/api/classes/cohort-r/members", headers: teacher.cookieHeaders)
            let roles = (roster.1["members"] as? [[String: Any]])?.map { $0["role"] as? String }
            #expect(roles == ["teacher", "moderator", "student"])
            #expect((roster.1["members"] as? [[String: Any]])?.allSatisfy { $0["email"] is String } == true)
            // A moderator reads the roster's names and roles, not its email addresses.
            let seenByModerator = try await Self.status(client, "/api/classes/cohort-r/members", headers: moderator.cookieHeaders)
            #expect((seenByModerator.1["members"] as? [[String: Any]])?.count == 3)
            #expect((seenByModerator.1["members"] as? [[String: Any]])?.contains { $0["email"] != nil } == false)
            #expect(try await Self.status(client, "/api/classes/cohort-r/members", headers: student.cookieHeaders).0 == .forbidden)

            // A student who leaves is off the roster and off the map.
            #expect(try await Self.status(client, "/api/classes/cohort-r/leave", .post, headers: student.cookieHeaders).0 == .ok)
            let after = try await Self.status(client, "/c/cohort-r/parse/classes/StudentLocation", headers: teacher.parseHeaders)
            #expect((after.1["results"] as? [[String: Any]])?.isEmpty == true)
            #expect(
                try await Self.status(client, "/c/cohort-r/parse/classes/StudentLocation", headers: student.parseHeaders).0 == .forbidden)
        }
    }

    @Test("the invite flow: a wrong or revoked code changes nothing; a new link stops the old one; a closed class takes nobody")
    func invites() async throws {
        try await withTestServer { client in
            let admin = try await client.makeUser()
            let student = try await client.makeUser()
            let made = try await Self.makeClass(client, by: admin, slug: "cohort-i")
            let first = try #require(made["invite_code"] as? String)
            #expect((made["invite_path"] as? String) == "/#/join/cohort-i/\(first)")

            // Before joining: the class shows itself only with its code.
            #expect(try await Self.status(client, "/api/classes/cohort-i", headers: student.cookieHeaders).0 == .forbidden)
            let preview = try await Self.status(client, "/api/classes/cohort-i?code=\(first)", headers: student.cookieHeaders)
            #expect(preview.0 == .ok)
            #expect(preview.1["invite_code"] == nil, "only teachers see the invite code")

            let wrong = try await Self.join(client, student, slug: "cohort-i", code: "not-the-code")
            #expect(wrong.status == .forbidden)
            #expect(try (wrong.json["error"] as? [String: Any])?["code"] as? String == "invalid_invite")
            #expect(
                try await Self.status(client, "/c/cohort-i/parse/classes/StudentLocation", headers: student.parseHeaders).0 == .forbidden)

            let renewed = try await Self.status(client, "/api/classes/cohort-i/invite", .post, headers: admin.cookieHeaders)
            let second = try #require(renewed.1["invite_code"] as? String)
            #expect(second != first)
            #expect(try await Self.join(client, student, slug: "cohort-i", code: first).status == .forbidden, "the old link stopped")
            #expect(try await Self.status(client, "/api/classes/cohort-i/invite", .delete, headers: admin.cookieHeaders).0 == .ok)
            #expect(try await Self.join(client, student, slug: "cohort-i", code: second).status == .forbidden, "no link works once revoked")

            _ = try await Self.status(client, "/api/classes/cohort-i/invite", .post, headers: admin.cookieHeaders)
            let third = try await Self.status(client, "/api/classes/cohort-i", headers: admin.cookieHeaders).1["invite_code"] as? String
            let joined = try await Self.join(client, student, slug: "cohort-i", code: third)
            #expect(joined.status == .ok)
            #expect(try joined.json["role"] as? String == "student")
            #expect(try await Self.status(client, "/c/cohort-i/parse/classes/StudentLocation", headers: student.parseHeaders).0 == .ok)

            // A closed class: nobody joins by themself, even with a code.
            _ = try await Self.makeClass(client, by: admin, slug: "cohort-c", join: "closed")
            let closed = try await Self.join(client, student, slug: "cohort-c", code: nil)
            #expect(closed.status == .forbidden)
            #expect(try (closed.json["error"] as? [String: Any])?["code"] as? String == "join_closed")
            // An open class: anyone of the server.
            _ = try await Self.makeClass(client, by: admin, slug: "cohort-o", join: "open")
            #expect(try await Self.status(client, "/c/cohort-o/parse/classes/StudentLocation", headers: student.parseHeaders).0 == .ok)
            let mine = try await Self.status(client, "/api/classes", headers: student.cookieHeaders)
            #expect((mine.1["classes"] as? [[String: Any]])?.compactMap { $0["slug"] as? String } == ["main", "cohort-i"])
            #expect((mine.1["joinable"] as? [[String: Any]])?.compactMap { $0["slug"] as? String } == ["cohort-o"])
        }
    }

    @Test("slugs and bodies a class refuses, each with a clear error that changes nothing")
    func badInput() async throws {
        try await withTestServer { client in
            let admin = try await client.makeUser()
            let student = try await client.makeUser()
            for (slug, code) in [
                ("x", "invalid_slug"), ("api", "invalid_slug"), ("Upper", "invalid_slug"), ("-lead", "invalid_slug"),
                (String(repeating: "a", count: 41), "invalid_slug"), ("has space", "invalid_slug"),
            ] {
                let answer = try await Self.status(
                    client, "/api/classes", .post, headers: admin.cookieHeaders, body: ["slug": slug, "name": "N"])
                #expect(answer.0 == .badRequest, "\(slug)")
                #expect((answer.1["error"] as? [String: Any])?["code"] as? String == code, "\(slug)")
            }
            _ = try await Self.makeClass(client, by: admin, slug: "taken")
            #expect(
                try await Self.status(
                    client, "/api/classes", .post, headers: admin.cookieHeaders,
                    body: ["slug": "taken", "name": "Again"]
                ).0 == .conflict)
            #expect(
                try await Self.status(
                    client, "/api/classes", .post, headers: admin.cookieHeaders,
                    body: ["slug": "fine", "visibility": "everyone"]
                ).0 == .badRequest)
            #expect(
                try await Self.status(
                    client, "/api/classes", .post, headers: student.cookieHeaders,
                    body: ["slug": "mine", "name": "Mine"]
                ).0 == .forbidden, "only administrators create classes by default")
            let listed = try await Self.status(client, "/api/classes", headers: admin.cookieHeaders)
            #expect((listed.1["classes"] as? [[String: Any]])?.compactMap { $0["slug"] as? String } == ["main", "taken"])
        }
    }

    @Test("an unknown class is a 404 in each protocol's format")
    func unknownClass() async throws {
        try await withTestServer { client in
            let parse = try await Self.status(client, "/c/nowhere/parse/classes/StudentLocation")
            #expect(parse.0 == .notFound)
            #expect(parse.1["code"] as? Int == 101)
            let api = try await Self.status(client, "/c/nowhere/api/locations/snapshot")
            #expect((api.1["error"] as? [String: Any])?["code"] as? String == "unknown_class")
            try await client.execute(
                uri: "/c/nowhere/api/session", method: .post,
                body: jsonBody(["udacity": ["username": "a@b.co", "password": "x"]])
            ) { response throws in
                #expect(response.status == .notFound)
                #expect(try response.udacityJSON["status"] as? Int == 404)
            }
            #expect(try await Self.status(client, "/api/classes/nowhere", headers: [:]).0 == .notFound)
            #expect(try await Self.status(client, "/c/BAD%20SLUG/v1/StudentLocation").0 == .notFound)
        }
    }

    @Test("under /c/<slug> every old client's route answers exactly as the unprefixed one does")
    func prefixAnswersTheSame() async throws {
        try await withTestServer { client in
            _ = try await client.makeUser(email: "first@example.com")
            let user = try await client.makeUser(email: "ada@example.com")
            try await client.postLocation(user)
            func body(_ uri: String, _ method: HTTPRequest.Method = .get, headers: HTTPFields, _ send: Any? = nil) async throws -> (
                HTTPResponse.Status, String
            ) {
                try await client.execute(uri: uri, method: method, headers: headers, body: send.map(jsonBody)) { ($0.status, $0.text) }
            }
            let login: [String: Any] = ["udacity": ["password": "no username"]]
            for prefix in ["/api", "/v1"] {
                let plain = try await body("\(prefix)/session", .post, headers: [:], login)
                let classed = try await body("/c/main\(prefix)/session", .post, headers: [:], login)
                #expect(plain == classed, "\(prefix)/session")
                let user1 = try await body("\(prefix)/users/\(user.key)", headers: user.cookieHeaders)
                let user2 = try await body("/c/main\(prefix)/users/\(user.key)", headers: user.cookieHeaders)
                #expect(user1 == user2 && user1.0 == .ok, "\(prefix)/users")
            }
            for path in [
                "/parse/classes/StudentLocation?limit=5&order=-updatedAt", "/v1/StudentLocation?uniqueKey=\(user.key)",
                "/parse/classes/StudentLocation?where=%7B%22bad", "/v1/StudentLocation?limit=abc",
            ] {
                let plain = try await body(path, headers: user.parseHeaders)
                let classed = try await body("/c/main" + path, headers: user.parseHeaders)
                #expect(plain == classed, "\(path)")
            }
            let anonymous = try await body("/parse/classes/StudentLocation", headers: parseHeaders)
            #expect(anonymous == (try await body("/c/main/parse/classes/StudentLocation", headers: parseHeaders)))
            #expect(anonymous.0 == .unauthorized)
        }
    }

    @Test("snapshots are kept for the classes being read, within a bound on their locations together")
    func snapshotsKeptWithinBounds() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = testConfiguration(dataDirectory: directory)
        let store = try await SQLStore.open(url: configuration.resolvedDatabaseURL, logger: testLogger)
        for (index, classId) in ["class-a", "class-a", "class-a", "class-b", "class-b", "class-b"].enumerated() {
            try await store.insertLocation(
                StoredLocation(
                    record: StudentInformation(
                        objectId: "row\(index)", uniqueKey: "k", firstName: "F", lastName: "L", mapString: "M",
                        mediaURL: "https://x.example",
                        latitude: 1, longitude: 1, createdAt: "2024-01-01T00:00:00.000Z", updatedAt: "2024-01-01T00:00:00.000Z"
                    ), ownerKey: nil, classId: classId))
        }
        var settings = LiveLocations.Settings()
        settings.keptLocations = 4
        let live = LiveLocations(store: store, settings: settings, logger: testLogger)
        try await live.start()
        #expect(try await live.snapshot(classId: "class-a").count == 3)
        #expect(try await live.snapshot(classId: "class-b").count == 3)
        #expect(live.keptClassMapCount == 1, "six locations do not fit in four: the older class's snapshot went")
        #expect(try await live.snapshot(classId: "class-a").count == 3, "and is read again when asked for")
        live.finishAll()
        try await store.close()
    }

    @Test("each class's viewers hear its changes and no other class's")
    func liveChangesStayInTheirClass() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = testConfiguration(dataDirectory: directory)
        let store = try await SQLStore.open(url: configuration.resolvedDatabaseURL, logger: testLogger)
        let live = LiveLocations(store: store, logger: testLogger)
        try await live.start()
        guard case .stream(_, let inA) = live.subscribe(since: live.version, classId: "class-a", reader: nil),
            case .stream(_, let inB) = live.subscribe(since: live.version, classId: "class-b", reader: nil)
        else { throw TestFailure("not subscribed") }
        let base = live.version
        live.publish([
            LocationChange(version: base + 1, kind: .deleted, objectId: "gone-a", record: nil, classId: "class-a"),
            LocationChange(version: base + 2, kind: .deleted, objectId: "gone-b", record: nil, classId: "class-b"),
            LocationChange(version: base + 3, kind: .deleted, objectId: "gone-a2", record: nil, classId: "class-a"),
        ])
        live.finishAll()
        var heardA: [Int64] = []
        var heardB: [Int64] = []
        for await frame in inA { if let version = frame.version { heardA.append(version) } }
        for await frame in inB { if let version = frame.version { heardB.append(version) } }
        #expect(heardA == [base + 1, base + 3])
        #expect(heardB == [base + 2])
        // A viewer of class B resuming from before class A's changes misses nothing, and hears none of them.
        try await store.close()
    }
}

/// A class's precision: below `exact` the server stores and shows a place of the gazetteer,
/// never the point or the text that was posted, through every protocol and table.
@Suite("Class precision")
struct ClassPrecisionTests {
    /// A street corner in Springfield, Illinois, typed as a street address.
    static var street: [String: Any] {
        [
            "firstName": "Ada", "lastName": "L", "mapString": "12 Elm Street, Springfield", "mediaURL": "https://example.com/ada",
            "latitude": 39.7817, "longitude": -89.6712,
        ]
    }

    @Test("a street-level point in a city class is stored and read back at the city, in both protocols, the snapshot and the change log")
    func cityClass() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = testConfiguration(dataDirectory: directory)
        let app = try await buildApplication(configuration: configuration, logger: testLogger)
        let inspector = try await SQLStore.open(url: configuration.resolvedDatabaseURL, logger: testLogger)
        try await app.test(.router) { client in
            let admin = try await client.makeUser()
            let student = try await client.makeUser()
            let made = try await ClassTests.makeClass(client, by: admin, slug: "cohort-p")
            #expect(made["precision"] as? String == "city", "a new class shows cities")
            _ = try await ClassTests.join(client, student, slug: "cohort-p", code: made["invite_code"] as? String)

            var ids: [String] = []
            for path in ["/c/cohort-p/parse/classes/StudentLocation", "/c/cohort-p/v1/StudentLocation"] {
                let created = try await ClassTests.status(client, path, .post, headers: student.parseHeaders, body: Self.street)
                #expect(created.0 == .created, "\(path)")
                ids.append(try #require(created.1["objectId"] as? String))
            }
            // Moving it: still the city, whatever the new street.
            var moved = Self.street
            moved["latitude"] = 39.78
            moved["mapString"] = "3 Oak Lane, Springfield"
            #expect(
                try await ClassTests.status(
                    client, "/c/cohort-p/parse/classes/StudentLocation/\(ids[0])", .put,
                    headers: student.parseHeaders, body: moved
                ).0 == .ok)
            for id in ids {
                let record = try await ClassTests.status(
                    client, "/c/cohort-p/parse/classes/StudentLocation/\(id)", headers: student.parseHeaders
                ).1
                #expect(record["mapString"] as? String == "Springfield, Illinois, United States")
                let latitude = try #require(record["latitude"] as? Double)
                let longitude = try #require(record["longitude"] as? Double)
                #expect(abs(latitude - 39.7817) > 0.001 || abs(longitude + 89.6712) > 0.001, "not the posted point")
                #expect(abs(latitude - 39.80) < 0.1 && abs(longitude + 89.64) < 0.1, "Springfield's own point")
            }
            let snapshot = try await ClassTests.status(client, "/c/cohort-p/api/locations/snapshot", headers: student.cookieHeaders).1
            #expect(
                (snapshot["locations"] as? [[String: Any]])?.allSatisfy {
                    $0["mapString"] as? String == "Springfield, Illinois, United States"
                } == true)

            // Nothing the student typed or posted is in any row or logged change.
            let classId = try #require(try await inspector.mapClass(slug: "cohort-p")).id
            let rows = try await inspector.locations(LocationQuery(), in: classId)
            let changes = try await inspector.locationChanges(after: 0, limit: 1000).filter { $0.classId == classId }
            for record in rows + changes.compactMap(\.record) {
                #expect(!record.mapString.contains("Elm") && !record.mapString.contains("Oak"))
                #expect(record.latitude != 39.7817 && record.latitude != 39.78)
            }
            #expect(changes.count == ids.count, "the log keeps each record's newest change only")

            // Before posting, an app asks where the class would show the point.
            let preview = try await ClassTests.status(
                client, "/c/cohort-p/api/locations/placement?latitude=39.7817&longitude=-89.6712",
                headers: student.cookieHeaders)
            #expect(preview.1["name"] as? String == "Springfield, Illinois, United States")
            #expect(preview.1["precision"] as? String == "city")
            let exact = try await ClassTests.status(
                client, "/api/locations/placement?latitude=39.7817&longitude=-89.6712", headers: student.cookieHeaders)
            #expect(exact.1["name"] == nil && exact.1["latitude"] as? Double == 39.7817, "the default class shows the point itself")
            #expect(
                try await ClassTests.status(
                    client, "/c/cohort-p/api/locations/placement?latitude=-48.87&longitude=-123.39",
                    headers: student.cookieHeaders
                ).0 == .unprocessableContent)
            #expect(
                try await ClassTests.status(
                    client, "/c/cohort-p/api/locations/placement?latitude=91&longitude=0",
                    headers: student.cookieHeaders
                ).0 == .badRequest)
            #expect(try await ClassTests.status(client, "/c/cohort-p/api/locations/placement?latitude=1&longitude=1").0 == .unauthorized)

            // A point far from any town: refused, nothing stored.
            var sea = Self.street
            sea["latitude"] = -48.87
            sea["longitude"] = -123.39
            let refused = try await ClassTests.status(
                client, "/c/cohort-p/parse/classes/StudentLocation", .post, headers: student.parseHeaders, body: sea)
            #expect(refused.0 == .badRequest)
            #expect(refused.1["code"] as? Int == 142)
            #expect(try await inspector.countLocations(.always, in: classId) == 2)

            // Coarser: the posts move to their country at once, and the log forgets the cities.
            let changed = try await ClassTests.status(
                client, "/api/classes/cohort-p", .patch, headers: admin.cookieHeaders,
                body: ["precision": "country"])
            #expect(changed.1["precision"] as? String == "country")
            let list = try await ClassTests.status(client, "/c/cohort-p/parse/classes/StudentLocation", headers: student.parseHeaders).1
            #expect((list["results"] as? [[String: Any]])?.map { $0["mapString"] as? String } == ["United States", "United States"])
            let logged = try await inspector.locationChanges(after: 0, limit: 1000).filter { $0.classId == classId }
            #expect(logged.allSatisfy { $0.record.map { $0.mapString == "United States" } ?? true }, "\(logged)")
            // Finer again: what was never kept stays the country.
            _ = try await ClassTests.status(
                client, "/api/classes/cohort-p", .patch, headers: admin.cookieHeaders, body: ["precision": "exact"])
            let after = try await ClassTests.status(client, "/c/cohort-p/parse/classes/StudentLocation", headers: student.parseHeaders).1
            #expect((after["results"] as? [[String: Any]])?.map { $0["mapString"] as? String } == ["United States", "United States"])

            // The default class keeps exact points.
            let main = try #require(try await inspector.mapClass(slug: "main"))
            #expect(main.precision == .exact)
        }
        try await inspector.close()
    }
}

/// A class's approval queue: a waiting post is its author's and the moderators' only, through
/// both protocols, counts, the snapshot and the change stream, until a moderator approves it.
@Suite("Class approval")
struct ClassApprovalTests {
    static func list(_ client: some TestClientProtocol, _ user: TestUser, _ query: String = "") async throws -> [String] {
        let answer = try await ClassTests.status(client, "/c/cohort-q/parse/classes/StudentLocation\(query)", headers: user.parseHeaders).1
        return (answer["results"] as? [[String: Any]])?.compactMap { $0["objectId"] as? String } ?? []
    }

    @Test("new members' first posts wait; the author sees theirs, other members do not, until a moderator approves it")
    func newMembers() async throws {
        try await withTestServer { client in
            let admin = try await client.makeUser()
            let student = try await client.makeUser()
            let classmate = try await client.makeUser()
            let made = try await ClassTests.makeClass(client, by: admin, slug: "cohort-q", precision: "exact")
            _ = try await ClassTests.status(
                client, "/api/classes/cohort-q", .patch, headers: admin.cookieHeaders, body: ["approval": "new-members"])
            for user in [student, classmate] {
                _ = try await ClassTests.join(client, user, slug: "cohort-q", code: made["invite_code"] as? String)
            }

            // Old clients get the answers they always got for their own post.
            let created = try await ClassTests.post(client, student, prefix: "/c/cohort-q", place: "Quito")
            #expect(created.status == .created)
            let id = try created.json["objectId"] as! String
            let mine = "?where=%7B%22uniqueKey%22%3A%22\(student.key)%22%7D"
            #expect(try await Self.list(client, student, mine) == [id], "the author finds their own post")
            #expect(
                try await ClassTests.status(
                    client, "/c/cohort-q/v1/StudentLocation?uniqueKey=\(student.key)", headers: student.parseHeaders
                )
                .1["results"].map { ($0 as? [Any])?.count } == 1)
            #expect(
                try await ClassTests.status(client, "/c/cohort-q/parse/classes/StudentLocation/\(id)", headers: student.parseHeaders).0
                    == .ok)
            #expect(
                try await ClassTests.status(client, "/c/cohort-q/api/account", headers: student.cookieHeaders).1["has_waiting_post"]
                    as? Bool == true)

            // Nobody else: not listed, counted, found, reported or on the live map.
            #expect(try await Self.list(client, classmate).isEmpty)
            #expect(try await Self.list(client, classmate, mine).isEmpty)
            #expect(
                try await ClassTests.status(
                    client, "/c/cohort-q/parse/classes/StudentLocation?count=1&limit=0", headers: classmate.parseHeaders
                )
                .1["count"] as? Int == 0)
            #expect(
                try await ClassTests.status(client, "/c/cohort-q/parse/classes/StudentLocation/\(id)", headers: classmate.parseHeaders).0
                    == .notFound)
            #expect(
                try await ClassTests.status(
                    client, "/c/cohort-q/api/locations/\(id)/report", .post, headers: classmate.cookieHeaders,
                    body: ["reason": "x"]
                ).0 == .notFound)
            let snapshot = try await ClassTests.status(client, "/c/cohort-q/api/locations/snapshot", headers: classmate.cookieHeaders).1
            #expect((snapshot["locations"] as? [Any])?.isEmpty == true)

            // The class's moderators see it waiting, and approve it.
            let waiting = try await ClassTests.status(client, "/c/cohort-q/api/admin/moderation?view=waiting", headers: admin.cookieHeaders)
                .1
            #expect((waiting["locations"] as? [[String: Any]])?.map { ($0["location"] as? [String: Any])?["objectId"] as? String } == [id])
            #expect(
                try await ClassTests.status(
                    client, "/c/cohort-q/api/admin/locations/\(id)/approve", .post, headers: classmate.cookieHeaders
                ).0 == .forbidden)
            #expect(
                try await ClassTests.status(client, "/c/cohort-q/api/admin/locations/\(id)/approve", .post, headers: admin.cookieHeaders).0
                    == .ok)
            #expect(try await Self.list(client, classmate) == [id])
            let again = try await ClassTests.status(client, "/c/cohort-q/api/locations/snapshot", headers: classmate.cookieHeaders).1
            #expect((again["locations"] as? [[String: Any]])?.map { $0["objectId"] as? String } == [id])
            #expect(
                try await ClassTests.status(client, "/c/cohort-q/api/admin/locations/\(id)/approve", .post, headers: admin.cookieHeaders).0
                    == .notFound,
                "approved once")

            // An approved member posts at once from then on.
            let second = try await ClassTests.post(client, student, prefix: "/c/cohort-q", place: "Cuenca")
            #expect(try await Self.list(client, classmate).contains(try second.json["objectId"] as! String))
        }
    }

    @Test("in an all-posts class a move waits again, and a rejected post is gone with the reason told to its author")
    func allPosts() async throws {
        try await withTestServer { client in
            let admin = try await client.makeUser()
            let student = try await client.makeUser()
            let made = try await ClassTests.makeClass(client, by: admin, slug: "cohort-q", precision: "exact")
            _ = try await ClassTests.status(
                client, "/api/classes/cohort-q", .patch, headers: admin.cookieHeaders, body: ["approval": "all"])
            _ = try await ClassTests.join(client, student, slug: "cohort-q", code: made["invite_code"] as? String)
            let id = try await ClassTests.post(client, student, prefix: "/c/cohort-q", place: "Lima").json["objectId"] as! String
            _ = try await ClassTests.status(client, "/c/cohort-q/api/admin/locations/\(id)/approve", .post, headers: admin.cookieHeaders)
            #expect(try await Self.list(client, admin) == [id])
            // A move waits again: gone for everyone else until approved.
            #expect(
                try await ClassTests.status(
                    client, "/c/cohort-q/parse/classes/StudentLocation/\(id)", .put, headers: student.parseHeaders,
                    body: ["mapString": "Cusco", "latitude": -13.53, "longitude": -71.97]
                ).0 == .ok)
            let others = try await ClassTests.status(
                client, "/c/cohort-q/parse/classes/StudentLocation?count=1", headers: admin.parseHeaders
            ).1
            #expect(others["count"] as? Int == 0, "the administrator reads only what is approved, like every reader")
            #expect(try await Self.list(client, student) == [id])
            // Rejected: deleted, and the author is told why.
            #expect(
                try await ClassTests.status(
                    client, "/c/cohort-q/api/admin/locations/\(id)/reject", .post, headers: admin.cookieHeaders,
                    body: ["reason": "Please post your town, not a landmark."]
                ).0 == .ok)
            #expect(try await Self.list(client, student).isEmpty)
            let notices =
                try await ClassTests.status(client, "/c/cohort-q/api/account", headers: student.cookieHeaders).1["notices"]
                as? [[String: Any]]
            #expect(notices?.first?["action"] as? String == "reject")
            #expect(notices?.first?["reason"] as? String == "Please post your town, not a landmark.")
        }
    }
}

/// End of term: an archived class is read-only for everyone; a deleted one is gone with its map.
@Suite("Class end of term")
struct ClassEndOfTermTests {
    @Test("archived: read as before, nobody posts, moves, deletes or joins; deleted: its map, roster and link are gone")
    func archiveThenDelete() async throws {
        try await withTestServer { client in
            let admin = try await client.makeUser()
            let student = try await client.makeUser()
            let newcomer = try await client.makeUser()
            let made = try await ClassTests.makeClass(client, by: admin, slug: "cohort-e", precision: "exact")
            let code = made["invite_code"] as? String
            _ = try await ClassTests.join(client, student, slug: "cohort-e", code: code)
            let id = try await ClassTests.post(client, student, prefix: "/c/cohort-e", place: "Oslo").json["objectId"] as! String

            let archived = try await ClassTests.status(
                client, "/api/classes/cohort-e", .patch, headers: admin.cookieHeaders, body: ["archived": true])
            #expect(archived.1["archived"] as? Bool == true)
            let list = try await ClassTests.status(client, "/c/cohort-e/parse/classes/StudentLocation", headers: student.parseHeaders).1
            #expect((list["results"] as? [[String: Any]])?.count == 1, "posts are kept and read")
            #expect(try await ClassTests.post(client, student, prefix: "/c/cohort-e", place: "Bergen").status == .forbidden)
            #expect(
                try await ClassTests.status(
                    client, "/c/cohort-e/parse/classes/StudentLocation/\(id)", .put, headers: student.parseHeaders,
                    body: ["mapString": "Moved"]
                ).0 == .forbidden)
            #expect(
                try await ClassTests.status(
                    client, "/c/cohort-e/parse/classes/StudentLocation/\(id)", .delete, headers: student.parseHeaders
                ).0 == .forbidden)
            #expect(try await ClassTests.join(client, newcomer, slug: "cohort-e", code: code).status == .forbidden)
            let unchanged = try await ClassTests.status(
                client, "/c/cohort-e/parse/classes/StudentLocation/\(id)", headers: student.parseHeaders
            ).1
            #expect(unchanged["mapString"] as? String == "Oslo")
            // Open to anyone, but archived: not offered to join.
            #expect(
                try await ClassTests.status(client, "/api/classes/cohort-e", .patch, headers: admin.cookieHeaders, body: ["join": "open"]).0
                    == .ok)
            let offered = try await ClassTests.status(client, "/api/classes", headers: newcomer.cookieHeaders).1
            #expect((offered["joinable"] as? [[String: Any]])?.contains { $0["slug"] as? String == "cohort-e" } == false)

            // Deleting needs the slug as confirmation, never the default class, and only a teacher.
            #expect(
                try await ClassTests.status(
                    client, "/api/classes/cohort-e", .delete, headers: student.cookieHeaders,
                    body: ["confirm": "cohort-e"]
                ).0 == .forbidden)
            #expect(
                try await ClassTests.status(client, "/api/classes/cohort-e", .delete, headers: admin.cookieHeaders, body: [:]).0
                    == .badRequest)
            #expect(
                try await ClassTests.status(client, "/api/classes/main", .delete, headers: admin.cookieHeaders, body: ["confirm": "main"]).0
                    == .conflict)
            #expect(
                try await ClassTests.status(
                    client, "/api/classes/cohort-e", .delete, headers: admin.cookieHeaders, body: ["confirm": "cohort-e"]
                ).0 == .ok)
            #expect(
                try await ClassTests.status(client, "/c/cohort-e/parse/classes/StudentLocation", headers: student.parseHeaders).0
                    == .notFound)
            #expect(try await ClassTests.status(client, "/api/classes/cohort-e", headers: admin.cookieHeaders).0 == .notFound)
            let mine = try await ClassTests.status(client, "/api/classes", headers: student.cookieHeaders).1
            #expect((mine["classes"] as? [[String: Any]])?.compactMap { $0["slug"] as? String } == ["main"])
        }
    }
}
