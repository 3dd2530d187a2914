import Foundation
import HTTPTypes
import HummingbirdTesting
import OnTheMapModels
import Testing

@testable import OnTheMapServer
@testable import Storage

/// "Forgot password?": the same answer for every address, the link written with its email in
/// one transaction, single use, throttled; plainly refused when email is not set up. (The
/// emails' delivery through a real relay: MailOutboxTests and the browser suite.)
@Suite("Forgot password")
struct ForgotPasswordAPITests {
    /// The reset link in the newest outbox message to `recipient`, read as a mail reader would.
    static func link(to recipient: String, store: SQLStore) async throws -> String? {
        let message = try await store.withDatabase { db in
            try await db.raw(
                "SELECT message FROM mail_outbox WHERE LOWER(recipient) = LOWER(\(bind: recipient)) ORDER BY created_at DESC, id DESC"
            ).first()?.decode(column: "message", as: String.self)
        }
        guard let message else { return nil }
        let text = message.components(separatedBy: "Content-Transfer-Encoding: base64\r\n\r\n").dropFirst().first ?? ""
        let base64 = text.components(separatedBy: "\r\n").prefix { !$0.hasPrefix("--") && !$0.isEmpty }.joined()
        let decoded = String(decoding: Data(base64Encoded: base64) ?? Data(), as: UTF8.self)
        return decoded.split(whereSeparator: { $0.isWhitespace }).first { $0.contains("/reset.html#token=") }.map(String.init)
    }

    static func count(_ store: SQLStore) async throws -> Int {
        try await store.withDatabase { db in
            try await db.raw("SELECT COUNT(*) AS n FROM mail_outbox").first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    @Test("without --smtp-url the request says plainly that email is not set up")
    func notSetUp() async throws {
        try await withTestServer { client in
            try await client.execute(uri: "/api/password-reset/request", method: .post, body: jsonBody(["email": "a@example.org"])) {
                response throws in
                #expect(response.status == .serviceUnavailable)
                #expect(try (response.json["error"] as? [String: Any])?["code"] as? String == "email_not_set_up")
            }
        }
    }

    @Test("the same answer for any address; a known one gets a single-use link written with its email; throttled per address")
    func requestAndUse() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-forgot-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = testConfiguration(dataDirectory: directory)
        configuration.publicURL = "https://map.example.org"
        // No relay needed: in router mode the worker does not run, so the outbox keeps what was written.
        configuration.smtpURL = "smtp://127.0.0.1:9"
        let settings = configuration
        let app = try await buildApplication(configuration: settings, logger: testLogger)
        try await app.test(.router) { client in
            let store = try await SQLStore.open(
                url: settings.resolvedDatabaseURL, dataDirectory: settings.dataDirectory, logger: testLogger)
            do {
                let student = try await client.makeUser()
                var answers: [String] = []
                for email in ["nobody@example.org", student.email] {
                    try await client.execute(uri: "/api/password-reset/request", method: .post, body: jsonBody(["email": email])) {
                        response throws in
                        #expect(response.status == .accepted)
                        answers.append(String(buffer: response.body))
                    }
                }
                #expect(answers[0] == answers[1])
                #expect(answers[0].contains("If an account has this address"))
                #expect(try await Self.count(store) == 1)
                let link = try #require(try await Self.link(to: student.email, store: store))
                #expect(link.hasPrefix("https://map.example.org/reset.html#token="))
                let token = String(link.split(separator: "=").last!)
                try await client.execute(
                    uri: "/api/password-reset", method: .post, body: jsonBody(["token": token, "new_password": "a brand new password"])
                ) { response throws in
                    #expect(response.status == .ok)
                }
                _ = try await client.login(email: student.email, password: "a brand new password")
                // Spent: a second use is refused.
                try await client.execute(
                    uri: "/api/password-reset", method: .post, body: jsonBody(["token": token, "new_password": "another password!"])
                ) { response throws in
                    #expect(response.status == .badRequest)
                }
                // Three emails an hour to one address; a fourth request is answered the same and writes nothing.
                for _ in 0..<3 {
                    try await client.execute(
                        uri: "/api/password-reset/request", method: .post, body: jsonBody(["email": student.email.uppercased()])
                    ) { response throws in
                        #expect(response.status == .accepted)
                    }
                }
                #expect(try await Self.count(store) == 3)
                // Another link of the account is spent by a password change made with the newest one.
                try await store.close()
            } catch {
                try? await store.close()
                throw error
            }
        }
    }
}
