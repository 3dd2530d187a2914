import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import OnTheMapModels
import OnTheMapServer
import Testing

@Suite("Udacity-compatible session API")
struct SessionAPITests {
    @Test("login answers the documented shape behind the 5-byte prefix and sets both cookies", arguments: ["/api", "/v1"])
    func loginSucceeds(prefix: String) async throws {
        try await withTestServer { client in
            let user = try await client.makeUser(email: "ada@example.com")
            try await client.execute(
                uri: "\(prefix)/session", method: .post,
                headers: [.contentType: "application/json", .accept: "application/json"],
                body: jsonBody(["udacity": ["username": "ada@example.com", "password": user.password]])
            ) { response throws in
                #expect(response.status == .ok)
                #expect(Array(response.body.readableBytesView.prefix(5)) == Array(")]}'\n".utf8))
                let body = try response.udacityJSON
                let account = try #require(body["account"] as? [String: Any])
                #expect(account["registered"] as? Bool == true)
                #expect(account["key"] as? String == user.key)
                let session = try #require(body["session"] as? [String: Any])
                let id = try #require(session["id"] as? String)
                #expect(id.wholeMatch(of: /\d{10}S[0-9a-f]{32}/) != nil)
                let expiration = try #require(session["expiration"] as? String)
                #expect(expiration.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
                let expires = try #require(ParseDate.date(from: expiration))
                #expect(abs(expires.timeIntervalSinceNow - 30 * 86_400) < 60)
                #expect(response.cookie("onthemap_session") == id)
                #expect(response.cookie("XSRF-TOKEN")?.count == 32)
            }
        }
    }

    @Test("a wrong password and an unknown email get the same byte-exact 403")
    func wrongCredentials() async throws {
        try await withTestServer { client in
            _ = try await client.makeUser(email: "ada@example.com")
            let expected = ")]}'\n" + #"{"error":"Account not found or invalid credentials.","status":403}"#
            for (email, password) in [("ada@example.com", "wrong password"), ("nobody@example.com", "whatever1")] {
                try await client.execute(
                    uri: "/api/session", method: .post,
                    body: jsonBody(["udacity": ["username": email, "password": password]])
                ) { response throws in
                    #expect(response.status == .forbidden)
                    #expect(response.text == expected)
                    #expect(response.cookie("onthemap_session") == nil)
                }
            }
        }
    }

    @Test("missing username or password: 400 with the parameter, byte-exact")
    func missingParameters() async throws {
        try await withTestServer { client in
            let cases: [(Any, String)] = [
                (
                    ["udacity": ["password": "x"]],
                    #"{"error":"trails.Error 400: Missing parameter 'username'","parameter":"udacity.username","status":400}"#
                ),
                (
                    ["udacity": ["username": "a@b.co"]],
                    #"{"error":"trails.Error 400: Missing parameter 'password'","parameter":"udacity.password","status":400}"#
                ),
                (
                    ["udacity": ["username": "", "password": "x"]],
                    #"{"error":"trails.Error 400: Missing parameter 'username'","parameter":"udacity.username","status":400}"#
                ),
            ]
            for (body, expected) in cases {
                try await client.execute(uri: "/v1/session", method: .post, body: jsonBody(body)) { response throws in
                    #expect(response.status == .badRequest)
                    #expect(response.text == ")]}'\n" + expected)
                }
            }
        }
    }

    @Test("exactly one credential: both kinds is a 400, Facebook alone is a 403, none is a 400")
    func exactlyOneCredential() async throws {
        try await withTestServer { client in
            try await client.execute(
                uri: "/api/session", method: .post,
                body: jsonBody([
                    "udacity": ["username": "a@b.co", "password": "x"], "facebook_mobile": ["access_token": "t"],
                ])
            ) { response throws in
                #expect(response.status == .badRequest)
                #expect(try response.udacityJSON["status"] as? Int == 400)
            }
            try await client.execute(uri: "/api/session", method: .post, body: jsonBody(["facebook_mobile": ["access_token": "t;"]])) {
                response throws in
                #expect(response.status == .forbidden)
            }
            try await client.execute(uri: "/api/session", method: .post, body: jsonBody(["something": 1])) { response throws in
                #expect(response.status == .badRequest)
                #expect(try response.udacityJSON["parameter"] as? String == "udacity")
            }
        }
    }

