import Foundation
import HTTPTypes
import HummingbirdTesting
import OnTheMapModels
import Storage
import Testing

@testable import OnTheMapServer

/// The holes around accounts: reset links that outlive each other, links built from whatever
/// `Host` a request names, administrators disabling each other at once, malformed bodies.
@Suite("Account security")
struct AccountSecurityTests {
    func resetLink(_ client: any TestClientProtocol, admin: TestUser, for key: String) async throws -> String {
        try await client.execute(uri: "/api/admin/users/\(key)/reset-link", method: .post, headers: admin.cookieHeaders) {
            response throws in
            #expect(response.status == .created)
            return String(try #require(try response.json["url"] as? String).split(separator: "=").last!)
        }
    }

    func reset(_ client: any TestClientProtocol, _ token: String, to password: String) async throws -> HTTPResponse.Status {
        try await client.execute(
            uri: "/api/password-reset", method: .post,
            body: jsonBody(["token": token, "new_password": password])
        ) { $0.status }
    }

    @Test("using a reset link, changing the password or disabling the account spends every open link of it")
    func resetLinksAreSpentTogether() async throws {
        try await withTestServer { client in
            let admin = try await client.makeUser()
            let bob = try await client.makeUser()
            // Two links; the first is used: the second no longer works.
            let first = try await resetLink(client, admin: admin, for: bob.key)
            let second = try await resetLink(client, admin: admin, for: bob.key)
            #expect(try await reset(client, first, to: "bob's new password") == .ok)
            #expect(try await reset(client, second, to: "someone else's") == .badRequest)
            _ = try await client.login(email: bob.email, password: "bob's new password")

            // A link made before Bob changes his own password dies with the change.
            let third = try await resetLink(client, admin: admin, for: bob.key)
            let session = try await client.login(email: bob.email, password: "bob's new password")
            try await client.execute(
                uri: "/api/account/password", method: .post, headers: [.cookie: "onthemap_session=\(session)"],
                body: jsonBody(["current_password": "bob's new password", "new_password": "bob's own again"])
            ) { response throws in
                #expect(response.status == .ok)
            }
            #expect(try await reset(client, third, to: "someone else's") == .badRequest)
            try await client.execute(uri: "/api/auth/me", method: .get, headers: [.cookie: "onthemap_session=\(session)"]) {
                response throws in
                #expect(response.status == .ok)
            }

            // Disabling the account spends its links too (enabling it again does not revive them).
            let fourth = try await resetLink(client, admin: admin, for: bob.key)
            for action in ["disable", "enable"] {
                try await client.execute(uri: "/api/admin/users/\(bob.key)/\(action)", method: .post, headers: admin.cookieHeaders) {
                    response throws in
                    #expect(response.status == .ok)
                }
            }
            #expect(try await reset(client, fourth, to: "someone else's") == .badRequest)
            _ = try await client.login(email: bob.email, password: "bob's own again")
        }
    }

    @Test("at least one enabled administrator remains, however two administrators race")
    func lastAdministrator() async throws {
        try await withTestServer { client in
            let first = try await client.makeUser()
            let second = try await client.makeUser()
            try await client.execute(uri: "/api/admin/users/\(second.key)/promote", method: .post, headers: first.cookieHeaders) {
                response throws in
                #expect(response.status == .ok)
            }
            // Each disables the other at the same moment: exactly one wins.
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for (actor, target) in [(first, second), (second, first)] {
                    group.addTask {
                        try await client.execute(
                            uri: "/api/admin/users/\(target.key)/disable", method: .post,
                            headers: actor.cookieHeaders
                        ) { $0.status }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // The loser is refused as the last administrator, or, if the winner's disabling
            // came first, finds its own session already ended.
            #expect(statuses.filter { $0 == .ok }.count == 1, "\(statuses)")
            #expect(statuses.allSatisfy { [.ok, .conflict, .unauthorized].contains($0) }, "\(statuses)")
            // The loser was disabled, so its session ended.
            let firstStillIn = try await client.execute(uri: "/api/auth/me", method: .get, headers: first.cookieHeaders) {
                $0.status == .ok
            }
            let winner = firstStillIn ? first : second
            try await client.execute(uri: "/api/admin/users", method: .get, headers: winner.cookieHeaders) { response throws in
                #expect(response.status == .ok)
                let users = try #require(try response.json["users"] as? [[String: Any]])
                let enabledAdmins = users.filter { $0["is_admin"] as? Bool == true && $0["disabled"] as? Bool == false }
                #expect(enabledAdmins.map { $0["key"] as? String } == [winner.key])
            }
            // The one left cannot be disabled by anyone, itself included.
            try await client.execute(uri: "/api/admin/users/\(winner.key)/disable", method: .post, headers: winner.cookieHeaders) {
                response throws in
                #expect(response.status == .badRequest)
            }
        }
    }

    @Test("without --public-url, links come only from an allowed Host; any other Host is refused with what to set")
    func linksFromAllowedHostsOnly() async throws {
        try await withLiveServer({ $0.allowedOrigins = ["https://maps.school.example"] }) { port, configuration in
            let store = try await SQLStore.open(url: configuration.resolvedDatabaseURL, logger: testLogger)
            let now = Date()
            try await store.createAccount(
                Account(
                    key: "1000000001", email: "admin@example.com", passwordHash: "", firstName: "A",
                    lastName: "B", createdAt: now, isAdmin: true))
            try await store.createAccount(
                Account(
                    key: "1000000002", email: "bob@example.com", passwordHash: "", firstName: "B",
                    lastName: "C", createdAt: now))
            try await store.createSession(
                Session(id: "admin-session", accountKey: "1000000001", createdAt: now, expiresAt: now.addingTimeInterval(600)))
            try await store.close()
            func resetLink(host: String) async throws -> String {
                try await rawExchange(
                    port: port,
                    """
                    POST /api/admin/users/1000000002/reset-link HTTP/1.1\r
                    Host: \(host)\r
                    X-Parse-Session-Token: admin-session\r
                    Content-Length: 0\r
                    Connection: close\r
                    \r

                    """)
            }
            for hostile in [
                "evil.example", "evil.example/#", "127.0.0.1:\(port)@evil.example", "evil.example:\(port)", "localhost.evil.example",
            ] {
                let answer = try await resetLink(host: hostile)
                #expect(answer.hasPrefix("HTTP/1.1 400"), "\(hostile): \(answer.prefix(80))")
                #expect(answer.contains("unknown_host") && answer.contains("--public-url"), "\(hostile)")
                #expect(!answer.contains("reset.html"), "\(hostile)")
            }
            for (allowed, origin) in [
                ("127.0.0.1:\(port)", "http://127.0.0.1:\(port)"), ("localhost:\(port)", "http://localhost:\(port)"),
                ("maps.school.example:443", "http://maps.school.example:443"),
            ] {
                let answer = try await resetLink(host: allowed)
                #expect(answer.hasPrefix("HTTP/1.1 201"), "\(allowed): \(answer.prefix(80))")
                #expect(answer.contains("\"url\":\"\(origin)/reset.html#token="), "\(allowed)")
            }
        }
    }

    @Test("the Host a link may come from: names the host allowed, nothing that smuggles another address")
    func hostRules() {
        var configuration = Configuration()
        configuration.host = "127.0.0.1"
        configuration.port = 8080
        configuration.allowedOrigins = ["https://maps.school.example"]
        let origins = PublicOrigin(configuration: configuration)
        #expect(origins.allowedAuthorities == ["127.0.0.1:8080", "localhost:8080", "[::1]:8080", "maps.school.example:443"])
        for (text, expected) in [("Example.ORG", "example.org:80"), ("a.example:8080", "a.example:8080"), ("[::1]:80", "[::1]:80")] {
            #expect(PublicOrigin.normalizedAuthority(text, scheme: "http") == expected)
        }
        for hostile in ["evil.example/#", "127.0.0.1:8080@evil.example", "a b", "a:b:c", "evil.example:99999", "", "[::1", "ex\u{0}ample"] {
            #expect(PublicOrigin.normalizedAuthority(hostile, scheme: "http") == nil, "\(hostile)")
        }
        configuration.host = "0.0.0.0"
        #expect(PublicOrigin(configuration: configuration).allowedAuthorities == ["maps.school.example:443"])
    }

    @Test("a sign-in started through an unknown Host is refused before any provider is asked")
    func signInFromUnknownHost() async throws {
        try await withLiveServer({ configuration in
            // Never contacted: the refusal comes first.
            configuration.oidcProviders = [
                OIDCProviderSettings(
                    id: "school", displayName: "School", issuer: "http://127.0.0.1:9",
                    clientID: "c", clientSecret: nil)
            ]
        }) { port, _ in
            let answer = try await rawExchange(
                port: port, "GET /auth/school/start HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 400"))
            #expect(answer.contains("--public-url") && !answer.lowercased().contains("location:"))
        }
    }

    @Test("a malformed chunked body is a 400 in the route's own format, never a 500")
    func malformedChunkedBody() async throws {
        try await withLiveServer({ _ in }) { port, _ in
            for (path, marker) in [("/api/users", "\"error\":{"), ("/api/password-reset", "\"error\":{"), ("/api/session", ")]}'")] {
                for size in ["ZZ", "FFFFFFFFFFFFFFFFFF"] {
                    let answer = try await rawExchange(
                        port: port,
                        """
                        POST \(path) HTTP/1.1\r
                        Host: 127.0.0.1\r
                        Content-Type: application/json\r
                        Transfer-Encoding: chunked\r
                        \r
                        \(size)\r
                        {"email":"a@b.co"}\r
                        0\r
                        \r

                        """, stopAfter: "}")
                    #expect(answer.hasPrefix("HTTP/1.1 400"), "\(path) \(size): \(answer.prefix(120))")
                    #expect(answer.contains(marker), "\(path) \(size): \(answer)")
                }
            }
        }
    }

    @Test(
        "an oversized header is 431 and an oversized URL 414, each in the route's own format; the connection's next request is heard as usual"
    )
    func oversizedHeadsAnswerInTheProtocolsFormat() async throws {
        try await withLiveServer({ _ in }) { port, _ in
            let padding = String(repeating: "a", count: 100_000)
            for (path, marker) in [
                ("/health", #""code":"headers_too_large""#), ("/parse/classes/StudentLocation", #""code":116"#),
                ("/api/session", ")]}'"), ("/api/geocode?q=x", #""code":"headers_too_large""#),
            ] {
                let answer = try await rawExchange(port: port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: \(padding)\r\n\r\n")
                #expect(answer.hasPrefix("HTTP/1.1 431"), "\(path): \(answer.prefix(80))")
                #expect(answer.contains(marker), "\(path): \(answer.suffix(200))")
            }
            let long = try await rawExchange(
                port: port, "GET /parse/classes/StudentLocation?where=\(padding) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(long.hasPrefix("HTTP/1.1 414") && long.contains(#""code":116"#), "\(long.prefix(80))")
            // Heads and bodies within bounds are untouched, one after the other on one connection.
            let body = #"{"udacity":{"username":"nobody@example.com","password":"\#(String(repeating: "p", count: 900))"}}"#
            let pair = try await rawExchange(
                port: port,
                """
                GET /health HTTP/1.1\r
                Host: 127.0.0.1\r
                X-Padding: \(String(repeating: "b", count: 30_000))\r
                \r
                POST /api/session HTTP/1.1\r
                Host: 127.0.0.1\r
                Content-Type: application/json\r
                Content-Length: \(body.utf8.count)\r
                Connection: close\r
                \r
                \(body)
                """)
            #expect(pair.hasPrefix("HTTP/1.1 200") && pair.contains("HTTP/1.1 403"), "\(pair.prefix(300))")
        }
    }
}
