import Foundation
import OnTheMapKit
import Synchronization
import Testing

/// `UdacityClient.login(facebookAccessToken:)` on the wire: the body old clients send, and
/// the three answers a server gives (the server side runs against a Graph API stub in
/// Tests/E2E/test_m_sign_in.py).
@Suite struct FacebookLoginTests {
    @Test func sendsTheFacebookMobileBodyAndKeepsTheSession() async throws {
        let seen = Mutex<[String: Any]?>(nil)
        let server = try StubServer(handler: { request in
            seen.withLock { $0 = request.json }
            guard request.method == "POST", request.path == "/api/session" else { return .json(404, "{}") }
            return .json(
                200,
                prefix
                    + #"{"account":{"registered":true,"key":"1234567890"},"session":{"id":"1700000000Sabc","expiration":"2030-01-01T00:00:00.000Z"}}"#,
                headers: [("Set-Cookie", "XSRF-TOKEN=xyz; Path=/")])
        })
        let client = UdacityClient(configuration: configuration(server.baseURL), sessionStore: SessionStore())
        let session = try await client.login(facebookAccessToken: "EAABtoken")
        #expect(session.accountKey == "1234567890" && session.sessionID == "1700000000Sabc")
        #expect(client.session == session)
        let body = try #require(seen.withLock { $0 })
        #expect(body.keys.sorted() == ["facebook_mobile"])
        #expect((body["facebook_mobile"] as? [String: String]) == ["access_token": "EAABtoken"])
    }

    @Test func refusedTokenIsBadCredentialsAndFacebookDownIsAServerFailure() async throws {
        let server = try StubServer(handler: { request in
            let token = (request.json?["facebook_mobile"] as? [String: String])?["access_token"]
            if token == "down" {
                return .json(502, prefix + #"{"status":502,"error":"Facebook could not be reached to check this login; try again later."}"#)
            }
            return .json(403, prefix + #"{"status":403,"error":"Account not found or invalid credentials."}"#)
        })
        let client = UdacityClient(configuration: configuration(server.baseURL), sessionStore: SessionStore())
        #expect(
            await failure { try await client.login(facebookAccessToken: "EAABunknown") }
                == .badCredentials(message: "Account not found or invalid credentials."))
        let down = await failure { try await client.login(facebookAccessToken: "down") }
        #expect(down == .serverFailure(status: 502, message: "Facebook could not be reached to check this login; try again later."))
        #expect(client.session == nil)
    }
}
