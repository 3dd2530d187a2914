import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import OnTheMapServer

/// `GET /api/locations/search`: what a classmate types finds people however their name and
/// place are written; the class's readers only; bad input refused in our API's format.
@Suite("Student search API")
struct StudentSearchAPITests {
    static func names(_ client: some TestClientProtocol, _ query: String, as user: TestUser? = nil) async throws -> [String] {
        let encoded = query.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(["&", "+", "="]))!
        return try await client.execute(uri: "/api/locations/search?q=\(encoded)", method: .get, headers: user?.cookieHeaders ?? [:]) {
            response throws in
            guard response.status == .ok else { throw TestFailure("search failed: \(response.status) \(response.text)") }
            let results = try response.json["results"] as! [[String: Any]]
            return results.map { "\($0["firstName"]!) \($0["lastName"]!)" }.sorted()
        }
    }

    @Test func foldsAndFindsAPlaceWrittenInAnyScript() async throws {
        try await withTestServer { client in
            let jonas = try await client.makeUser()
            try await client.postLocation(jonas, ["firstName": "Jonas", "lastName": "Müller", "mapString": "Berlin, Germany"])
            let ana = try await client.makeUser()
            try await client.postLocation(
                ana,
                ["firstName": "Ana", "lastName": "Souza", "mapString": "São Paulo, Brazil", "latitude": -23.55, "longitude": -46.63])
            let amira = try await client.makeUser()
            try await client.postLocation(
                amira, ["firstName": "Amira", "lastName": "Haddad", "mapString": "القاهرة، مصر", "latitude": 30.04, "longitude": 31.24])

            #expect(try await Self.names(client, "muller", as: ana) == ["Jonas Müller"])
            #expect(try await Self.names(client, "Sao Paulo", as: jonas) == ["Ana Souza"])
            #expect(try await Self.names(client, "SÃO", as: jonas) == ["Ana Souza"])
            // The place in another language or script finds those placed there.
            for berlin in ["برلين", "柏林", "Berlín", "BERLIN"] {
                #expect(try await Self.names(client, berlin, as: ana) == ["Jonas Müller"], "\(berlin)")
            }
            #expect(try await Self.names(client, "Cairo", as: jonas) == ["Amira Haddad"])
            #expect(try await Self.names(client, "ساو باولو", as: jonas) == ["Ana Souza"])
            #expect(try await Self.names(client, "nobody here", as: jonas) == [])
        }
    }

    @Test func readOnlyByTheClassReadersAndBadInputRefused() async throws {
        try await withTestServer { client in
            // A fresh server's class is members-only: nobody signed in reads it.
            try await client.execute(uri: "/api/locations/search?q=ada", method: .get) { response in
                #expect(response.status == .unauthorized || response.status == .forbidden)
            }
            let user = try await client.makeUser()
            for (query, code) in [
                ("", "missing_query"), ("q=a&limit=0", "invalid_limit"), ("q=a&skip=-1", "invalid_skip"),
                ("q=a&where=x", "unknown_parameter"), ("q=" + String(repeating: "a", count: 201), "query_too_long"),
            ] {
                try await client.execute(uri: "/api/locations/search?\(query)", method: .get, headers: user.cookieHeaders) { response in
                    #expect(response.status == .badRequest, "\(query)")
                    #expect(response.text.contains(code), "\(query): \(response.text)")
                }
            }
        }
    }
}
