import Foundation
import HTTPTypes
import HummingbirdTesting
import OnTheMapModels
import Storage
import Testing

@testable import OnTheMapServer

@Suite("Password-reset links")
struct PasswordResetAPITests {
    @Test("an administrator's link sets a new password once; every session of the account ends; the old password stops working")
    func singleUse() async throws {
        try await withTestServer({ $0.publicURL = "https://map.example.org" }) { client in
            let admin = try await client.makeUser()
            let student = try await client.makeUser()
            let url = try await client.execute(
                uri: "/api/admin/users/\(student.key)/reset-link", method: .post,
                headers: admin.cookieHeaders
            ) { response throws in
                #expect(response.status == .created)
                let json = try response.json
                let expires = try #require((json["expires_at"] as? String).flatMap(ParseDate.date(from:)))
                #expect(abs(expires.timeIntervalSinceNow - 24 * 3600) < 60)
                return try #require(json["url"] as? String)
            }
            #expect(url.hasPrefix("https://map.example.org/reset.html#token="))
            let token = String(url.split(separator: "=").last!)
            #expect(token.count == 64)
            try await client.execute(
                uri: "/api/password-reset", method: .post,
                body: jsonBody(["token": token, "new_password": "new secret words"])
            ) { response throws in
                #expect(response.status == .ok)
                #expect(try response.json["ended_sessions"] as? Int == 1)
            }
            try await client.execute(uri: "/api/account", method: .get, headers: student.cookieHeaders) { response throws in
                #expect(response.status == .unauthorized)
            }
            _ = try await client.login(email: student.email, password: "new secret words")
            try await client.execute(
                uri: "/api/session", method: .post,
                body: jsonBody(["udacity": ["username": student.email, "password": student.password]])
            ) { response throws in
                #expect(response.status == .forbidden)
            }
            // Used once: a second use is refused and changes nothing.
            try await client.execute(
                uri: "/api/password-reset", method: .post,
                body: jsonBody(["token": token, "new_password": "another password"])
            ) { response throws in
                #expect(response.status == .badRequest)
                #expect(try (response.json["error"] as? [String: Any])?["code"] as? String == "invalid_reset_link")
            }
            _ = try await client.login(email: student.email, password: "new secret words")
        }
    }

    @Test("an expired link, an unknown token, a weak password or a bad body: 400 and the password is unchanged")
    func refusals() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = testConfiguration(dataDirectory: directory)
        let app = try await buildApplication(configuration: configuration, logger: testLogger)
        try await app.test(.router) { client in
            _ = try await client.makeUser()
            let student = try await client.makeUser()
            let store = try await SQLStore.open(url: configuration.resolvedDatabaseURL, logger: testLogger)
            let expired = try await PasswordResetLinks.create(
                for: student.key, store: store, origin: "http://x",
                now: Date().addingTimeInterval(-PasswordResetLinks.lifetime - 1))
            let live = try await PasswordResetLinks.create(for: student.key, store: store, origin: "http://x")
            try await store.close()
            let expiredToken = String(expired.url.split(separator: "=").last!)
            let liveToken = String(live.url.split(separator: "=").last!)
            let cases: [(Any, String)] = [
                (["token": expiredToken, "new_password": "long enough"], "invalid_reset_link"),
                (["token": String(repeating: "0", count: 64), "new_password": "long enough"], "invalid_reset_link"),
                (["token": String(repeating: "a", count: 500), "new_password": "long enough"], "invalid_reset_link"),
                (["token": liveToken, "new_password": "short"], "weak_password"),
                (["token": liveToken], "invalid_body"),
                (["token": 5, "new_password": "long enough"], "invalid_body"),
            ]
            for (body, code) in cases {
                try await client.execute(uri: "/api/password-reset", method: .post, body: jsonBody(body)) { response throws in
                    #expect(response.status == .badRequest)
                    #expect(try (response.json["error"] as? [String: Any])?["code"] as? String == code)
                }
            }
            // Nothing changed, and the live link still works after the refusals.
            _ = try await client.login(email: student.email, password: student.password)
            try await client.execute(
                uri: "/api/password-reset", method: .post,
                body: jsonBody(["token": liveToken, "new_password": "long enough"])
            ) { response throws in
                #expect(response.status == .ok)
            }
        }
    }
}
