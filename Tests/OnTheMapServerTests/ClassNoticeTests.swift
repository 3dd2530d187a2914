import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OnTheMapModels
import Testing

@testable import OnTheMapServer
@testable import Storage

/// Teachers' notices: a class's moderators and teachers ask to be told by email when posts
/// wait for approval or are reported; at most one email an hour for each, with the count, a
/// link to the class and a one-click stop (RFC 8058); students cannot ask; a stop link ends
/// only its own notice. The emails are read from the outbox (their delivery through a real
/// relay: MailOutboxTests).
@Suite("Teachers' notices")
struct ClassNoticeTests {
    /// The newest outbox message to `recipient`: its headers and its plain text, decoded.
    static func newestMail(to recipient: String, store: SQLStore) async throws -> (headers: String, text: String)? {
        let message = try await store.withDatabase { db in
            try await db.raw(
                """
                SELECT message FROM mail_outbox WHERE LOWER(recipient) = LOWER(\(bind: recipient)) AND kind LIKE 'notice_%'
                ORDER BY created_at DESC, id DESC
                """
            ).first()?.decode(column: "message", as: String.self)
        }
        guard let message else { return nil }
        let headers = message.components(separatedBy: "\r\n\r\n").first ?? ""
        let part = message.components(separatedBy: "Content-Transfer-Encoding: base64\r\n\r\n").dropFirst().first ?? ""
        let base64 = part.components(separatedBy: "\r\n").prefix { !$0.hasPrefix("--") && !$0.isEmpty }.joined()
        return (headers, String(decoding: Data(base64Encoded: base64) ?? Data(), as: UTF8.self))
    }

    static func notices(_ store: SQLStore) async throws -> Int {
        try await store.withDatabase { db in
            try await db.raw("SELECT COUNT(*) AS n FROM mail_outbox WHERE kind LIKE 'notice_%'").first()?.decode(column: "n", as: Int.self)
                ?? 0
        }
    }

    /// A server with email set up (to a relay nobody listens on: in router mode no worker
    /// sends, so the outbox keeps what was written), its clock in the test's hands.
    static func withMailServer(
        clock: ManualClock, _ body: @escaping @Sendable (any TestClientProtocol, SQLStore, ClassNoticeWorker) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-notices-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = testConfiguration(dataDirectory: directory)
        configuration.publicURL = "https://map.example.org"
        configuration.smtpURL = "smtp://127.0.0.1:9"
        configuration.clock = clock.clock
        let settings = configuration
        let app = try await buildApplication(configuration: settings, logger: testLogger)
        try await app.test(.router) { client in
            let store = try await SQLStore.open(
                url: settings.resolvedDatabaseURL, dataDirectory: settings.dataDirectory, logger: testLogger)
            let mailer = try #require(Mailer(configuration: settings, wake: MailOutboxWake()))
            let worker = ClassNoticeWorker(store: store, mailer: mailer, clock: clock.clock, logger: testLogger)
            do {
                try await body(client, store, worker)
                try await store.close()
            } catch {
                try? await store.close()
                throw error
            }
        }
    }

