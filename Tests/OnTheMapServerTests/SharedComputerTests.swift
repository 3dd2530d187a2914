import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import OnTheMapModels
import Testing

@testable import OnTheMapServer

/// "This is a shared computer": a login that says so (`"shared_computer": true` beside the
/// credential), or any login on a server run with `--shared-computers`, gets browser-session
/// cookies (no `Max-Age`, no `Expires`), which end when the browser closes. Old clients never
/// send the field and their answers do not change.
@Suite("Shared computers")
struct SharedComputerTests {
    /// The `Set-Cookie` line for `name`, whole.
    static func setCookie(_ response: TestResponse, _ name: String) -> String? {
        response.headers[values: .setCookie].first { $0.hasPrefix("\(name)=") }
    }

    /// Whether the cookie outlives the browser (it carries an expiry).
    static func persists(_ line: String) -> Bool {
        let attributes = line.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return attributes.contains { $0.hasPrefix("max-age=") || $0.hasPrefix("expires=") }
    }

    static func logIn(_ client: any TestClientProtocol, _ body: [String: Any], prefix: String = "/api") async throws -> TestResponse {
        try await client.execute(uri: "\(prefix)/session", method: .post, headers: [.contentType: "application/json"], body: jsonBody(body))
    }

    @Test("the session and XSRF-TOKEN cookies end with the browser when the login says shared_computer", arguments: ["/api", "/v1"])
    func sharedLogin(prefix: String) async throws {
        try await withTestServer { client in
            let user = try await client.makeUser(email: "alice@example.com")
            let credential = ["username": "alice@example.com", "password": user.password]
            let shared = try await Self.logIn(client, ["udacity": credential, "shared_computer": true], prefix: prefix)
            #expect(shared.status == .ok)
            for name in ["onthemap_session", "XSRF-TOKEN"] {
                let line = try #require(Self.setCookie(shared, name))
                #expect(!Self.persists(line), "\(line)")
                #expect(line.contains("Path=/"))
            }
            #expect(Self.setCookie(shared, "onthemap_session")?.contains("HttpOnly") == true)
            // A shared computer is nobody's own device: no device marker.
            #expect(Self.setCookie(shared, AccountsService.deviceCookie) == nil)
            // The body is the usual one: the session still ends on the server at its expiry.
            let session = try #require(try shared.udacityJSON["session"] as? [String: Any])
            let expiration = try #require(session["expiration"] as? String)
            let expires = try #require(ParseDate.date(from: expiration))
            #expect(abs(expires.timeIntervalSinceNow - 30 * 86_400) < 60)

            for body: [String: Any] in [["udacity": credential], ["udacity": credential, "shared_computer": false]] {
                let kept = try await Self.logIn(client, body, prefix: prefix)
                #expect(kept.status == .ok)
                for name in ["onthemap_session", "XSRF-TOKEN"] {
                    let line = try #require(Self.setCookie(kept, name))
                    #expect(Self.persists(line), "\(line)")
                }
            }
        }
    }

    @Test("an old client's login body gets the same answer as before, byte for byte but for the session's id and dates")
    func oldClientsUnchanged() async throws {
        try await withTestServer { client in
            let user = try await client.makeUser(email: "bob@example.com")
            // Exactly the bytes the old iOS clients send.
            let body = #"{"udacity": {"username": "bob@example.com", "password": "\#(user.password)"}}"#
            let response = try await client.execute(
                uri: "/api/session", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
            #expect(response.status == .ok)
            let text = response.text.replacing(/\d{10}S[0-9a-f]{32}/, with: "ID").replacing(
                /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/, with: "DATE")
            #expect(text == ")]}'\n" + #"{"account":{"key":"\#(user.key)","registered":true},"session":{"expiration":"DATE","id":"ID"}}"#)
            let line = try #require(Self.setCookie(response, "onthemap_session"))
            #expect(Self.persists(line))
        }
    }

    @Test("shared_computer must be true or false: anything else is a prefixed 400 naming it")
    func sharedComputerValidated() async throws {
        try await withTestServer { client in
            let user = try await client.makeUser(email: "carol@example.com")
            let credential = ["username": "carol@example.com", "password": user.password]
            for value: Any in ["yes", 1, ["on": true]] {
                let response = try await Self.logIn(client, ["udacity": credential, "shared_computer": value])
                #expect(response.status == .badRequest)
                #expect(
                    response.text == ")]}'\n"
                        + #"{"error":"trails.Error 400: Parameter 'shared_computer' must be true or false","parameter":"shared_computer","status":400}"#
                )
                #expect(response.cookie("onthemap_session") == nil)
            }
            let null = try await Self.logIn(client, ["udacity": credential, "shared_computer": NSNull()])
            #expect(null.status == .ok)
            #expect(Self.persists(try #require(Self.setCookie(null, "onthemap_session"))))
        }
    }

    @Test("--shared-computers: every login's cookies end with the browser, and /config.json says so")
    func serverDefault() async throws {
        try await withTestServer({ $0.sharedComputers = true }) { client in
            let user = try await client.makeUser(email: "dan@example.com")
            let response = try await Self.logIn(client, ["udacity": ["username": "dan@example.com", "password": user.password]])
            #expect(response.status == .ok)
            for name in ["onthemap_session", "XSRF-TOKEN"] {
                let line = try #require(Self.setCookie(response, name))
                #expect(!Self.persists(line), "\(line)")
            }
            let config = try await client.execute(uri: "/config.json", method: .get)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(config.body.readableBytesView)) as? [String: Any])
            #expect(object["sharedComputers"] as? Bool == true)
        }
        try await withTestServer { client in
            let config = try await client.execute(uri: "/config.json", method: .get)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(config.body.readableBytesView)) as? [String: Any])
            #expect(object["sharedComputers"] as? Bool == false)
        }
    }

    @Test("--shared-computers and ONTHEMAP_SHARED_COMPUTERS turn it on; it is off by default")
    func setting() throws {
        #expect(try Settings.configuration(arguments: ["--shared-computers"], environment: [:]).sharedComputers)
        #expect(try Settings.configuration(arguments: [], environment: ["ONTHEMAP_SHARED_COMPUTERS": "1"]).sharedComputers)
        #expect(try !Settings.configuration(arguments: [], environment: [:]).sharedComputers)
    }
}
