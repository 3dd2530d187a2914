import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import ZIPFoundation

@testable import OnTheMapServer

/// "Download my data" as a zip anyone can open (`GET /api/account/data.zip`), on the database
/// `TestDatabases` picks: a page to read, the JSON and GeoJSON for programs, and the photos.
@Suite("My data, readable")
struct PersonalDataArchiveTests {
    @Test("the zip holds a page in the reader's language with the account, classes, places and photos, the JSON, GeoJSON and image files")
    func archive() async throws {
        try await withTestServer({ $0.demo = true }) { client in
            let student = try await client.makeUser(email: "reader@example.com")
            _ = try await client.postLocation(student, ["mapString": "Lagos <Nigeria>"])
            let pin = try await ClassTests.status(
                client, "/api/pins", .post, headers: student.cookieHeaders, body: ["latitude": 48.85, "longitude": 2.35]
            ).1
            let pinID = try #require(pin["id"] as? String)
            var settled = false
            for _ in 0..<200 where !settled {
                let album =
                    try await ClassTests.status(client, "/api/pins/\(pinID)/photos", headers: student.cookieHeaders).1["album"]
                    as? [String: Any]
                settled = album?["settled"] as? Bool == true
                if !settled { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(settled)
            var headers = student.cookieHeaders
            headers[.acceptLanguage] = "de"
            let (status, type, bytes) = try await client.execute(uri: "/api/account/data.zip", method: .get, headers: headers) {
                response in (response.status, response.headers[.contentType], Data(buffer: response.body))
            }
            #expect(status == .ok)
            #expect(type == "application/zip")
            let archive = try Archive(data: bytes, accessMode: .read)
            var files: [String: Data] = [:]
            for entry in archive {
                var data = Data()
                _ = try archive.extract(entry) { data.append($0) }
                files[entry.path] = data
            }
            let folder = PersonalDataArchive.folder
            let page = String(decoding: try #require(files["\(folder)/index.html"]), as: UTF8.self)
            #expect(page.contains(#"<html lang="de" dir="ltr">"#))
            #expect(page.contains("Meine Daten bei OnTheMap"))
            #expect(page.contains("Ada Lovelace") && page.contains("reader@example.com"))
            #expect(page.contains("Lagos &lt;Nigeria&gt;"), "typed text is escaped")
            let jsonFile = try #require(files["\(folder)/my-data.json"])
            let json = try #require(try JSONSerialization.jsonObject(with: jsonFile) as? [String: Any])
            #expect((json["account"] as? [String: Any])?["email"] as? String == "reader@example.com")
            let geojsonFile = try #require(files["\(folder)/my-locations.geojson"])
            let geojson = try #require(try JSONSerialization.jsonObject(with: geojsonFile) as? [String: Any])
            #expect(geojson["type"] as? String == "FeatureCollection")
            let photos = files.keys.filter { $0.hasPrefix("\(folder)/photos/") }
            #expect(!photos.isEmpty, "the pin's photos are files")
            for photo in photos {
                #expect(page.contains(#"src="\#(photo.dropFirst(folder.count + 1))""#), "the page shows \(photo)")
                #expect(files[photo]?.isEmpty == false)
            }
            let (anonymous, _) = try await ClassTests.status(client, "/api/account/data.zip")
            #expect(anonymous == .unauthorized)
        }
    }
}
