import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import Logging
import NIOCore
import OnTheMapModels
import Storage
import Synchronization
import Testing

@testable import OnTheMapServer

/// A small OpenID Connect provider for the cases a real one will not produce (a token with a
/// bad signature, `alg: none`, a wrong audience…): discovery, JWKS and a token endpoint that
/// checks the PKCE verifier and hands out each code once. The test mints the ID token a
/// code will return.
final class StubOIDCProvider: Sendable {
    enum Mode: Sendable { case normal, down, garbage, tokenEndpointGarbage }
    struct Grant: Sendable {
        let idToken: String
        let challenge: String
        let redirectURI: String
    }
    struct State: Sendable {
        var mode = Mode.normal
        var grants: [String: Grant] = [:]
        var publishedKids = ["k1"]
        var jwksFetches = 0
    }

    let state = Mutex(State())
    let keys = JWTKeyCollection()
    let k1 = ES256PrivateKey()
    let k2 = ES256PrivateKey()
    /// Never published: what an attacker would sign with.
    let attacker = ES256PrivateKey()
    static let clientID = "onthemap-test"
    static let clientSecret = "stub-secret"

    init() async {
        await keys.add(ecdsa: k1, kid: "k1")
        await keys.add(ecdsa: k2, kid: "k2")
    }

    func jwk(_ key: ES256PrivateKey, kid: String) -> [String: String] {
        let (x, y) = key.parameters!
        return ["kty": "EC", "crv": "P-256", "x": x, "y": y, "kid": kid, "use": "sig", "alg": "ES256"]
    }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get(".well-known/openid-configuration") { request, _ -> Response in
            let issuer = "http://\(request.head.authority ?? "")"
            switch self.state.withLock({ $0.mode }) {
            case .down: return Response(status: .serviceUnavailable)
            case .garbage: return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "<html>maintenance</html>")))
            default: break
            }
            return Self.json([
                "issuer": issuer, "authorization_endpoint": "\(issuer)/authorize", "token_endpoint": "\(issuer)/token",
                "jwks_uri": "\(issuer)/jwks", "end_session_endpoint": "\(issuer)/logout",
            ])
        }
        router.get("jwks") { _, _ -> Response in
            let kids = self.state.withLock {
                $0.jwksFetches += 1
                return $0.publishedKids
            }
            let keys = kids.map { $0 == "k1" ? self.jwk(self.k1, kid: "k1") : self.jwk(self.k2, kid: "k2") }
            return Self.json(["keys": keys])
        }
        router.post("token") { request, _ -> Response in
            if self.state.withLock({ $0.mode }) == .tokenEndpointGarbage {
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "not json")))
            }
            let body = try await request.body.collect(upTo: 65_536)
            var form: [String: String] = [:]
            for pair in String(buffer: body).split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
                if parts.count == 2 { form[parts[0]] = parts[1] }
            }
            let basic = "Basic " + Data("\(Self.clientID):\(Self.clientSecret)".utf8).base64EncodedString()
            guard request.headers[.authorization] == basic else { return Self.json(["error": "invalid_client"], status: .unauthorized) }
            // A code is good once.
            guard let code = form["code"], let grant = self.state.withLock({ $0.grants.removeValue(forKey: code) }) else {
                return Self.json(["error": "invalid_grant"], status: .badRequest)
            }
            guard form["grant_type"] == "authorization_code", form["redirect_uri"] == grant.redirectURI,
                OIDCClient.codeChallenge(for: form["code_verifier"] ?? "") == grant.challenge
            else {
                return Self.json(["error": "invalid_grant"], status: .badRequest)
            }
            return Self.json(["access_token": "at-\(code)", "token_type": "Bearer", "id_token": grant.idToken])
        }
        return router
    }

    static func json(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        let data = try! JSONSerialization.data(withJSONObject: object)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: data)))
    }

    struct Claims: JWTPayload {
        var iss: String
        var sub: String
        var aud: [String]
        var exp: Int
        var iat: Int
        var nonce: String?
        var email: String?
        var email_verified: Bool?
        var given_name: String?
        var family_name: String?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    func sign(_ claims: Claims, kid: String = "k1", with key: ES256PrivateKey? = nil) async throws -> String {
        if let key {
            let other = JWTKeyCollection()
            await other.add(ecdsa: key, kid: JWKIdentifier(string: kid))
            return try await other.sign(claims, kid: JWKIdentifier(string: kid))
        }
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }

    func grant(code: String, idToken: String, authorization: URLComponents) {
        let items = authorization.queryItems ?? []
        let challenge = items.first { $0.name == "code_challenge" }?.value ?? ""
        let redirect = items.first { $0.name == "redirect_uri" }?.value ?? ""
        state.withLock { $0.grants[code] = Grant(idToken: idToken, challenge: challenge, redirectURI: redirect) }
    }
}

