import Crypto
import Foundation
import HTTPTypes
import HummingbirdBcrypt
import HummingbirdTesting
import NIOCore
import OnTheMapModels
import Testing

@testable import OnTheMapServer

/// Nobody can post as someone else, forge a request from another site, reuse a
/// stored session, or get in with part of a password.
@Suite("Identity: uniqueKey, cross-site requests, sessions, passwords, names")
struct IdentityTests {
    static let fetchSite = HTTPField.Name("Sec-Fetch-Site")!

    // MARK: uniqueKey

    @Test(
        "a forged uniqueKey is replaced by the writer's own key, on create and update, in both protocols",
        arguments: ["/parse/classes/StudentLocation", "/v1/StudentLocation"])
    func forgedUniqueKey(path: String) async throws {
        try await withTestServer(defaultClass: .public) { client in
            let alice = try await client.makeUser()
            let bob = try await client.makeUser()
            let forged: [String: Any] = [
                "uniqueKey": bob.key, "firstName": "Bob", "mapString": "SPOOFED by Alice",
                "latitude": 1.0, "longitude": 2.0,
            ]
            let id = try await client.execute(uri: path, method: .post, headers: alice.parseHeaders, body: jsonBody(forged)) {
                response throws in
                #expect(response.status == .created)
                return try response.json["objectId"] as! String
            }
            let own = try await client.postLocation(alice)
            try await client.execute(
                uri: "\(path)/\(own)", method: .put, headers: alice.parseHeaders,
                body: jsonBody(["uniqueKey": bob.key, "mapString": "SPOOFED again"])
            ) { response throws in
                #expect(response.status == .ok)
            }
            for objectId in [id, own] {
                try await client.execute(uri: "/v1/StudentLocation/\(objectId)", method: .get) { response throws in
                    #expect(try response.json["uniqueKey"] as? String == alice.key)
                }
            }
            // Bob's "my location" lookup finds nothing of Alice's, and Bob can still post his own.
            let mine = try await client.list(
                "?where=" + #"{"uniqueKey":"\#(bob.key)"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            #expect((mine["results"] as! [Any]).isEmpty)
            let bobs = try await client.postLocation(bob)
            try await client.execute(
                uri: "\(path)/\(bobs)", method: .put, headers: bob.parseHeaders, body: jsonBody(["mapString": "Boston"])
            ) { response throws in
                #expect(response.status == .ok)
            }
        }
    }

    // MARK: Cross-site requests

    @Test("a same-site or cross-site form post carrying the cookie changes nothing")
    func formPostsWithCookieRefused() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let user = try await client.makeUser()
            let body = textBody(#"{"latitude":1,"longitude":2,"mapString":"forged"}"#)
            let attempts: [HTTPFields] = [
                // A sibling app on another port of the same host (same site, other origin).
                [Self.fetchSite: "same-site", .origin: "http://localhost:3000", .contentType: "text/plain"],
                [Self.fetchSite: "cross-site", .origin: "https://evil.example", .contentType: "application/x-www-form-urlencoded"],
                // Browsers that send Origin but not Sec-Fetch-Site (plain http on a LAN address).
                [.origin: "http://localhost:3000", .contentType: "text/plain"],
                [.origin: "null", .contentType: "multipart/form-data; boundary=x"],
            ]
            for var headers in attempts {
                headers.append(contentsOf: user.cookieHeaders)
                try await client.execute(uri: "/v1/StudentLocation", method: .post, headers: headers, body: body) { response throws in
                    #expect(response.status == .forbidden)
                    #expect(try response.json["code"] as? Int == 119)
                }
                try await client.execute(
                    uri: "/api/pins", method: .post, headers: headers, body: jsonBody(["latitude": 1, "longitude": 2])
                ) { response throws in
                    #expect(response.status == .forbidden)
                    #expect(try (response.json["error"] as? [String: Any])?["code"] as? String == "cross_site_request")
                }
            }
            // Without any browser header, a non-JSON body is still refused (an old browser's form).
            var plain = user.cookieHeaders
            plain[.contentType] = "text/plain"
            try await client.execute(uri: "/v1/StudentLocation", method: .post, headers: plain, body: body) { response throws in
                #expect(response.status == .unsupportedMediaType)
                #expect(try response.json["code"] as? Int == 107)
            }
            #expect(try await client.count() == 0)
            try await client.execute(uri: "/api/pins", method: .get, headers: user.cookieHeaders) { response throws in
                #expect(try (response.json["results"] as? [Any])?.isEmpty == true)
            }
        }
    }