    @Test("a teacher who asked is told of waiting posts at most once an hour, with the count, the class's link and a one-click stop")
    func waiting() async throws {
        let clock = ManualClock()
        try await Self.withMailServer(clock: clock) { client, store, worker in
            let roster = try await ClassRosterTests.makeRoster(client, slug: "geo")
            let noticesURI = "/api/classes/geo/notices"
            // Nothing asked yet: a post waits, and nobody is told.
            #expect(try await worker.writeDue() == 0)
            let asked = try await ClassRosterTests.request(client, noticesURI, .put, as: roster.admin, body: ["waiting": true])
            #expect(asked.status == .ok)
            #expect(try asked.json["email"] as? Bool == true)
            #expect(try asked.json["waiting"] as? Bool == true)
            #expect(try asked.json["reported"] as? Bool == false)
            // What waited before asking is not news; a post after it is.
            #expect(try await worker.writeDue() == 0)
            clock.advance(by: 1)
            #expect(try await ClassRosterTests.post(client, roster.none, slug: "geo", first: "Nia", latitude: 39.8).status == .created)
            #expect(try await worker.writeDue() == 1)
            let mail = try #require(try await Self.newestMail(to: roster.admin.email, store: store))
            #expect(mail.headers.contains("Subject: Posts wait for your approval in Class geo"))
            #expect(mail.text.contains("Waiting now: 2."))
            #expect(mail.text.contains("https://map.example.org/#/c/geo/map"))
            #expect(mail.headers.contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click"))
            let stopLink = try #require(
                mail.headers.components(separatedBy: "\r\n").first { $0.hasPrefix("List-Unsubscribe: <") }.map {
                    String($0.dropFirst("List-Unsubscribe: <".count).dropLast())
                })
            #expect(stopLink.hasPrefix("https://map.example.org/api/notices/stop?token="))
            let token = String(stopLink.split(separator: "=").last!)
            #expect(mail.text.contains("https://map.example.org/#/stop-notice/\(token)"))
            // Nothing new, or new within the hour: no second email.
            #expect(try await worker.writeDue() == 0)
            clock.advance(by: 60)
            #expect(try await ClassRosterTests.post(client, roster.onMap, slug: "geo", first: "Otto", latitude: 39.7).status.code < 300)
            #expect(try await worker.writeDue() == 0)
            // An hour after the last one: one email with the count now, from one of two servers.
            clock.advance(by: 3600)
            let written = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<2 { group.addTask { try await worker.writeDue() } }
                return try await group.reduce(0, +)
            }
            #expect(written == 1)
            #expect(try await Self.newestMail(to: roster.admin.email, store: store)?.text.contains("Waiting now: 3.") == true)
            #expect(try await Self.notices(store) == 2)

