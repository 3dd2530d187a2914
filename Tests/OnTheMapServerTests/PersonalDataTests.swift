import Foundation
import HTTPTypes
import HummingbirdTesting
import SQLKit
import Testing

@testable import OnTheMapServer
@testable import Storage

/// A student's own data, on the database `TestDatabases` picks: the download holds everything
/// listed, and deleting the account leaves no row naming it and no photo file.
@Suite("My data")
struct PersonalDataTests {
    @Test(
        "the download holds the account, classes, locations (also as GeoJSON), pins and photos, links and reports; deleting leaves nothing")
    func downloadThenDelete() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = testConfiguration(dataDirectory: directory)
        // The demo's administrator, and its albums drawn by the server (no network).
        configuration.demo = true
        let app = try await buildApplication(configuration: configuration, logger: testLogger)
        let inspector = try await SQLStore.open(
            url: configuration.resolvedDatabaseURL, dataDirectory: configuration.dataDirectory, logger: testLogger)
        defer { Task { try? await inspector.close() } }
        try await app.test(.router) { client in
            let adminSession = try await client.login(email: DemoSeeder.email, password: DemoSeeder.password)
            let admin = TestUser(email: DemoSeeder.email, password: DemoSeeder.password, key: "1000000001", sessionID: adminSession)
            let student = try await client.makeUser(email: "leaving@example.com")
            let made = try await ClassTests.makeClass(client, by: admin, slug: "cohort-d", precision: "exact")
            _ = try await ClassTests.join(client, student, slug: "cohort-d", code: made["invite_code"] as? String)
            // The student becomes the class's only teacher.
            _ = try await ClassTests.status(
                client, "/api/classes/cohort-d/members/\(student.key)", .put, headers: admin.cookieHeaders, body: ["role": "teacher"])
            _ = try await ClassTests.status(client, "/api/classes/cohort-d/leave", .post, headers: admin.cookieHeaders)
            let inMain = try await client.postLocation(student)
            let accra = try await ClassTests.post(client, student, prefix: "/c/cohort-d", place: "Accra")
            #expect(accra.status == .created)
            // A moderator's note about the student's post names them: it goes with the account.
            let noted = try #require(accra.json["objectId"] as? String)
            #expect(
                try await ClassTests.status(
                    client, "/c/cohort-d/api/admin/locations/\(noted)/hide", .post, headers: admin.cookieHeaders,
                    body: ["reason": "Shows where Leaving-Student lives"]
                ).0 == .ok)
            // A post of the demo's (its objectIds are demo000000 and on).
            #expect(
                try await ClassTests.status(
                    client, "/api/locations/demo000000/report", .post, headers: student.cookieHeaders,
                    body: ["reason": "Looks made up"]
                ).0 == .created)
            let pin = try await ClassTests.status(
                client, "/api/pins", .post, headers: student.cookieHeaders, body: ["latitude": 48.85, "longitude": 2.35]
            ).1
            let pinID = try #require(pin["id"] as? String)
            // The album settles (its pictures are drawn by the server and stored in the data folder).
            var settled = false
            for _ in 0..<200 where !settled {
                let album =
                    try await ClassTests.status(client, "/api/pins/\(pinID)/photos", headers: student.cookieHeaders).1["album"]
                    as? [String: Any]
                settled = album?["settled"] as? Bool == true
                if !settled {
                    await Task.yield()
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            #expect(settled)
            let pinFolder = directory.appendingPathComponent("photos").appendingPathComponent(pinID)
            #expect(FileManager.default.fileExists(atPath: pinFolder.path))

            // The download.
            let data = try await client.execute(uri: "/api/account/data", method: .get, headers: student.cookieHeaders) { response throws in
                #expect(response.headers[.contentDisposition]?.contains("attachment") == true)
                return try response.json
            }
            #expect((data["account"] as? [String: Any])?["email"] as? String == "leaving@example.com")
            #expect(Set((data["classes"] as? [[String: Any]])?.compactMap { $0["slug"] as? String } ?? []) == ["main", "cohort-d"])
            let locations = try #require(data["locations"] as? [[String: Any]])
            #expect(Set(locations.compactMap { $0["class"] as? String }) == ["main", "cohort-d"])
            #expect(locations.contains { $0["objectId"] as? String == inMain })
            #expect(((data["locations_geojson"] as? [String: Any])?["features"] as? [Any])?.count == 2)
            let pins = try #require((data["travel"] as? [String: Any])?["pins"] as? [[String: Any]])
            #expect(pins.first?["id"] as? String == pinID)
            #expect(((pins.first?["photos"] as? [Any])?.count ?? 0) > 0)
            #expect((data["reports_made"] as? [[String: Any]])?.first?["reason"] as? String == "Looks made up")
            #expect(data["sign_in_links"] is [Any])

            // A wrong password deletes nothing.
            #expect(
                try await ClassTests.status(
                    client, "/api/account/delete", .post, headers: student.cookieHeaders,
                    body: ["password": "not it"]
                ).0 == .forbidden)
            #expect(try await inspector.account(key: student.key) != nil)
            #expect(
                try await ClassTests.status(
                    client, "/api/account/delete", .post, headers: student.cookieHeaders,
                    body: ["password": student.password]
                ).0 == .ok)

            // Nothing names the account any more: no row of any table, no photo file.
            for table in try await DatabaseCopy.tableNames(in: inspector) where table != "schema_migrations" {
                let rows = try await inspector.withDatabase { db in try await db.raw("SELECT * FROM \(ident: table)").all() }
                for row in rows {
                    for column in row.allColumns {
                        guard let text = try? row.decode(column: column, as: String?.self) else { continue }
                        #expect(
                            !text.contains(student.key) && !text.contains("leaving@example.com") && !text.contains("Leaving-Student"),
                            "\(table).\(column): \(text)")
                    }
                }
            }
            #expect(!FileManager.default.fileExists(atPath: pinFolder.path))
            #expect(try await ClassTests.status(client, "/api/account", headers: student.cookieHeaders).0 == .unauthorized)
            // Its posts left the map; its class passed to the administrators; one anonymous line remains.
            let snapshot = try await ClassTests.status(client, "/api/locations/snapshot", headers: admin.cookieHeaders).1
            #expect((snapshot["locations"] as? [[String: Any]])?.contains { $0["objectId"] as? String == inMain } == false)
            let cohort = try #require(try await inspector.mapClass(slug: "cohort-d"))
            #expect(try await inspector.role(classId: cohort.id, accountKey: admin.key) == .teacher)
            let deletions = try await inspector.withDatabase { db in
                try await db.raw("SELECT COUNT(*) AS n FROM moderation_actions WHERE action = 'account_deleted'").first()?.decode(
                    column: "n", as: Int.self)
            }
            #expect(deletions == 1)
            // The last administrator cannot leave the server this way.
            #expect(
                try await ClassTests.status(
                    client, "/api/account/delete", .post, headers: admin.cookieHeaders,
                    body: ["password": DemoSeeder.password]
                ).0 == .conflict)
        }
    }
}