/// One sign-in under way: what the start answered.
struct StartedSignIn {
    let authorization: URLComponents
    let browserCookie: String
    var state: String { authorization.queryItems?.first { $0.name == "state" }?.value ?? "" }
    var nonce: String { authorization.queryItems?.first { $0.name == "nonce" }?.value ?? "" }
}

@Suite("Sign-in with an OpenID Connect provider", .serialized)
struct SignInTests {
    /// A stub provider on a real socket, and a server configured with it; `body` gets the
    /// server's client, the provider, its issuer and a store on the same database to check.
    func withProvider(
        _ adjust: @escaping @Sendable (inout Configuration) -> Void = { _ in },
        _ body: @escaping @Sendable (any TestClientProtocol, StubOIDCProvider, String, SQLStore) async throws -> Void
    ) async throws {
        let stub = await StubOIDCProvider()
        let providerApp = Application(router: stub.router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await providerApp.test(.live) { providerClient in
            let issuer = "http://127.0.0.1:\(providerClient.port!)"
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-signin-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            var configuration = testConfiguration(dataDirectory: directory)
            configuration.oidcProviders = [
                OIDCProviderSettings(
                    id: "school", displayName: "School", issuer: issuer, clientID: StubOIDCProvider.clientID,
                    clientSecret: StubOIDCProvider.clientSecret)
            ]
            adjust(&configuration)
            let settings = configuration
            let app = try await buildApplication(configuration: settings, logger: testLogger)
            try await app.test(.router) { client in
                let store = try await SQLStore.open(
                    url: settings.resolvedDatabaseURL, dataDirectory: settings.dataDirectory, logger: testLogger)
                do {
                    try await body(client, stub, issuer, store)
                } catch {
                    try? await store.close()
                    throw error
                }
                try await store.close()
            }
        }
    }

    func start(_ client: any TestClientProtocol, returnPath: String = "/", cookie: String? = nil) async throws -> StartedSignIn {
        let escaped = returnPath.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        var headers = HTTPFields()
        if let cookie { headers[.cookie] = "onthemap_signin=\(cookie)" }
        return try await client.execute(uri: "/auth/school/start?return=\(escaped)", method: .get, headers: headers) { response in
            #expect(response.status == .seeOther)
            let location = try #require(response.headers[.location])
            return StartedSignIn(
                authorization: try #require(URLComponents(string: location)),
                browserCookie: try #require(response.cookie("onthemap_signin"))
            )
        }
    }

    func claims(
        _ issuer: String, nonce: String?, sub: String = "student-1", email: String? = "ada@school.example",
        verified: Bool = true
    ) -> StubOIDCProvider.Claims {
        let now = Int(Date().timeIntervalSince1970)
        return .init(
            iss: issuer, sub: sub, aud: [StubOIDCProvider.clientID], exp: now + 300, iat: now, nonce: nonce,
            email: email, email_verified: verified, given_name: "Ada", family_name: "Lovelace")
    }

    /// Calls back as the provider would redirect the browser; returns the response's status,
    /// Location, session cookie and page text.
    func callback(
        _ client: any TestClientProtocol, _ started: StartedSignIn, code: String, state: String? = nil,
        cookie: String? = nil, extra: String = ""
    ) async throws -> (HTTPResponse.Status, String?, String?, String) {
        var headers = HTTPFields()
        headers[.cookie] = "onthemap_signin=\(cookie ?? started.browserCookie)"
        let uri = "/auth/school/callback?code=\(code)&state=\(state ?? started.state)\(extra)"
        return try await client.execute(uri: uri, method: .get, headers: headers) { response in
            (response.status, response.headers[.location], response.cookie("onthemap_session"), response.text)
        }
    }

    /// A full, successful sign-in; returns the session cookie.
    func signIn(
        _ client: any TestClientProtocol, _ stub: StubOIDCProvider, _ issuer: String, sub: String = "student-1",
        email: String? = "ada@school.example", verified: Bool = true
    ) async throws -> String? {
        let started = try await start(client)
        let code = "code-\(UUID().uuidString)"
        stub.grant(
            code: code, idToken: try await stub.sign(claims(issuer, nonce: started.nonce, sub: sub, email: email, verified: verified)),
            authorization: started.authorization)
        return try await callback(client, started, code: code).2
    }

    @Test("the authorization request carries PKCE S256, state and nonce; the first sign-in creates the account; the next finds it")
    func happyPath() async throws {
        try await withProvider { client, stub, issuer, store in
            let started = try await start(client, returnPath: "/#/map")
            let items = Dictionary(uniqueKeysWithValues: (started.authorization.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            #expect(items["code_challenge_method"] == "S256")
            #expect(items["code_challenge"]?.count == 43)
            #expect(items["response_type"] == "code")
            #expect(items["client_id"] == StubOIDCProvider.clientID)
            #expect(items["scope"] == "openid email profile")
            #expect(started.state.count == 43 && started.nonce.count == 43 && started.state != started.nonce)
            stub.grant(code: "c1", idToken: try await stub.sign(claims(issuer, nonce: started.nonce)), authorization: started.authorization)
            let (status, location, session, _) = try await callback(client, started, code: "c1")
            #expect(status == .seeOther)
            #expect(location == "/#/map")
            let token = try #require(session)
            let account = try #require(try await store.account(email: "ada@school.example"))
            #expect(account.firstName == "Ada" && account.lastName == "Lovelace" && account.passwordHash.isEmpty)
            // The same session as a password login: it reads the user's own profile.
            try await client.execute(uri: "/api/users/\(account.key)", method: .get, headers: [.cookie: "onthemap_session=\(token)"]) {
                response in
                let profile = try jsonObject(Data(buffer: response.body).dropFirst(5))
                #expect((profile["email"] as? [String: Any])?["address"] as? String == "ada@school.example")
            }
            // No password yet: a password login cannot get in with anything.
            try await client.execute(
                uri: "/api/session", method: .post,
                body: jsonBody(["udacity": ["username": "ada@school.example", "password": "any guess at all"]])
            ) { response in
                #expect(response.status == .forbidden)
            }
            let again = try await signIn(client, stub, issuer)
            #expect(again != nil && again != token)
            #expect(try await store.identities(accountKey: account.key).count == 1)
        }
    }

    @Test("started with shared=1 (\"This is a shared computer\"), the session's cookies end with the browser; otherwise they persist")
    func sharedComputerSignIn() async throws {
        try await withProvider { client, stub, issuer, _ in
            for shared in [true, false] {
                let uri = "/auth/school/start?return=%2F" + (shared ? "&shared=1" : "")
                let (started, sharedCookie) = try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .seeOther)
                    let location = try #require(response.headers[.location])
                    let started = StartedSignIn(
                        authorization: try #require(URLComponents(string: location)),
                        browserCookie: try #require(response.cookie("onthemap_signin")))
                    return (started, response.cookie(SignInController.sharedComputerCookie))
                }
                #expect(sharedCookie == (shared ? "1" : ""))
                let code = "code-\(UUID().uuidString)"
                stub.grant(
                    code: code, idToken: try await stub.sign(claims(issuer, nonce: started.nonce)), authorization: started.authorization)
                var headers = HTTPFields()
                headers[.cookie] =
                    "onthemap_signin=\(started.browserCookie)" + (shared ? "; \(SignInController.sharedComputerCookie)=1" : "")
                try await client.execute(
                    uri: "/auth/school/callback?code=\(code)&state=\(started.state)", method: .get, headers: headers
                ) { response in
                    #expect(response.status == .seeOther)
                    for name in ["onthemap_session", "XSRF-TOKEN"] {
                        let line = try #require(response.headers[values: .setCookie].first { $0.hasPrefix("\(name)=") })
                        #expect(SharedComputerTests.persists(line) == !shared, "\(line)")
                    }
                    // The choice is spent with the sign-in.
                    #expect(response.cookie(SignInController.sharedComputerCookie) == (shared ? "" : nil))
                }
            }
        }
    }

    @Test("a forged state, a replayed callback, an expired one, or one from another browser creates nothing")
    func stateAttacks() async throws {
        try await withProvider { client, stub, issuer, store in
            let started = try await start(client)
            stub.grant(code: "c1", idToken: try await stub.sign(claims(issuer, nonce: started.nonce)), authorization: started.authorization)
            // Forged: a state this server never issued.
            let forged = try await callback(client, started, code: "c1", state: Tokens.random())
            #expect(forged.0 == .badRequest && forged.2 == nil)
            // Another browser (no, or another, binding cookie) holding the victim's URL.
            let elsewhere = try await callback(client, started, code: "c1", cookie: Tokens.random())
            #expect(elsewhere.0 == .badRequest && elsewhere.2 == nil && elsewhere.3.contains("another browser"))
            // That attempt spent the state: the rightful browser must start again.
            let replay = try await callback(client, started, code: "c1")
            #expect(replay.0 == .badRequest && replay.2 == nil && replay.3.contains("already"))
            #expect(try await store.account(email: "ada@school.example") == nil)
        }
        try await withProvider({ $0.signInLifetime = 0 }) { client, stub, issuer, store in
            let started = try await start(client)
            stub.grant(code: "c1", idToken: try await stub.sign(claims(issuer, nonce: started.nonce)), authorization: started.authorization)
            let expired = try await callback(client, started, code: "c1")
            #expect(expired.0 == .badRequest && expired.2 == nil && expired.3.contains("too long"))
            #expect(try await store.account(email: "ada@school.example") == nil)
        }
    }

    @Test("ID tokens that fail verification are refused and create nothing")
    func badTokens() async throws {
        try await withProvider { client, stub, issuer, store in
            let now = Int(Date().timeIntervalSince1970)
            func attempt(_ mint: (String) async throws -> String) async throws -> (HTTPResponse.Status, String?, String) {
                let started = try await start(client)
                let code = "c-\(UUID().uuidString)"
                stub.grant(code: code, idToken: try await mint(started.nonce), authorization: started.authorization)
                let (status, _, session, text) = try await callback(client, started, code: code)
                return (status, session, text)
            }
            var cases: [(String, (String) async throws -> String, String)] = []
            cases.append(("missing nonce", { _ in try await stub.sign(claims(issuer, nonce: nil)) }, "nonce"))
            cases.append(("wrong nonce", { _ in try await stub.sign(claims(issuer, nonce: Tokens.random())) }, "nonce"))
            cases.append(
                (
                    "bad signature", { nonce in try await stub.sign(claims(issuer, nonce: nonce), kid: "k1", with: stub.attacker) },
                    "signature"
                ))
            cases.append(
                (
                    "wrong audience",
                    { nonce in
                        var c = claims(issuer, nonce: nonce)
                        c.aud = ["someone-else"]
                        return try await stub.sign(c)
                    }, "audience"
                ))
            cases.append(
                (
                    "wrong issuer",
                    { nonce in
                        var c = claims(issuer, nonce: nonce)
                        c.iss = "https://evil.example"
                        return try await stub.sign(c)
                    }, "issuer"
                ))
            cases.append(
                (
                    "expired",
                    { nonce in
                        var c = claims(issuer, nonce: nonce)
                        c.exp = now - 3600
                        c.iat = now - 7200
                        return try await stub.sign(c)
                    }, "expired"
                ))
            cases.append(
                (
                    "alg none",
                    { nonce in
                        let valid = try await stub.sign(claims(issuer, nonce: nonce))
                        let payload = valid.split(separator: ".")[1]
                        let header = Tokens.base64URL(Data(#"{"alg":"none","typ":"JWT","kid":"k1"}"#.utf8))
                        return "\(header).\(payload)."
                    }, "none"
                ))
            cases.append(
                (
                    "HS256 keyed with the public key",
                    { nonce in
                        let hmacKeys = JWTKeyCollection()
                        await hmacKeys.add(hmac: HMACKey(from: stub.k1.publicKey.pemRepresentation), digestAlgorithm: .sha256, kid: "k1")
                        return try await hmacKeys.sign(claims(issuer, nonce: nonce), kid: "k1")
                    }, "HS256"
                ))
            for (name, mint, reason) in cases {
                let (status, session, text) = try await attempt(mint)
                #expect(status == .forbidden, "\(name)")
                #expect(session == nil, "\(name)")
                #expect(text.contains(reason), "\(name): \(text)")
            }
            #expect(try await store.account(email: "ada@school.example") == nil)
        }
    }

    @Test("a code used twice is refused by the provider and gives no second session")
    func codeReuse() async throws {
        try await withProvider { client, stub, issuer, _ in
            let first = try await start(client)
            let second = try await start(client, cookie: first.browserCookie)
            stub.grant(code: "once", idToken: try await stub.sign(claims(issuer, nonce: first.nonce)), authorization: first.authorization)
            #expect(try await callback(client, first, code: "once").2 != nil)
            let reuse = try await callback(client, second, code: "once")
            #expect(reuse.0 == .forbidden && reuse.2 == nil && reuse.3.contains("already used"))
        }
    }

    @Test("a provider that is down or answers garbage gets a clear page, and the user denying consent changes nothing")
    func providerTrouble() async throws {
        try await withProvider { client, stub, issuer, store in
            stub.state.withLock { $0.mode = .down }
            try await client.execute(uri: "/auth/school/start", method: .get) { response in
                #expect(response.status == .badGateway)
                #expect(response.text.contains("not answering"))
                #expect(response.headers[.location] == nil)
            }
            stub.state.withLock { $0.mode = .garbage }
            try await client.execute(uri: "/auth/school/start", method: .get) { response in
                #expect(response.status == .badGateway)
            }
            stub.state.withLock { $0.mode = .normal }
            let started = try await start(client)
            stub.state.withLock { $0.mode = .tokenEndpointGarbage }
            stub.grant(code: "c1", idToken: try await stub.sign(claims(issuer, nonce: started.nonce)), authorization: started.authorization)
            let garbage = try await callback(client, started, code: "c1")
            #expect(garbage.0 == .badGateway && garbage.2 == nil)
            stub.state.withLock { $0.mode = .normal }
            let denied = try await start(client)
            let answer = try await client.execute(
                uri: "/auth/school/callback?error=access_denied&state=\(denied.state)", method: .get,
                headers: [.cookie: "onthemap_signin=\(denied.browserCookie)"]
            ) { ($0.status, $0.text, $0.cookie("onthemap_session")) }
            #expect(answer.0 == .forbidden && answer.1.contains("cancelled") && answer.2 == nil)
            // Some providers leave the state out of the error redirect: still a clear page, still nothing made.
            try await client.execute(uri: "/auth/school/callback?error=access_denied", method: .get) { response in
                #expect(response.status == .forbidden && response.text.contains("cancelled") && response.cookie("onthemap_session") == nil)
            }
            #expect(try await store.account(email: "ada@school.example") == nil)
        }
    }

    @Test("the post-login return path never leads to another site")
    func openRedirect() async throws {
        #expect(SignInController.safeReturnPath("/#/map") == "/#/map")
        #expect(SignInController.safeReturnPath("/travel?pin=3") == "/travel?pin=3")
        for hostile in [
            "//evil.example/", "https://evil.example/", "/\\evil.example", "\\\\evil.example", "javascript:alert(1)",
            "/\u{0}x", "evil.example", "", "/ok\nLocation: https://evil.example", "/\t/evil.example",
        ] {
            #expect(SignInController.safeReturnPath(hostile) == "/", "\(hostile)")
        }
        try await withProvider { client, stub, issuer, _ in
            for hostile in ["//evil.example/", "https://evil.example/x", "/\\evil.example"] {
                let started = try await start(client, returnPath: hostile)
                stub.grant(
                    code: "c-\(hostile.count)", idToken: try await stub.sign(claims(issuer, nonce: started.nonce)),
                    authorization: started.authorization)
                let (status, location, _, _) = try await callback(client, started, code: "c-\(hostile.count)")
                #expect(status == .seeOther && location == "/", "\(hostile)")
            }
        }
    }

    @Test("an unknown signing key fetches the provider's keys again (rotation)")
    func keyRotation() async throws {
        try await withProvider({ $0.signInKeyRefetchInterval = 0 }) { client, stub, issuer, _ in
            #expect(try await signIn(client, stub, issuer) != nil)
            let fetches = stub.state.withLock { $0.jwksFetches }
            stub.state.withLock { $0.publishedKids = ["k1", "k2"] }
            let started = try await start(client)
            stub.grant(
                code: "rotated", idToken: try await stub.sign(claims(issuer, nonce: started.nonce), kid: "k2"),
                authorization: started.authorization)
            #expect(try await callback(client, started, code: "rotated").2 != nil)
            #expect(stub.state.withLock { $0.jwksFetches } == fetches + 1)
        }
    }

    @Test("logout names the provider's end-session URL; unlinking the only way in is refused until a password is set")
    func logoutAndUnlink() async throws {
        try await withProvider { client, stub, issuer, _ in
            let session = try #require(try await signIn(client, stub, issuer))
            let cookie: HTTPFields = [.cookie: "onthemap_session=\(session)"]
            try await client.execute(uri: "/api/account/identities/school", method: .delete, headers: cookie) { response in
                #expect(response.status == .conflict)
            }
            try await client.execute(
                uri: "/api/account/password", method: .post, headers: cookie,
                body: jsonBody(["current_password": "", "new_password": "a new password"])
            ) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/api/account/identities/school", method: .delete, headers: cookie) { response in
                #expect(response.status == .ok)
            }
            let again = try #require(try await signIn(client, stub, issuer, sub: "student-1"))
            try await client.execute(uri: "/api/auth/logout", method: .post, headers: [.cookie: "onthemap_session=\(again)"]) { response in
                let body = try response.json
                #expect(body["logged_out"] as? Bool == true)
                let url = try #require(body["provider_logout_url"] as? String)
                #expect(url.hasPrefix("\(issuer)/logout?id_token_hint="))
                #expect(url.contains("post_logout_redirect_uri="))
            }
            try await client.execute(uri: "/api/account/identities", method: .get, headers: [.cookie: "onthemap_session=\(again)"]) {
                response in
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test("an app signs in through the browser: a one-time code at its loopback address, traded with its PKCE verifier")
    func loopbackHandoff() async throws {
        try await withProvider { client, stub, issuer, store in
            let verifier = Tokens.random()
            let challenge = OIDCClient.codeChallenge(for: verifier)
            let loopback = "http://127.0.0.1:53682/callback"
            func startForApp(_ redirect: String) async throws -> (HTTPResponse.Status, StartedSignIn?) {
                let query = "client_redirect=\(FormEncoding.escape(redirect))&client_challenge=\(challenge)"
                return try await client.execute(uri: "/auth/school/start?\(query)", method: .get) { response in
                    guard response.status == .seeOther, let location = response.headers[.location],
                        let components = URLComponents(string: location), let cookie = response.cookie("onthemap_signin")
                    else {
                        return (response.status, nil)
                    }
                    return (response.status, StartedSignIn(authorization: components, browserCookie: cookie))
                }
            }
            // Only a loopback IP address may receive the code (RFC 8252 §7.3).
            for hostile in [
                "https://evil.example/cb", "http://localhost:5000/cb", "http://127.0.0.1/cb", "http://127.0.0.1:5000/cb?x=1",
                "http://evil.example:5000@127.0.0.1:80/",
            ] {
                #expect(try await startForApp(hostile).0 == .badRequest, "\(hostile)")
            }
            let started = try #require(try await startForApp(loopback).1)
            stub.grant(
                code: "app", idToken: try await stub.sign(claims(issuer, nonce: started.nonce)), authorization: started.authorization)
            let (status, location, session, _) = try await callback(client, started, code: "app")
            #expect(status == .seeOther && session == nil)
            let target = try #require(location.flatMap(URLComponents.init(string:)))
            #expect(target.host == "127.0.0.1" && target.port == 53682 && target.path == "/callback")
            let code = try #require(target.queryItems?.first { $0.name == "code" }?.value)
            // The wrong verifier spends the code: an interceptor gets one try and no session.
            try await client.execute(
                uri: "/api/auth/token", method: .post, body: jsonBody(["code": code, "code_verifier": Tokens.random()])
            ) { response in
                #expect(response.status == .forbidden)
            }
            try await client.execute(uri: "/api/auth/token", method: .post, body: jsonBody(["code": code, "code_verifier": verifier])) {
                response in
                #expect(response.status == .forbidden)
            }
            // A fresh round trip with the right verifier gets the password login's answer.
            let again = try #require(try await startForApp(loopback).1)
            stub.grant(code: "app2", idToken: try await stub.sign(claims(issuer, nonce: again.nonce)), authorization: again.authorization)
            let second = try await callback(client, again, code: "app2")
            let code2 = try #require(second.1.flatMap(URLComponents.init(string:))?.queryItems?.first { $0.name == "code" }?.value)
            let sessionID = try await client.execute(
                uri: "/api/auth/token", method: .post, body: jsonBody(["code": code2, "code_verifier": verifier])
            ) { response in
                #expect(response.status == .ok)
                let body = try response.json
                #expect((body["account"] as? [String: Any])?["registered"] as? Bool == true)
                return try #require((body["session"] as? [String: Any])?["id"] as? String)
            }
            let account = try #require(try await store.account(email: "ada@school.example"))
            #expect(try await store.session(id: sessionID, now: Date())?.accountKey == account.key)
        }
    }

    @Test("the provider list is public; facebook_mobile with udacity is 400, without Facebook configured 403")
    func providerListAndFacebookMobile() async throws {
        try await withProvider { client, _, _, _ in
            try await client.execute(uri: "/api/auth/providers", method: .get) { response in
                let list = try #require(try response.json["providers"] as? [[String: Any]])
                #expect(list.count == 1 && list[0]["id"] as? String == "school" && list[0]["name"] as? String == "School")
                #expect(!response.text.contains(StubOIDCProvider.clientSecret))
            }
            try await client.execute(
                uri: "/api/session", method: .post,
                body: jsonBody([
                    "udacity": ["username": "a@b.example", "password": "x"], "facebook_mobile": ["access_token": "EAAB"],
                ])
            ) { response in
                #expect(response.status == .badRequest)
                let error = try response.udacityJSON["error"] as? String
                #expect(error == "Send exactly one credential: udacity or facebook_mobile, not both.")
            }
            try await client.execute(uri: "/api/session", method: .post, body: jsonBody(["facebook_mobile": ["access_token": "EAAB;"]])) {
                response in
                #expect(response.status == .forbidden)
                let error = try response.udacityJSON["error"] as? String
                #expect(error == "Account not found or invalid credentials.")
            }
        }
        try await withTestServer { client in
            try await client.execute(uri: "/api/auth/providers", method: .get) { response throws in
                let list = try response.json["providers"] as? [Any]
                #expect(list != nil && list?.isEmpty == true)
            }
        }
    }

    @Test("--oidc-provider specs: secrets never printed, bad specs refused")
    func settingsParsing() throws {
        let parsed = try OIDCProviderSettings.parse(
            "id=school,name=School account,issuer=https://accounts.example.com,client-id=abc,client-secret-env=SCHOOL_SECRET",
            environment: ["SCHOOL_SECRET": "hunter2"])
        #expect(parsed.clientSecret == "hunter2" && parsed.displayName == "School account")
        #expect(!parsed.description.contains("hunter2"))
        for bad in [
            "id=School,issuer=https://a.example,client-id=x", "id=s,issuer=http://a.example,client-id=x",
            "id=s,issuer=https://a.example", "id=facebook,issuer=https://a.example,client-id=x",
            "id=s,issuer=https://a.example,client-id=x,client-secret-env=MISSING", "id=s,issuer=https://a.example,client-id=x,colour=red",
        ] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try OIDCProviderSettings.parse(bad, environment: [:]) }
        }
    }
}
