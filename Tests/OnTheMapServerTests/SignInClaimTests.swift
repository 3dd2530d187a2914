import Foundation
import HTTPTypes
import HummingbirdTesting
import OnTheMapModels
import Storage
import Testing

@testable import OnTheMapServer

/// An email nobody proved gives no foothold: a provider vouching for the email of an account
/// made with a password hands that account to the person it vouched for.
extension SignInTests {
    @Test("an account set up with a student's email before they arrive becomes theirs, and every foothold of its maker goes")
    func preRegistrationTakeover() async throws {
        try await withProvider { client, stub, issuer, store in
            // The attacker signs up with the email of a student who has not arrived yet,
            // logs in (a session and a known device), links a provider of their own and holds
            // a reset link.
            let attacker = try await client.makeUser(email: "newstudent@school.example", password: "attacker's password")
            #expect(try await store.account(key: attacker.key)?.emailVerified == false)
            #expect(
                try await store.linkIdentity(
                    IdentityLink(
                        provider: "facebook", subject: "attacker-fb", accountKey: attacker.key,
                        email: "", createdAt: Date(), origin: .accountMenu)))
            let resetLink = try await PasswordResetLinks.create(for: attacker.key, store: store, origin: "http://x")
            let resetToken = String(resetLink.url.split(separator: "=").last!)

            // A provider that does not say the email is verified changes nothing.
            let unverified = try await signIn(client, stub, issuer, sub: "student-sub", email: "newstudent@school.example", verified: false)
            #expect(unverified == nil)
            #expect(try await store.identities(accountKey: attacker.key).map(\.provider) == ["facebook"])

            // The student signs in with the school's provider, which vouches for the email.
            let started = try await start(client, returnPath: "/#/map")
            stub.grant(
                code: "claim",
                idToken: try await stub.sign(
                    claims(
                        issuer, nonce: started.nonce, sub: "student-sub",
                        email: "NewStudent@school.example")),
                authorization: started.authorization)
            let (status, location, session, page) = try await callback(client, started, code: "claim")
            // Told on arrival, then on to where they were going.
            #expect(status == .ok && location == nil)
            #expect(page.contains("already existed") && page.contains("password was removed") && page.contains("href=\"/#/map\""))
            let studentSession = try #require(session)

            let account = try #require(try await store.account(key: attacker.key))
            #expect(account.passwordHash.isEmpty && account.emailVerified)
            #expect(account.firstName == "Ada" && account.lastName == "Lovelace")
            #expect(try await store.identities(accountKey: account.key).map(\.provider) == ["school"])
            // Every foothold is gone: the session, the password, the reset link, the device.
            try await client.execute(uri: "/api/auth/me", method: .get, headers: attacker.cookieHeaders) { response throws in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(
                uri: "/api/session", method: .post,
                body: jsonBody(["udacity": ["username": attacker.email, "password": attacker.password]])
            ) { response throws in
                #expect(response.status == .forbidden)
            }
            #expect(try await store.passwordResetAccount(token: resetToken, now: Date()) == nil)
            try await client.execute(
                uri: "/api/password-reset", method: .post,
                body: jsonBody(["token": resetToken, "new_password": "attacker again"])
            ) { response throws in
                #expect(response.status == .badRequest)
            }
            // The student is signed in to it, and can set a password of their own.
            try await client.execute(uri: "/api/auth/me", method: .get, headers: [.cookie: "onthemap_session=\(studentSession)"]) {
                response throws in
                #expect(response.status == .ok)
                #expect(try response.json["key"] as? String == attacker.key)
            }
            try await client.execute(
                uri: "/api/account/password", method: .post, headers: [.cookie: "onthemap_session=\(studentSession)"],
                body: jsonBody(["current_password": "", "new_password": "the student's own"])
            ) { response throws in
                #expect(response.status == .ok)
            }
            // The next sign-in is an ordinary one.
            let again = try await start(client)
            stub.grant(
                code: "again",
                idToken: try await stub.sign(
                    claims(
                        issuer, nonce: again.nonce, sub: "student-sub",
                        email: "newstudent@school.example")),
                authorization: again.authorization)
            let next = try await callback(client, again, code: "again")
            #expect(next.0 == .seeOther && next.2 != nil)
            _ = try await client.login(email: "newstudent@school.example", password: "the student's own")
        }
    }

