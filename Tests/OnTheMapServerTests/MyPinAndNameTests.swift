import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import OnTheMapServer

/// A student's control of their own pin and name (`PUT /api/account/name`, deleting their own
/// post), on the database `TestDatabases` picks (SQLite, or PostgreSQL in CI).
@Suite("My pin and my name")
struct MyPinAndNameTests {
    static func rename(_ client: some TestClientProtocol, _ user: TestUser, _ body: Any) async throws -> (
        HTTPResponse.Status, [String: Any]
    ) {
        try await ClassTests.status(client, "/api/account/name", .put, headers: user.cookieHeaders, body: body)
    }

    static func names(_ results: [[String: Any]], _ objectId: String) -> String? {
        results.first { $0["objectId"] as? String == objectId }.map { "\($0["firstName"] ?? "") \($0["lastName"] ?? "")" }
    }

    static func search(_ client: some TestClientProtocol, _ text: String, prefix: String = "") async throws -> Set<String> {
        try await client.execute(uri: "\(prefix)/api/locations/search?q=\(text)", method: .get) { response throws in
            guard response.status == .ok else { throw TestFailure("search failed: \(response.status) \(response.text)") }
            return Set((try response.json["results"] as? [[String: Any]] ?? []).compactMap { $0["objectId"] as? String })
        }
    }

    @Test("a new name reaches the account and every post of theirs in every class at once: Parse list, search, snapshot")
    func rename() async throws {
        try await withTestServer(mode: .live, defaultClass: .public) { client in
            let ana = try await client.makeUser()
            _ = try await ClassTests.makeClass(client, by: ana, slug: "geo", visibility: "public", join: "open")
            let mine = try await client.postLocation(ana)
            let (created, answer) = try await ClassTests.status(
                client, "/c/geo/parse/classes/StudentLocation", .post, headers: ana.parseHeaders,
                body: [
                    "firstName": "Ada", "lastName": "Lovelace", "mapString": "Lagos", "mediaURL": "", "latitude": 6.45, "longitude": 3.39,
                ])
            #expect(created == .created)
            let mineInGeo = try #require(answer["objectId"] as? String)
            let ben = try await client.makeUser()
            let bens = try await client.postLocation(ben)
            // The answers are cached now: the rename must drop them.
            #expect(Self.names(try await client.list("?limit=10")["results"] as! [[String: Any]], mine) == "Ada Lovelace")
            #expect(try await Self.search(client, "lovelace") == [mine, bens])

            let (status, renamed) = try await Self.rename(client, ana, ["first_name": "  Adèle ", "last_name": "Müller"])
            #expect(status == .ok)
            #expect(renamed["first_name"] as? String == "Adèle")
            #expect(renamed["last_name"] as? String == "Müller")

            let list = try await client.list("?limit=10")["results"] as! [[String: Any]]
            #expect(Self.names(list, mine) == "Adèle Müller")
            #expect(Self.names(list, bens) == "Ada Lovelace", "only the renamed account's posts change")
            let (_, geo) = try await ClassTests.status(client, "/c/geo/parse/classes/StudentLocation?limit=10")
            #expect(Self.names(geo["results"] as? [[String: Any]] ?? [], mineInGeo) == "Adèle Müller", "in every class")
            // The search words follow the name.
            #expect(try await Self.search(client, "muller") == [mine])
            #expect(try await Self.search(client, "adele") == [mine])
            #expect(try await Self.search(client, "lovelace") == [bens])
            #expect(try await Self.search(client, "muller", prefix: "/c/geo") == [mineInGeo])
            // The live map's snapshot and the account itself.
            let snapshot = try await LiveMapTests.snapshot(client).locations
            #expect(Self.names(snapshot, mine) == "Adèle Müller")
            try await client.execute(uri: "/api/account", method: .get, headers: ana.cookieHeaders) { response throws in
                let account = try #require(try response.json["account"] as? [String: Any])
                #expect(account["first_name"] as? String == "Adèle")
            }
        }
    }

    @Test("a name outside sign-up's rules is refused in our API's error format, and nothing changes")
    func badNames() async throws {
        try await withTestServer { client in
            let ana = try await client.makeUser()
            let mine = try await client.postLocation(ana)
            let tooLong = String(repeating: "a", count: AccountController.maximumNameLength + 1)
            for (first, last) in [
                ("", "Müller"), ("Ada", "  "), (tooLong, "B"), ("Ada\u{202E}", "B"), ("Ada", "Line\nbreak"), ("A\u{7}", "B"),
            ] {
                let (status, body) = try await Self.rename(client, ana, ["first_name": first, "last_name": last])
                #expect(status == .badRequest)
                let error = try #require(body["error"] as? [String: Any])
                #expect(error["code"] as? String == "invalid_name")
                #expect((error["message"] as? String)?.isEmpty == false)
            }
            let (status, body) = try await Self.rename(client, ana, ["first_name": 1])
            #expect(status == .badRequest)
            #expect((body["error"] as? [String: Any])?["code"] as? String == "invalid_body")
            let list = try await client.list("?limit=10", headers: ana.parseHeaders)["results"] as! [[String: Any]]
            #expect(Self.names(list, mine) == "Ada Lovelace")
            let (anonymous, _) = try await ClassTests.status(
                client, "/api/account/name", .put, headers: [:], body: ["first_name": "Eve", "last_name": "X"])
            #expect(anonymous == .unauthorized)
        }
    }

    @Test("a student removes their own post (it leaves lists and the snapshot), and only their own")
    func remove() async throws {
        try await withTestServer(mode: .live, defaultClass: .public) { client in
            let ana = try await client.makeUser()
            let ben = try await client.makeUser()
            let mine = try await client.postLocation(ana)
            let bens = try await client.postLocation(ben)
            #expect(try await client.count() == 2)
            let (refused, _) = try await ClassTests.status(
                client, "/parse/classes/StudentLocation/\(bens)", .delete, headers: ana.parseHeaders)
            #expect(refused != .ok, "never someone else's")
            let (removed, _) = try await ClassTests.status(
                client, "/parse/classes/StudentLocation/\(mine)", .delete, headers: ana.parseHeaders)
            #expect(removed == .ok)
            let list = try await client.list("?limit=10")["results"] as! [[String: Any]]
            #expect(list.compactMap { $0["objectId"] as? String } == [bens])
            #expect(try await LiveMapTests.snapshot(client).locations.compactMap { $0["objectId"] as? String } == [bens])
            // Posting again later works.
            let again = try await client.postLocation(ana)
            #expect(try await client.count() == 2)
            #expect(again != mine)
        }
    }
}