    @Test("the web app's own requests pass: same-origin by Sec-Fetch-Site or by Origin matching Host")
    func sameOriginWritesPass() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let user = try await client.makeUser()
            for proof: HTTPFields in [
                [Self.fetchSite: "same-origin", .origin: "http://localhost"], [.origin: "http://localhost"],
                [.origin: "http://LOCALHOST:80"],
            ] {
                var headers = user.cookieHeaders
                headers.append(contentsOf: proof)
                headers[.contentType] = "application/json; charset=utf-8"
                try await client.execute(
                    uri: "/v1/StudentLocation", method: .post, headers: headers,
                    body: jsonBody(["latitude": 1, "longitude": 2])
                ) { response throws in
                    #expect(response.status == .created)
                }
            }
            // Token-authenticated clients are unaffected, whatever page they run in.
            var token = user.parseHeaders
            token[.origin] = "https://another-app.example"
            try await client.postLocation(user)
            try await client.execute(
                uri: "/parse/classes/StudentLocation", method: .post, headers: token,
                body: jsonBody(["latitude": 1, "longitude": 2])
            ) { response throws in
                #expect(response.status == .created)
            }
            #expect(try await client.count() == 5)
        }
        // A host behind a proxy that rewrites Host names its public origin.
        try await withTestServer({ $0.allowedOrigins = ["https://map.example.org"] }, defaultClass: .public) { client in
            let user = try await client.makeUser()
            var headers = user.cookieHeaders
            headers[.origin] = "https://map.example.org"
            try await client.execute(
                uri: "/v1/StudentLocation", method: .post, headers: headers,
                body: jsonBody(["latitude": 1, "longitude": 2])
            ) { response throws in
                #expect(response.status == .created)
            }
        }
    }

    @Test("login and sign-up from another site are refused (login CSRF) and set no cookie")
    func loginCSRF() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let user = try await client.makeUser()
            let credentials = jsonBody(["udacity": ["username": user.email, "password": user.password]])
            for headers: HTTPFields in [[Self.fetchSite: "cross-site"], [.origin: "https://evil.example"], [Self.fetchSite: "same-site"]] {
                try await client.execute(uri: "/api/session", method: .post, headers: headers, body: credentials) { response throws in
                    #expect(response.status == .forbidden)
                    #expect(try response.udacityJSON["status"] as? Int == 403)
                    #expect(response.cookie("onthemap_session") == nil)
                }
                try await client.execute(
                    uri: "/api/users", method: .post, headers: headers,
                    body: jsonBody([
                        "email": "new@example.com", "password": "long enough", "first_name": "A", "last_name": "B",
                    ])
                ) { response throws in
                    #expect(response.status == .forbidden)
                }
            }
            // The form encoding a cross-site form would use, even without browser headers.
            let form = textBody("udacity%5Busername%5D=\(user.email)&udacity%5Bpassword%5D=x")
            try await client.execute(
                uri: "/v1/session", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: form
            ) { response throws in
                #expect(response.status == .unsupportedMediaType)
                #expect(try response.udacityJSON["status"] as? Int == 415)
            }
            // Cross-site logout is refused too, and the session survives it.
            var logout = user.cookieHeaders
            logout[Self.fetchSite] = "cross-site"
            try await client.execute(uri: "/api/session", method: .delete, headers: logout) { response throws in
                #expect(response.status == .forbidden)
            }
            try await client.postLocation(user)
        }
    }

    // MARK: Sessions

    @Test("log out everywhere ends every session of the account, others' sessions stay")
    func logOutEverywhere() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let user = try await client.makeUser()
            let other = try await client.makeUser()
            let second = try await client.login(email: user.email, password: user.password)
            try await client.execute(uri: "/api/session?all=1", method: .delete, headers: user.cookieHeaders) { response throws in
                #expect(response.status == .ok)
            }
            for token in [user.sessionID, second] {
                try await client.execute(
                    uri: "/v1/StudentLocation", method: .post, headers: [SessionCredential.headerName: token],
                    body: jsonBody(["latitude": 1, "longitude": 2])
                ) { response throws in
                    #expect(response.status == .unauthorized)
                }
            }
            try await client.postLocation(other)
        }
    }

    @Test("changing the password needs the current one and ends every other session")
    func changePassword() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let user = try await client.makeUser()
            let other = try await client.login(email: user.email, password: user.password)
            let change = "/api/account/password"
            try await client.execute(
                uri: change, method: .post, headers: user.cookieHeaders,
                body: jsonBody(["current_password": "not it at all", "new_password": "a brand new secret"])
            ) { response throws in
                #expect(response.status == .forbidden)
                #expect(try (response.json["error"] as? [String: Any])?["code"] as? String == "wrong_password")
            }
            try await client.execute(uri: change, method: .post, body: jsonBody(["current_password": user.password, "new_password": "x"])) {
                response throws in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(
                uri: change, method: .post, headers: user.cookieHeaders,
                body: jsonBody(["current_password": user.password, "new_password": "short"])
            ) { response throws in
                #expect(response.status == .badRequest)
            }
            try await client.execute(
                uri: change, method: .post, headers: user.cookieHeaders,
                body: jsonBody(["current_password": user.password, "new_password": "a brand new secret"])
            ) { response throws in
                #expect(response.status == .ok)
                #expect(try response.json["ended_sessions"] as? Int == 1)
            }
            try await client.execute(
                uri: "/v1/StudentLocation", method: .post, headers: [SessionCredential.headerName: other],
                body: jsonBody(["latitude": 1, "longitude": 2])
            ) { response throws in
                #expect(response.status == .unauthorized)
            }
            try await client.postLocation(user)  // this device stays logged in
            await #expect(throws: TestFailure.self) { try await client.login(email: user.email, password: user.password) }
            _ = try await client.login(email: user.email, password: "a brand new secret")
        }
    }

    // MARK: Passwords and names

    @Test("a 100-byte pass phrase counts in full; neither its first 72 bytes nor more log in")
    func longPassPhrase() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let phrase = String(repeating: "correct horse battery staple ", count: 4).prefix(100)
            #expect(phrase.utf8.count == 100)
            let user = try await client.makeUser(password: String(phrase))
            _ = try await client.login(email: user.email, password: String(phrase))
            for wrong in [String(phrase.prefix(72)), String(phrase.prefix(99)), String(phrase) + "x"] {
                await #expect(throws: TestFailure.self) { try await client.login(email: user.email, password: wrong) }
            }
            let exact72 = String(repeating: "p", count: 72)
            let short = try await client.makeUser(password: exact72)
            await #expect(throws: TestFailure.self) { try await client.login(email: short.email, password: exact72 + "anything") }
        }
    }

    @Test("hashes from before pass phrases still verify, exactly; a digest is not a password")
    func passwordHashSchemes() throws {
        let legacy = Bcrypt.hash("seventy-two bytes at most", cost: 4)
        #expect(Passwords.verify("seventy-two bytes at most", hash: legacy))
        #expect(!Passwords.verify("seventy-two bytes at most!", hash: legacy))
        let long = String(repeating: "a", count: 72)
        let legacyLong = Bcrypt.hash(long, cost: 4)
        #expect(Passwords.verify(long, hash: legacyLong))
        #expect(!Passwords.verify(long + "b", hash: legacyLong), "bcrypt would read only 72 bytes")
        let new = Passwords.hash("nul\u{0}inside password", cost: 4)
        #expect(new.hasPrefix("sha256+$2"))
        #expect(Passwords.verify("nul\u{0}inside password", hash: new))
        #expect(!Passwords.verify("nul", hash: new))
        let digest = Data(Crypto.SHA256.hash(data: Data("nul\u{0}inside password".utf8))).base64EncodedString()
        #expect(!Passwords.verify(digest, hash: new))
    }

    @Test("control and text-direction characters are refused in names, emails and location text")
    func unsafeCharactersRefused() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let bad = ["Eve\u{0}", "Bob\u{202E}lanimirc", "Isolate\u{2067}x", "Tab\there", "Esc\u{1B}[31m"]
            for name in bad {
                try await client.execute(
                    uri: "/api/users", method: .post,
                    body: jsonBody([
                        "email": "n\(UUID().uuidString.prefix(6))@example.com", "password": "long enough", "first_name": name,
                        "last_name": "B",
                    ])
                ) { response throws in
                    #expect(response.status == .badRequest)
                    #expect(try (response.json["error"] as? [String: Any])?["code"] as? String == "invalid_name")
                }
            }
            try await client.execute(
                uri: "/api/users", method: .post,
                body: jsonBody([
                    "email": "nul\u{0}@example.com", "password": "long enough", "first_name": "A", "last_name": "B",
                ])
            ) { response throws in
                #expect(try (response.json["error"] as? [String: Any])?["code"] as? String == "invalid_email")
            }
            let user = try await client.makeUser()
            for field in ["firstName", "lastName", "mapString"] {
                try await client.execute(
                    uri: "/parse/classes/StudentLocation", method: .post, headers: user.parseHeaders,
                    body: jsonBody([field: "Paris\u{202E}moc.live", "latitude": 1, "longitude": 2])
                ) { response throws in
                    #expect(response.status == .badRequest)
                    #expect(try response.json["code"] as? Int == 142)
                }
            }
            // Names in any script, with ordinary marks, stay welcome.
            _ = try await client.execute(
                uri: "/api/users", method: .post,
                body: jsonBody([
                    "email": "amal@example.com", "password": "long enough", "first_name": "أمل", "last_name": "Nguyễn-Łukasz",
                ])
            ) { response throws in #expect(response.status == .created) }
            #expect(try await client.count() == 0)
        }
    }
}
