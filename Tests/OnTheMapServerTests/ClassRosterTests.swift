import Foundation
import HTTPTypes
import HummingbirdTesting
import OnTheMapModels
import Testing

@testable import OnTheMapServer
@testable import Storage

/// A class's roster says who is on the map (on the map, waiting for approval, not yet, and
/// the last post's date); its teachers remind those not yet on it by email (once a day) and
/// download its map as CSV and GeoJSON, exactly as its members see it. (Delivery through a
/// real relay: ClassReminderDeliveryTests.)
@Suite("Class roster, reminders and export")
struct ClassRosterTests {
    static func request(
        _ client: some TestClientProtocol, _ uri: String, _ method: HTTPRequest.Method = .get, as user: TestUser?, body: Any? = nil
    ) async throws -> TestResponse {
        try await client.execute(uri: uri, method: method, headers: user?.cookieHeaders ?? [:], body: body.map(jsonBody)) { $0 }
    }

    static func errorCode(_ response: TestResponse) -> String? {
        ((try? response.json)?["error"] as? [String: Any])?["code"] as? String
    }

    /// A Springfield street corner, with a name a spreadsheet would run as a formula.
    static func post(_ client: some TestClientProtocol, _ user: TestUser, slug: String, first: String, latitude: Double) async throws
        -> TestResponse
    {
        try await client.execute(
            uri: "/c/\(slug)/parse/classes/StudentLocation", method: .post, headers: user.parseHeaders,
            body: jsonBody([
                "firstName": first, "lastName": "-2+3", "mapString": "12 Elm Street, Springfield", "mediaURL": "@https://example.com/x",
                "latitude": latitude, "longitude": -89.6712,
            ])
        ) { $0 }
    }

    /// A class with a student on the map, one whose post waits for approval, one with none,
    /// and a teacher (the server's first account) with none.
    struct Roster {
        let admin, onMap, waiting, none: TestUser
        let slug: String
    }

    static func makeRoster(_ client: some TestClientProtocol, slug: String) async throws -> Roster {
        let admin = try await client.makeUser()
        let onMap = try await client.makeUser()
        let waiting = try await client.makeUser()
        let none = try await client.makeUser()
        let made = try await ClassTests.makeClass(client, by: admin, slug: slug)
        for user in [onMap, waiting, none] {
            #expect(try await ClassTests.join(client, user, slug: slug, code: made["invite_code"] as? String).status == .ok)
        }
        #expect(try await post(client, onMap, slug: slug, first: "=HYPERLINK(\"http://x\")", latitude: 39.7817).status == .created)
        #expect(try await request(client, "/api/classes/\(slug)", .patch, as: admin, body: ["approval": "all"]).status == .ok)
        #expect(try await post(client, waiting, slug: slug, first: "Wanda", latitude: 39.79).status == .created)
        return Roster(admin: admin, onMap: onMap, waiting: waiting, none: none, slug: slug)
    }

    @Test("every class's roster says who is on the map, who waits for approval and who is not yet, with the last post's date")
    func rosterStatuses() async throws {
        try await withTestServer { client in
            let roster = try await Self.makeRoster(client, slug: "roster-a")
            for reader in [roster.admin] {  // (moderators read the same statuses)
                let answer = try await Self.request(client, "/api/classes/roster-a/members", as: reader)
                #expect(answer.status == .ok)
                let members = try #require(try answer.json["members"] as? [[String: Any]])
                func member(_ user: TestUser) -> [String: Any]? { members.first { $0["key"] as? String == user.key } }
                #expect(member(roster.onMap)?["map_status"] as? String == "on_map")
                #expect((member(roster.onMap)?["last_post_at"] as? String).flatMap(ParseDate.date(from:)) != nil)
                #expect(member(roster.waiting)?["map_status"] as? String == "waiting")
                #expect(member(roster.waiting)?["last_post_at"] is String)
                #expect(member(roster.none)?["map_status"] as? String == "not_yet")
                #expect(member(roster.none)?["last_post_at"] is NSNull, "null, not missing")
                #expect(member(roster.admin)?["map_status"] as? String == "not_yet")
            }
        }
    }