    @Test("malformed JSON is a prefixed 400; an interpolated password containing a quote still logs in")
    func malformedBodies() async throws {
        try await withTestServer { client in
            let user = try await client.makeUser(password: #"pa"ss"word"#)
            try await client.execute(uri: "/api/session", method: .post, body: textBody("{not json")) { response throws in
                #expect(response.status == .badRequest)
                #expect(try response.udacityJSON["status"] as? Int == 400)
            }
            // What `"{\"udacity\": {\"username\": \"\(u)\", \"password\": \"\(p)\"}}"` produces.
            let interpolated = #"{"udacity": {"username": "\#(user.email)", "password": "pa"ss"word"}}"#
            try await client.execute(uri: "/api/session", method: .post, body: textBody(interpolated)) { response throws in
                #expect(response.status == .ok)
            }
        }
    }

    @Test("emails are normalized at sign-up and login")
    func emailNormalization() async throws {
        try await withTestServer { client in
            let user = try await client.makeUser(email: "  Grace.Hopper@Example.COM ")
            _ = try await client.login(email: "grace.hopper@example.com", password: user.password)
            _ = try await client.login(email: "GRACE.HOPPER@EXAMPLE.COM", password: user.password)
        }
    }

    @Test("logout ends the session: its token no longer writes; the answer is prefixed and names the session")
    func logoutEndsSession() async throws {
        try await withTestServer { client in
            let user = try await client.makeUser()
            try await client.postLocation(user)
            try await client.execute(
                uri: "/api/session", method: .delete,
                headers: [.cookie: "onthemap_session=\(user.sessionID); XSRF-TOKEN=abc", HTTPField.Name("X-XSRF-TOKEN")!: "wrong"]
            ) { response throws in
                #expect(response.status == .ok)
                let session = try #require(try response.udacityJSON["session"] as? [String: Any])
                #expect(session["id"] as? String == user.sessionID)
                #expect(response.cookie("onthemap_session") == "")
            }
            try await client.execute(
                uri: "/parse/classes/StudentLocation", method: .post, headers: user.parseHeaders,
                body: jsonBody(["latitude": 1, "longitude": 2])
            ) { response throws in
                #expect(response.status == .unauthorized)
                #expect(try response.json["code"] as? Int == 209)
            }
        }
    }

    @Test("logout without a live session says so: 401 in the Udacity format, cookies cleared", arguments: ["/api", "/v1"])
    func logoutWithoutSession(prefix: String) async throws {
        try await withTestServer { client in
            for headers: HTTPFields in [[:], [.cookie: "onthemap_session=1700000000S00000000000000000000000000000000"]] {
                try await client.execute(uri: "\(prefix)/session", method: .delete, headers: headers) { response throws in
                    #expect(response.status == .unauthorized)
                    let body = try response.udacityJSON
                    #expect(body["status"] as? Int == 401)
                    #expect((body["error"] as? String)?.isEmpty == false)
                    #expect(response.cookie("onthemap_session") == "")
                }
            }
        }
    }

    @Test("sessions expire")
    func sessionExpiry() async throws {
        let clock = ManualClock()
        try await withTestServer({
            $0.sessionLifetime = 60
            $0.clock = clock.clock
        }) { client in
            let user = try await client.makeUser()
            clock.advance(by: 59)
            try await client.execute(uri: "/api/auth/me", method: .get, headers: user.cookieHeaders) { response throws in
                #expect(response.status == .ok)
            }
            clock.advance(by: 2)
            try await client.execute(
                uri: "/parse/classes/StudentLocation", method: .post, headers: user.parseHeaders,
                body: jsonBody(["latitude": 1, "longitude": 2])
            ) { response throws in
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test("GET /users/:key gives real names at top level and in a user copy, with every strict field", arguments: ["/api", "/v1"])
    func userData(prefix: String) async throws {
        try await withTestServer { client in
            let user = try await client.makeUser()
            try await client.execute(uri: "\(prefix)/users/\(user.key)", method: .get) { response throws in
                #expect(response.status == .ok)
                let body = try response.udacityJSON
                let copy = try #require(body["user"] as? [String: Any])
                for shape in [body, copy] {
                    #expect(shape["first_name"] as? String == "Ada")
                    #expect(shape["last_name"] as? String == "Lovelace")
                    #expect(shape["key"] as? String == user.key)
                    #expect(shape["nickname"] as? String == "Ada Lovelace")
                    for field in [
                        "social_accounts", "_badges", "_principals", "_enrollments", "external_accounts", "tags", "_affiliate_profiles",
                        "_memberships",
                    ] {
                        #expect((shape[field] as? [Any])?.isEmpty == true, "\(field)")
                    }
                    #expect((shape["guard"] as? [String: Any])?.isEmpty == true)
                    for field in ["_has_password", "employer_sharing", "_registered"] { #expect(shape[field] is Bool, "\(field)") }
                    #expect(shape["_image_url"] is String)
                    let email = try #require(shape["email"] as? [String: Any])
                    #expect(email["address"] as? String == "", "someone else's email is not shown")
                    #expect(email["_verified"] is Bool)
                }
            }
            try await client.execute(uri: "\(prefix)/users/\(user.key)", method: .get, headers: user.cookieHeaders) { response throws in
                let email = try #require(try response.udacityJSON["email"] as? [String: Any])
                #expect(email["address"] as? String == user.email.lowercased())
            }
            try await client.execute(uri: "\(prefix)/users/0000000000", method: .get) { response throws in
                #expect(response.status == .notFound)
                #expect(try response.udacityJSON["status"] as? Int == 404)
            }
        }
    }
}

@Suite("Sign-up")
struct SignUpTests {
    @Test("a new account answers 201 with its key")
    func signUp() async throws {
        try await withTestServer { client in
            try await client.execute(
                uri: "/api/users", method: .post,
                body: jsonBody([
                    "email": "new@example.com", "password": "long enough", "first_name": "New", "last_name": "Person",
                ])
            ) { response throws in
                #expect(response.status == .created)
                let key = try #require((try response.json["account"] as? [String: Any])?["key"] as? String)
                #expect(key.wholeMatch(of: /[1-9]\d{9}/) != nil)
            }
        }
    }

    @Test("bad sign-ups get our error format and create nothing")
    func badSignUps() async throws {
        try await withTestServer { client in
            _ = try await client.makeUser(email: "taken@example.com")
            let cases: [(ByteBuffer, HTTPResponse.Status, String)] = [
                (
                    jsonBody(["email": "TAKEN@example.com", "password": "long enough", "first_name": "A", "last_name": "B"]), .conflict,
                    "email_taken"
                ),
                (
                    jsonBody(["email": "short@example.com", "password": "short", "first_name": "A", "last_name": "B"]), .badRequest,
                    "weak_password"
                ),
                (
                    jsonBody(["email": "not-an-email", "password": "long enough", "first_name": "A", "last_name": "B"]), .badRequest,
                    "invalid_email"
                ),
                (
                    jsonBody(["email": "x@example.com", "password": "long enough", "first_name": " ", "last_name": "B"]), .badRequest,
                    "invalid_name"
                ),
                (
                    jsonBody(["email": "x@example.com", "password": 12_345_678, "first_name": "A", "last_name": "B"]), .badRequest,
                    "invalid_body"
                ),
                (textBody("{oops"), .badRequest, "invalid_body"),
            ]
            for (body, status, code) in cases {
                try await client.execute(uri: "/api/users", method: .post, body: body) { response throws in
                    #expect(response.status == status)
                    let error = try #require(try response.json["error"] as? [String: Any])
                    #expect(error["code"] as? String == code)
                    #expect((error["message"] as? String)?.isEmpty == false)
                }
            }
            // None of them created an account.
            for email in ["short@example.com", "x@example.com"] {
                try await client.execute(
                    uri: "/api/session", method: .post, body: jsonBody(["udacity": ["username": email, "password": "long enough"]])
                ) { response throws in
                    #expect(response.status == .forbidden)
                }
            }
        }
    }

    @Test("health answers once the database is ready")
    func health() async throws {
        try await withTestServer { client in
            try await client.execute(uri: "/health", method: .get) { response throws in
                #expect(response.status == .ok)
                #expect(response.text == #"{"status":"ok"}"#)
            }
        }
    }
}
