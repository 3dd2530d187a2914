import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import OnTheMapModels
import Storage
import Testing

@testable import OnTheMapServer

/// Guessing passwords is throttled per account and per client address, the owner
/// cannot be locked out by an attacker, and behind a trusted proxy the real client counts.
@Suite("Login throttling and trusted proxies")
struct ThrottleAndProxyTests {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!

    /// A login attempt: its status, `Retry-After`, the Udacity body and the cookies it set.
    struct Attempt {
        let status: HTTPResponse.Status
        let retryAfter: Int?
        let body: [String: Any]
        let cookies: [String]
    }

    static func attempt(_ client: any TestClientProtocol, _ email: String, _ password: String, headers: HTTPFields = [:]) async throws
        -> Attempt
    {
        try await client.execute(
            uri: "/api/session", method: .post, headers: headers,
            body: jsonBody(["udacity": ["username": email, "password": password]])
        ) { response throws in
            Attempt(
                status: response.status, retryAfter: response.headers[.retryAfter].flatMap { Int($0) },
                body: try response.udacityJSON, cookies: response.headers[values: .setCookie])
        }
    }

    @Test("an account locks after its free failures and refuses even the right password while locked")
    func accountLock() async throws {
        try await withTestServer({
            $0.loginThrottle.account = .init(freeFailures: 3, firstLock: 600)
        }) { client in
            let user = try await client.makeUser()
            for _ in 0..<4 {
                #expect(try await Self.attempt(client, user.email, "wrong guess").status == .forbidden)
            }
            let locked = try await Self.attempt(client, user.email, user.password)
            #expect(locked.status == .tooManyRequests)
            #expect(locked.body["status"] as? Int == 429)
            #expect((locked.body["error"] as? String)?.contains("try again in 10 minutes") == true)
            #expect((590...600).contains(locked.retryAfter ?? 0))
            #expect(!locked.cookies.contains { $0.hasPrefix("onthemap_session=") })
        }
    }