            // The mail app's one-click stop (a form post to the link, no cookie): that notice ends.
            let stopped = try await client.execute(
                uri: String(stopLink.dropFirst("https://map.example.org".count)), method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: "List-Unsubscribe=One-Click")
            ) { $0 }
            #expect(stopped.status == .ok)
            #expect(try stopped.json["class"] as? String == "Class geo")
            #expect(try stopped.json["kind"] as? String == "waiting")
            let again = try await client.execute(
                uri: "/api/notices/stop", method: .post, body: jsonBody(["token": token])
            ) { $0 }
            #expect(again.status == .notFound)
            #expect(ClassRosterTests.errorCode(again) == "invalid_stop_link")
            #expect(try await ClassRosterTests.request(client, noticesURI, as: roster.admin).json["waiting"] as? Bool == false)
            clock.advance(by: 3600)
            #expect(try await ClassRosterTests.post(client, roster.waiting, slug: "geo", first: "Wanda", latitude: 39.6).status.code < 300)
            #expect(try await worker.writeDue() == 0)
        }
    }

    @Test("reports are told to moderators who asked; a moderator who is a student again is told nothing; students and visitors cannot ask")
    func reportedAndWhoMayAsk() async throws {
        let clock = ManualClock()
        try await Self.withMailServer(clock: clock) { client, store, worker in
            let roster = try await ClassRosterTests.makeRoster(client, slug: "geo")
            let noticesURI = "/api/classes/geo/notices"
            #expect(
                try await ClassRosterTests.request(client, noticesURI, .put, as: roster.onMap, body: ["reported": true]).status
                    == .forbidden)
            #expect(try await ClassRosterTests.request(client, noticesURI, .get, as: nil).status == .unauthorized)
            for bad: Any in [["waiting": "yes"], [String: Any](), ["other": true]] {
                let refused = try await ClassRosterTests.request(client, noticesURI, .put, as: roster.admin, body: bad)
                #expect(refused.status == .badRequest)
                #expect(ClassRosterTests.errorCode(refused) == "invalid_body")
            }
            // The admin makes a student a moderator, who asks to be told of reports.
            let member = try await client.execute(
                uri: "/api/classes/geo/members/\(roster.none.key)", method: .put, headers: roster.admin.cookieHeaders,
                body: jsonBody(["role": "moderator"])
            ) { $0 }
            #expect(member.status == .ok)
            #expect(
                try await ClassRosterTests.request(client, noticesURI, .put, as: roster.none, body: ["reported": true]).json["reported"]
                    as? Bool == true)
            clock.advance(by: 1)
            let posts = try await client.execute(
                uri: "/c/geo/parse/classes/StudentLocation", method: .get, headers: roster.admin.parseHeaders
            ) { try $0.json["results"] as? [[String: Any]] ?? [] }
            let objectId = try #require(posts.first?["objectId"] as? String)
            let report = try await client.execute(
                uri: "/c/geo/api/locations/\(objectId)/report", method: .post, headers: roster.waiting.cookieHeaders,
                body: jsonBody(["reason": "Not a real place"])
            ) { $0 }
            #expect(report.status == .created || report.status == .ok)
            #expect(try await worker.writeDue() == 1)
            let mail = try #require(try await Self.newestMail(to: roster.none.email, store: store))
            #expect(mail.headers.contains("Subject: A post was reported in Class geo"))
            #expect(mail.text.contains("New reports: 1."))
            // Back to student: no longer told, though still asked.
            let demoted = try await client.execute(
                uri: "/api/classes/geo/members/\(roster.none.key)", method: .put, headers: roster.admin.cookieHeaders,
                body: jsonBody(["role": "student"])
            ) { $0 }
            #expect(demoted.status == .ok)
            clock.advance(by: 7200)
            let second = try await client.execute(
                uri: "/c/geo/api/locations/\(objectId)/report", method: .post, headers: roster.onMap.cookieHeaders,
                body: jsonBody(["reason": "Spam"])
            ) { $0 }
            #expect(second.status == .created || second.status == .ok)
            #expect(try await worker.writeDue() == 0)
            #expect(try await Self.notices(store) == 1)
            let geo = try #require(try await store.mapClass(slug: "geo")).id
            #expect(try await store.notices(classId: geo, accountKey: roster.none.key) == [.reported])
            // Leaving the class ends what they asked for: nothing of it is kept.
            let left = try await client.execute(uri: "/api/classes/geo/leave", method: .post, headers: roster.none.cookieHeaders) { $0 }
            #expect(left.status == .ok)
            #expect(try await store.notices(classId: geo, accountKey: roster.none.key).isEmpty)
        }
    }

    @Test("without email set up nobody can ask, and says why; a malformed stop link is a 400")
    func notSetUp() async throws {
        try await withTestServer { client in
            let admin = try await client.makeUser()
            _ = try await ClassTests.makeClass(client, by: admin, slug: "geo")
            let shown = try await ClassRosterTests.request(client, "/api/classes/geo/notices", as: admin)
            #expect(shown.status == .ok)
            #expect(try shown.json["email"] as? Bool == false)
            let refused = try await ClassRosterTests.request(client, "/api/classes/geo/notices", .put, as: admin, body: ["waiting": true])
            #expect(refused.status == .serviceUnavailable)
            #expect(ClassRosterTests.errorCode(refused) == "email_not_set_up")
            // Turning off what was never on is fine.
            #expect(
                try await ClassRosterTests.request(client, "/api/classes/geo/notices", .put, as: admin, body: ["waiting": false]).status
                    == .ok)
            for token in ["", "abc", String(repeating: "z", count: 48), String(repeating: "a", count: 4000)] {
                let answer = try await client.execute(uri: "/api/notices/stop", method: .post, body: jsonBody(["token": token])) { $0 }
                #expect(answer.status == .badRequest || answer.status == .contentTooLarge)
            }
        }
    }
}