    @Test("the export is exactly what a member sees: the same rows and coordinates, at the class's precision, formulas neutralised")
    func export() async throws {
        try await withTestServer { client in
            let roster = try await Self.makeRoster(client, slug: "roster-b")
            let snapshot = try await Self.request(client, "/c/roster-b/api/locations/snapshot", as: roster.none).json
            let seen = try #require(snapshot["locations"] as? [[String: Any]])
            #expect(seen.count == 1, "the waiting post is not seen")
            let list = try await client.execute(
                uri: "/c/roster-b/parse/classes/StudentLocation?order=-updatedAt", method: .get, headers: roster.none.parseHeaders
            ) { try $0.json["results"] as? [[String: Any]] }
            #expect(list?.map { $0["objectId"] as? String } == seen.map { $0["objectId"] as? String })

            let csv = try await Self.request(client, "/api/classes/roster-b/export.csv", as: roster.admin)
            #expect(csv.status == .ok)
            #expect(csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            #expect(csv.headers[.contentDisposition] == "attachment; filename=\"roster-b-map.csv\"")
            let rows = Self.parseCSV(String(csv.text.drop { $0 == "\u{FEFF}" }))
            #expect(rows.first == ClassExportController.csvColumns)
            let body = Array(rows.dropFirst())
            #expect(body.map { $0[0] } == seen.map { $0["objectId"] as? String ?? "" })
            for (row, record) in zip(body, seen) {
                #expect(Double(row[5]) == record["latitude"] as? Double)
                #expect(Double(row[6]) == record["longitude"] as? Double)
                #expect(row[3] == record["mapString"] as? String)
                #expect(row[3] == "Springfield, Illinois, United States", "the town, not the street")
                #expect(row[5] != "39.7817", "the town's point, not the posted one")
                // Formulas are text: an apostrophe before = + - @.
                #expect(row[1] == "'=HYPERLINK(\"http://x\")")
                #expect(row[2] == "'-2+3")
                #expect(row[4] == "'@https://example.com/x")
            }

            let geo = try await Self.request(client, "/api/classes/roster-b/export.geojson", as: roster.admin)
            #expect(geo.status == .ok)
            #expect(geo.headers[.contentType] == "application/geo+json")
            #expect(geo.headers[.contentDisposition] == "attachment; filename=\"roster-b-map.geojson\"")
            let features = try #require(try geo.json["features"] as? [[String: Any]])
            #expect(features.map { $0["id"] as? String } == seen.map { $0["objectId"] as? String })
            for (feature, record) in zip(features, seen) {
                let point = try #require((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double])
                #expect(point == [record["longitude"] as? Double ?? .nan, record["latitude"] as? Double ?? .nan])
                let properties = try #require(feature["properties"] as? [String: Any])
                #expect(properties["firstName"] as? String == record["firstName"] as? String, "GeoJSON keeps the text as typed")
                #expect(properties["mapString"] as? String == record["mapString"] as? String)
            }

            // A student may not; a visitor must sign in.
            for path in ["export.csv", "export.geojson"] {
                let student = try await Self.request(client, "/api/classes/roster-b/\(path)", as: roster.onMap)
                #expect(student.status == .forbidden)
                #expect(Self.errorCode(student) == "forbidden")
                let visitor = try await Self.request(client, "/api/classes/roster-b/\(path)", as: nil)
                #expect(visitor.status == .unauthorized)
            }
        }
    }

    @Test("without email set up, reminders say so")
    func remindersWithoutEmail() async throws {
        try await withTestServer { client in
            let roster = try await Self.makeRoster(client, slug: "roster-c")
            let status = try await Self.request(client, "/api/classes/roster-c/reminders", as: roster.admin)
            #expect(try status.json["email"] as? Bool == false)
            let sent = try await Self.request(client, "/api/classes/roster-c/reminders", .post, as: roster.admin)
            #expect(sent.status == .serviceUnavailable)
            #expect(Self.errorCode(sent) == "email_not_set_up")
        }
    }

    @Test("a reminder goes to each member with no post, in their language, once a day; not to the disabled nor to those who left")
    func reminders() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-remind-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = testConfiguration(dataDirectory: directory)
        configuration.publicURL = "https://map.example.org"
        // In router mode the worker does not run: the outbox keeps what was written.
        configuration.smtpURL = "smtp://127.0.0.1:9"
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        configuration.clock = clock.clock
        let settings = configuration
        let app = try await buildApplication(configuration: settings, logger: testLogger)
        try await app.test(.router) { client in
            let store = try await SQLStore.open(
                url: settings.resolvedDatabaseURL, dataDirectory: settings.dataDirectory, logger: testLogger)
            do {
                let roster = try await Self.makeRoster(client, slug: "roster-d")
                let code = try await Self.request(client, "/api/classes/roster-d", as: roster.admin).json["invite_code"] as? String
                let disabled = try await client.makeUser()
                let left = try await client.makeUser()
                for user in [disabled, left] { _ = try await ClassTests.join(client, user, slug: "roster-d", code: code) }
                #expect(try await Self.request(client, "/api/classes/roster-d/leave", .post, as: left).status == .ok)
                #expect(
                    try await Self.request(client, "/api/admin/users/\(disabled.key)/disable", .post, as: roster.admin).status == .ok)
                #expect(
                    try await Self.request(client, "/api/account/language", .put, as: roster.none, body: ["language": "fr"]).status
                        == .ok)

