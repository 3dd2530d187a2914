import Foundation
import HTTPTypes
import HummingbirdTesting
import OnTheMapModels
import Testing

@testable import OnTheMapServer
@testable import Storage

/// A class's invite link sent by email (teachers only, written to the outbox with the link on
/// the public URL, bounded per request and per class a day, a plain 503 without email), and
/// the invite page's public look-up (the class's name and teacher; an unknown class and a
/// wrong or revoked code answer alike). The emails' delivery through a real relay:
/// ClassInviteMailTests (CLITests).
@Suite("Class invitations")
struct ClassInviteAPITests {
    static func error(_ response: TestResponse) -> String? {
        (try? response.json["error"] as? [String: Any])?["code"] as? String
    }

    static func send(_ client: some TestClientProtocol, _ user: TestUser, slug: String, _ emails: [String]) async throws -> TestResponse {
        try await client.execute(
            uri: "/api/classes/\(slug)/invite/email", method: .post, headers: user.cookieHeaders, body: jsonBody(["emails": emails])
        ) { $0 }
    }

    static func outbox(_ store: SQLStore) async throws -> [(recipient: String, kind: String, message: String)] {
        try await store.withDatabase { db in
            try await db.raw("SELECT recipient, kind, message FROM mail_outbox ORDER BY recipient").all().map {
                (
                    try $0.decode(column: "recipient", as: String.self), try $0.decode(column: "kind", as: String.self),
                    try $0.decode(column: "message", as: String.self)
                )
            }
        }
    }

    /// The plain-text part of a composed message.
    static func text(of message: String) -> String {
        let part = message.components(separatedBy: "Content-Transfer-Encoding: base64\r\n\r\n").dropFirst().first ?? ""
        let base64 = part.components(separatedBy: "\r\n").prefix { !$0.hasPrefix("--") && !$0.isEmpty }.joined()
        return String(decoding: Data(base64Encoded: base64) ?? Data(), as: UTF8.self)
    }

    @Test("without email set up the teacher is told so plainly (503); a student is refused first (403)")
    func notSetUp() async throws {
        try await withTestServer { client in
            let teacher = try await client.makeUser()
            let student = try await client.makeUser()
            let made = try await ClassTests.makeClass(client, by: teacher, slug: "geo-101")
            #expect(try await ClassTests.join(client, student, slug: "geo-101", code: made["invite_code"] as? String).status == .ok)
            let refused = try await Self.send(client, student, slug: "geo-101", ["a@example.org"])
            #expect(refused.status == .forbidden)
            let answer = try await Self.send(client, teacher, slug: "geo-101", ["a@example.org"])
            #expect(answer.status == .serviceUnavailable)
            #expect(Self.error(answer) == "email_not_set_up")
        }
    }