    @Test("a lock lifts when its time is up; a success then clears the account's count")
    func lockLifts() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-throttle-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLStore.open(url: "sqlite://" + directory.appendingPathComponent("t.sqlite").path, logger: testLogger)
        let throttle = LoginThrottle(store: store, settings: .init(account: .init(freeFailures: 2, firstLock: 30)))
        let subjects = [ThrottleSubject(.account, "a@b.co"), ThrottleSubject(.address, "192.0.2.1")]
        let t0 = Date()
        for second in 0..<3 { try await throttle.recordFailure(subjects, now: t0.addingTimeInterval(Double(second))) }
        #expect(try await throttle.retryAfter(subjects, now: t0.addingTimeInterval(2)) == 30)
        #expect(try await throttle.retryAfter(subjects, now: t0.addingTimeInterval(31)) == 1)
        #expect(try await throttle.retryAfter(subjects, now: t0.addingTimeInterval(33)) == nil)
        try await throttle.recordSuccess(subjects)
        // The account starts again with its free failures; the address keeps its count.
        try await throttle.recordFailure(subjects, now: t0.addingTimeInterval(34))
        #expect(try await throttle.retryAfter(subjects, now: t0.addingTimeInterval(34)) == nil)
        #expect(try await store.loginFailures([subjects[1]])[subjects[1]]?.failures == 4)
        try await store.close()
    }

    @Test("locks grow: each failure past the free ones doubles the wait, up to the maximum")
    func growingLocks() {
        let policy = LoginThrottle.Policy(freeFailures: 5, firstLock: 1, maximumLock: 900)
        #expect((1...5).map { policy.lock(afterFailures: $0) } == [nil, nil, nil, nil, nil])
        #expect([6, 7, 8, 12].map { policy.lock(afterFailures: $0) } == [1, 2, 4, 64])
        #expect(policy.lock(afterFailures: 20) == 900)
        #expect(policy.lock(afterFailures: 10_000) == 900)
    }

    @Test("the owner's device is not locked out by an attacker's guesses")
    func ownerNotLockedOut() async throws {
        try await withTestServer({
            $0.loginThrottle.account = .init(freeFailures: 2, firstLock: 600)
        }) { client in
            let user = try await client.makeUser()
            let first = try await Self.attempt(client, user.email, user.password)
            let device = try #require(first.cookies.first { $0.hasPrefix("onthemap_device=") }?.split(separator: ";").first)
            #expect(first.cookies.first { $0.hasPrefix("onthemap_device=") }?.contains("HttpOnly") == true)
            for _ in 0..<3 { _ = try await Self.attempt(client, user.email, "attacker guess") }
            #expect(try await Self.attempt(client, user.email, user.password).status == .tooManyRequests)
            // The owner's browser presents its device cookie and gets in.
            let owner = try await Self.attempt(client, user.email, user.password, headers: [.cookie: String(device)])
            #expect(owner.status == .ok)
            #expect(!owner.cookies.contains { $0.hasPrefix("onthemap_device=") }, "a known device keeps its cookie")
            // A device cookie of another account, or a made-up one, is no way around the lock.
            #expect(
                try await Self.attempt(client, user.email, user.password, headers: [.cookie: "onthemap_device=0123456789abcdef"]).status
                    == .tooManyRequests)
        }
    }

    @Test("one address guessing across many accounts is locked, whatever accounts it tries")
    func addressLock() async throws {
        try await withTestServer({
            $0.loginThrottle.address = .init(freeFailures: 4, firstLock: 600)
        }) { client in
            let user = try await client.makeUser()
            for index in 0..<5 {
                #expect(try await Self.attempt(client, "victim\(index)@example.com", "guess").status == .forbidden)
            }
            #expect(try await Self.attempt(client, user.email, user.password).status == .tooManyRequests)
        }
    }

    @Test("sign-ups and password changes are throttled too")
    func otherCredentialPaths() async throws {
        try await withTestServer({
            $0.loginThrottle.signUp = .init(freeFailures: 1, firstLock: 600)
            $0.loginThrottle.account = .init(freeFailures: 1, firstLock: 600)
        }) { client in
            let user = try await client.makeUser()  // the first sign-up
            _ = try await client.execute(
                uri: "/api/users", method: .post,
                body: jsonBody([
                    "email": "second@example.com", "password": "long enough", "first_name": "A", "last_name": "B",
                ])
            ) { response throws in #expect(response.status == .created) }
            try await client.execute(
                uri: "/api/users", method: .post,
                body: jsonBody([
                    "email": "third@example.com", "password": "long enough", "first_name": "A", "last_name": "B",
                ])
            ) { response throws in
                #expect(response.status == .tooManyRequests)
                #expect(response.headers[.retryAfter] != nil)
                #expect(try (response.json["error"] as? [String: Any])?["code"] as? String == "rate_limited")
            }
            for expected: HTTPResponse.Status in [.forbidden, .forbidden, .tooManyRequests] {
                try await client.execute(
                    uri: "/api/account/password", method: .post, headers: user.cookieHeaders,
                    body: jsonBody(["current_password": "a guess at it", "new_password": "whatever it is"])
                ) { response throws in
                    #expect(response.status == expected)
                }
            }
        }
    }

    @Test("behind a trusted proxy each real client has its own count; from anyone else the headers are ignored")
    func trustedProxyAddresses() async throws {
        try await withTestServer(
            {
                $0.trustedProxies = ["127.0.0.0/8", "::1"]
                $0.loginThrottle.address = .init(freeFailures: 2, firstLock: 600)
            }, mode: .live
        ) { client in
            for _ in 0..<3 { _ = try await Self.attempt(client, "a@example.com", "guess", headers: [Self.forwardedFor: "203.0.113.7"]) }
            #expect(
                try await Self.attempt(client, "b@example.com", "guess", headers: [Self.forwardedFor: "203.0.113.7"]).status
                    == .tooManyRequests)
            // A spoofed entry further left does not change who the proxy saw.
            #expect(
                try await Self.attempt(client, "b@example.com", "guess", headers: [Self.forwardedFor: "198.51.100.1, 203.0.113.7"]).status
                    == .tooManyRequests)
            #expect(
                try await Self.attempt(client, "c@example.com", "guess", headers: [Self.forwardedFor: "203.0.113.8"]).status == .forbidden)
        }
        try await withTestServer(
            {
                $0.loginThrottle.address = .init(freeFailures: 2, firstLock: 600)
            }, mode: .live
        ) { client in
            for index in 0..<3 {
                _ = try await Self.attempt(client, "a@example.com", "guess", headers: [Self.forwardedFor: "203.0.113.\(index)"])
            }
            #expect(
                try await Self.attempt(client, "b@example.com", "guess", headers: [Self.forwardedFor: "192.0.2.99"]).status
                    == .tooManyRequests)
        }
    }

    @Test("the proxy chain is walked from the nearest hop; Forwarded and IPv6 are understood")
    func forwardedResolution() throws {
        let trusted = try TrustedProxies(["10.0.0.0/8", "::1", "fd00::/8"])
        func resolve(_ peer: String, _ headers: HTTPFields) -> ForwardedClient {
            ForwardedClient.resolve(peer: peer, headers: headers, trusted: trusted)
        }
        #expect(resolve("10.1.2.3", [Self.forwardedFor: "1.1.1.1, 203.0.113.5, 10.9.9.9"]).address == "203.0.113.5")
        #expect(resolve("192.0.2.1", [Self.forwardedFor: "203.0.113.5"]).address == "192.0.2.1", "an untrusted peer's header is ignored")
        #expect(
            resolve("::1", [ForwardedClient.forwarded: #"for="[2001:db8::17]:4711";proto=https, for=10.0.0.2"#])
                == ForwardedClient(address: "2001:db8::17", isHTTPS: true))
        #expect(
            resolve("::ffff:10.0.0.1", [Self.forwardedFor: "198.51.100.4:5555", Self.forwardedProto: "https"])
                == ForwardedClient(address: "198.51.100.4", isHTTPS: true))
        #expect(
            resolve("10.0.0.1", [Self.forwardedFor: "198.51.100.4, unknown"]).address == "10.0.0.1",
            "nothing past an unreadable hop is believed")
        #expect(resolve("fd00::5", [:]).address == "fd00::5")
        #expect(throws: ConfigurationError.self) { try TrustedProxies(["10.0.0.0/33"]) }
        #expect(throws: ConfigurationError.self) { try TrustedProxies(["proxy.example"]) }
    }

    @Test("cookies are Secure when the public URL is https, or a trusted proxy says the client used https")
    func secureCookies() async throws {
        func sessionCookie(_ adjust: @escaping (inout Configuration) -> Void, headers: HTTPFields = [:]) async throws -> String {
            try await withTestServer(adjust, mode: .live) { client in
                let user = try await client.makeUser()
                let attempt = try await Self.attempt(client, user.email, user.password, headers: headers)
                return try #require(attempt.cookies.first { $0.hasPrefix("onthemap_session=") })
            }
        }
        #expect(try await sessionCookie({ $0.publicURL = "https://map.example.org" }).contains("Secure"))
        #expect(
            try await sessionCookie({ $0.trustedProxies = ["127.0.0.1", "::1"] }, headers: [Self.forwardedProto: "https"]).contains(
                "Secure"))
        #expect(try await !sessionCookie({ _ in }, headers: [Self.forwardedProto: "https"]).contains("Secure"))
        #expect(try await !sessionCookie({ $0.publicURL = "http://192.168.1.10:8080" }).contains("Secure"))
    }
}