                let before = try await Self.request(client, "/api/classes/roster-d/reminders", as: roster.admin).json
                #expect(before["email"] as? Bool == true)
                #expect(before["next_at"] is NSNull)
                #expect(before["waiting_members"] as? Int == 1)

                let student = try await Self.request(client, "/api/classes/roster-d/reminders", .post, as: roster.onMap)
                #expect(student.status == .forbidden)
                #expect(try await Self.request(client, "/api/classes/roster-d/reminders", .post, as: nil).status == .unauthorized)

                let sent = try await Self.request(client, "/api/classes/roster-d/reminders", .post, as: roster.admin)
                #expect(sent.status == .accepted)
                #expect(try sent.json["reminded"] as? Int == 1)
                let classId = try #require(try await store.mapClass(slug: "roster-d")).id
                let mails = try await store.withDatabase { db in
                    try await db.raw("SELECT recipient, kind, message FROM mail_outbox").all().map {
                        (
                            try $0.decode(column: "recipient", as: String.self), try $0.decode(column: "kind", as: String.self),
                            try $0.decode(column: "message", as: String.self)
                        )
                    }
                }
                #expect(
                    mails.map { $0.0.lowercased() } == [roster.none.email.lowercased()],
                    "only the member with no post; not the disabled, not who left")
                #expect(mails.first?.1 == "class_reminder:\(classId)")
                let text = try #require(mails.first.map { Self.textPart($0.2) })
                #expect(text.contains("https://map.example.org/c/roster-d"))
                #expect(text.contains("Class roster-d"), "it names the class")
                #expect(text.contains("Bonjour"), "in the member's language")

                // A second press that day: 429 in our format, saying when.
                clock.advance(by: 3600)
                let again = try await Self.request(client, "/api/classes/roster-d/reminders", .post, as: roster.admin)
                #expect(again.status == .tooManyRequests)
                #expect(Self.errorCode(again) == "reminded_recently")
                #expect(again.headers[.retryAfter] == String(86_400 - 3600))
                let status = try await Self.request(client, "/api/classes/roster-d/reminders", as: roster.admin).json
                #expect(status["next_at"] as? String == ParseDate.string(from: Date(timeIntervalSince1970: 1_800_000_000 + 86_400)))
                // The next day it can be sent again.
                clock.advance(by: 86_400 - 3600)
                #expect(try await Self.request(client, "/api/classes/roster-d/reminders", .post, as: roster.admin).status == .accepted)
                try await store.close()
            } catch {
                try? await store.close()
                throw error
            }
        }
    }

    /// The text part of a message as written in the outbox.
    static func textPart(_ message: String) -> String {
        let text = message.components(separatedBy: "Content-Transfer-Encoding: base64\r\n\r\n").dropFirst().first ?? ""
        let base64 = text.components(separatedBy: "\r\n").prefix { !$0.hasPrefix("--") && !$0.isEmpty }.joined()
        return String(decoding: Data(base64Encoded: base64) ?? Data(), as: UTF8.self)
    }

    /// RFC 4180 rows (quoted cells, doubled quotes, CRLF lines).
    static func parseCSV(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var cell = ""
        var quoted = false
        var characters = Array(text)[...]
        while let c = characters.popFirst() {
            if quoted {
                if c == "\"" {
                    if characters.first == "\"" {
                        cell.append("\"")
                        characters.removeFirst()
                    } else {
                        quoted = false
                    }
                } else {
                    cell.append(c)
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                row.append(cell)
                cell = ""
            } else if c == "\r\n" || c == "\n" {
                row.append(cell)
                rows.append(row)
                row = []
                cell = ""
            } else {
                cell.append(c)
            }
        }
        if !cell.isEmpty || !row.isEmpty { rows.append(row + [cell]) }
        return rows
    }
}