    @Test("a teacher's invitations are written with the link on the public URL; validated; bounded; students get 403")
    func sendByEmail() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-invite-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = testConfiguration(dataDirectory: directory)
        configuration.publicURL = "https://map.example.org"
        // In router mode the worker does not run: the outbox keeps what was written.
        configuration.smtpURL = "smtp://127.0.0.1:9"
        let settings = configuration
        let app = try await buildApplication(configuration: settings, logger: testLogger)
        try await app.test(.router) { client in
            let store = try await SQLStore.open(
                url: settings.resolvedDatabaseURL, dataDirectory: settings.dataDirectory, logger: testLogger)
            do {
                let teacher = try await client.makeUser()
                let student = try await client.makeUser()
                let made = try await ClassTests.makeClass(client, by: teacher, slug: "geo-101")
                let code = try #require(made["invite_code"] as? String)
                #expect(try await ClassTests.join(client, student, slug: "geo-101", code: code).status == .ok)

                let sent = try await Self.send(
                    client, teacher, slug: "geo-101", ["Ana@Example.org", "ben@example.org", "ana@example.org "])
                #expect(sent.status == .accepted)
                #expect(try sent.json["sent"] as? Int == 2, "one email per address, the same address once")
                let written = try await Self.outbox(store)
                #expect(written.map(\.recipient) == ["ana@example.org", "ben@example.org"])
                let text = Self.text(of: written[0].message)
                #expect(text.contains("https://map.example.org/#/join/geo-101/\(code)"), "\(text)")
                #expect(text.contains("Class geo-101"), "the class's name")
                #expect(text.contains("Ada Lovelace"), "the teacher's name")
                // Each address is on the roster as invited, for the teacher to follow, send again or withdraw.
                let roster = try await client.execute(
                    uri: "/api/classes/geo-101/members", method: .get, headers: teacher.cookieHeaders
                ) { try $0.json }
                let invited = (roster["invitations"] as? [[String: Any]] ?? []).compactMap { $0["email"] as? String }.sorted()
                #expect(invited == ["ana@example.org", "ben@example.org"])

                #expect(try await Self.send(client, student, slug: "geo-101", ["c@example.org"]).status == .forbidden)
                let invalid = try await Self.send(client, teacher, slug: "geo-101", ["c@example.org", "not an address"])
                #expect(invalid.status == .badRequest)
                #expect(Self.error(invalid) == "invalid_email")
                #expect(Self.error(try await Self.send(client, teacher, slug: "geo-101", [])) == "invalid_email")
                let many = (0...ClassInviteController.maximumAddresses).map { "s\($0)@example.org" }
                #expect(Self.error(try await Self.send(client, teacher, slug: "geo-101", many)) == "too_many_addresses")
                #expect(try await Self.outbox(store).count == 2, "a refused request writes nothing")

                // 500 a class a day: 2 written, 498 more fit, then one more is a 429 in our format.
                for batch in [200, 200, 98] {
                    let emails = (0..<batch).map { "b\(batch)-\($0)@example.org" }
                    #expect(try await Self.send(client, teacher, slug: "geo-101", emails).status == .accepted)
                }
                let over = try await Self.send(client, teacher, slug: "geo-101", ["one-more@example.org"])
                #expect(over.status == .tooManyRequests)
                #expect(Self.error(over) == "too_many_invitations")
                #expect(try await Self.outbox(store).count == 500)

                // No link, no email.
                _ = try await ClassTests.makeClass(client, by: teacher, slug: "geo-102")
                try await client.execute(uri: "/api/classes/geo-102/invite", method: .delete, headers: teacher.cookieHeaders) { _ in }
                #expect(Self.error(try await Self.send(client, teacher, slug: "geo-102", ["c@example.org"])) == "no_invite_link")
                try await store.close()
            } catch {
                try? await store.close()
                throw error
            }
        }
    }

    @Test("the invite page's look-up: the class's name and its teacher's first name and initial; a wrong, revoked or unknown code alike")
    func lookUp() async throws {
        try await withTestServer { client in
            let teacher = try await client.makeUser()
            let made = try await ClassTests.makeClass(client, by: teacher, slug: "geo-101")
            let code = try #require(made["invite_code"] as? String)
            let found = try await client.execute(uri: "/api/invites/geo-101/\(code)", method: .get) { $0 }
            #expect(found.status == .ok)
            let body = try found.json
            #expect(body["name"] as? String == "Class geo-101")
            #expect(body["slug"] as? String == "geo-101")
            #expect(body["teacher"] as? String == "Ada L.")
            #expect(body["archived"] as? Bool == false)
            #expect(body.keys.sorted() == ["archived", "name", "slug", "teacher"], "nothing else about the class")

            var answers: [String] = []
            for uri in ["/api/invites/geo-101/0123456789abcdef01234567", "/api/invites/no-such-class/\(code)"] {
                let missing = try await client.execute(uri: uri, method: .get) { $0 }
                #expect(missing.status == .notFound)
                answers.append(missing.text)
            }
            try await client.execute(uri: "/api/classes/geo-101/invite", method: .delete, headers: teacher.cookieHeaders) { _ in }
            let revoked = try await client.execute(uri: "/api/invites/geo-101/\(code)", method: .get) { $0 }
            #expect(revoked.status == .notFound)
            #expect(Self.error(revoked) == "invalid_invite")
            answers.append(revoked.text)
            #expect(Set(answers).count == 1, "an unknown class, a wrong code and a revoked one answer alike")
        }
    }

    @Test func shortNames() {
        #expect(ClassInviteController.shortName(first: "Ada", last: "Lovelace") == "Ada L.")
        #expect(ClassInviteController.shortName(first: "Ada", last: "") == "Ada")
        #expect(ClassInviteController.shortName(first: "李", last: "王小明") == "李 王.")
    }
}