    @Test("an account whose owner linked the provider from the account menu keeps its password; a link made the old way is claimed")
    func provenAndLegacyLinks() async throws {
        try await withProvider { client, stub, issuer, store in
            // The owner, signed in with their password, links the provider from the menu.
            let owner = try await client.makeUser(email: "grace@school.example", password: "grace's password")
            let (location, browser) = try await client.execute(
                uri: "/api/auth/school/link", method: .post,
                headers: owner.cookieHeaders
            ) { response throws in
                (try #require(try response.json["location"] as? String), try #require(response.cookie("onthemap_signin")))
            }
            let linking = StartedSignIn(authorization: try #require(URLComponents(string: location)), browserCookie: browser)
            stub.grant(
                code: "link",
                idToken: try await stub.sign(claims(issuer, nonce: linking.nonce, sub: "grace-sub", email: "grace@school.example")),
                authorization: linking.authorization)
            try await client.execute(
                uri: "/auth/school/callback?code=link&state=\(linking.state)", method: .get,
                headers: [.cookie: "onthemap_signin=\(browser); onthemap_session=\(owner.sessionID)"]
            ) { response throws in
                #expect(response.status == .seeOther)
            }
            #expect(try await store.identities(accountKey: owner.key).map(\.origin) == [.accountMenu])
            #expect(try await store.account(key: owner.key)?.emailVerified == true)
            // Signing in with it later is ordinary: the password and its session stay.
            #expect(try await signIn(client, stub, issuer, sub: "grace-sub", email: "grace@school.example") != nil)
            _ = try await client.login(email: owner.email, password: owner.password)
            try await client.execute(uri: "/api/auth/me", method: .get, headers: owner.cookieHeaders) { response throws in
                #expect(response.status == .ok)
            }

            // A link the old rule made by email to an unproven account with a password.
            let maker = try await client.makeUser(email: "lin@school.example", password: "someone's password")
            #expect(
                try await store.linkIdentity(
                    IdentityLink(
                        provider: "school", subject: "lin-sub", accountKey: maker.key,
                        email: "lin@school.example", createdAt: Date(), origin: .legacy)))
            let started = try await start(client)
            stub.grant(
                code: "legacy",
                idToken: try await stub.sign(claims(issuer, nonce: started.nonce, sub: "lin-sub", email: "lin@school.example")),
                authorization: started.authorization)
            let (status, _, session, page) = try await callback(client, started, code: "legacy")
            #expect(status == .ok && session != nil && page.contains("already existed"))
            #expect(try await store.account(key: maker.key)?.passwordHash.isEmpty == true)
            #expect(try await store.identities(accountKey: maker.key).map(\.origin) == [.verifiedEmail])
            try await client.execute(uri: "/api/auth/me", method: .get, headers: maker.cookieHeaders) { response throws in
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test("the sign-in cookie is issued fresh, never adopted; over HTTPS it is __Host- prefixed and Secure")
    func freshSignInCookie() async throws {
        try await withProvider { client, _, _, _ in
            let planted = Tokens.random()
            let started = try await start(client, cookie: planted)
            #expect(started.browserCookie != planted && started.browserCookie.count == 43)
            // The planted value does not finish the sign-in it started.
            let (status, _, session, _) = try await callback(client, started, code: "any", cookie: planted)
            #expect(status == .badRequest && session == nil)
        }
        try await withProvider({ $0.publicURL = "https://map.example.org" }) { client, _, _, _ in
            try await client.execute(
                uri: "/auth/school/start", method: .get,
                headers: [.cookie: "__Host-onthemap_signin=\(Tokens.random())"]
            ) { response throws in
                #expect(response.status == .seeOther)
                let setCookie = response.headers[values: .setCookie].first { $0.hasPrefix("__Host-onthemap_signin=") }
                let cookie = try #require(setCookie)
                #expect(cookie.contains("Secure") && cookie.contains("Path=/") && !cookie.lowercased().contains("domain="))
                #expect(
                    response.headers[.location]?.contains("redirect_uri=https%3A%2F%2Fmap.example.org%2Fauth%2Fschool%2Fcallback") == true)
            }
        }
    }
}
