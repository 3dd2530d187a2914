import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import OnTheMapModels
import Testing

@testable import OnTheMapServer

/// The web map's snapshot says each post's time zone (from the gazetteer, for the point the
/// class shows), as indices into a table of zone names; the other layouts stay as they were.
@Suite("Time zones in the map's snapshot")
struct SnapshotTimeZoneTests {
    @Test("posts in Berlin and Tokyo come with Europe/Berlin and Asia/Tokyo, in a town class as members see them")
    func berlinAndTokyo() async throws {
        try await withTestServer { client in
            let admin = try await client.makeUser()
            let berlin = try await client.makeUser()
            let tokyo = try await client.makeUser()
            let made = try await ClassTests.makeClass(client, by: admin, slug: "cohort-tz", precision: "city")
            for user in [berlin, tokyo] {
                _ = try await ClassTests.join(client, user, slug: "cohort-tz", code: made["invite_code"] as? String)
            }
            let path = "/c/cohort-tz/parse/classes/StudentLocation"
            let posts: [(TestUser, String, Double, Double)] = [
                (berlin, "Alexanderplatz", 52.5219, 13.4132), (tokyo, "Shinjuku", 35.6938, 139.7034),
            ]
            for (user, place, latitude, longitude) in posts {
                let body: [String: Any] = [
                    "firstName": place, "lastName": "L", "mapString": place, "mediaURL": "", "latitude": latitude,
                    "longitude": longitude,
                ]
                #expect(try await ClassTests.status(client, path, .post, headers: user.parseHeaders, body: body).0 == .created)
            }
            let snapshot = try await ClassTests.status(client, "/c/cohort-tz/api/locations/snapshot/map", headers: berlin.cookieHeaders).1
            let columns = try #require(snapshot["columns"] as? [String: [Any]])
            let zones = try #require(snapshot["timeZones"] as? [String])
            let indices = try #require(columns["timeZone"])
            let names = try #require(columns["firstName"] as? [String])
            var zoneOf: [String: String] = [:]
            for (row, name) in names.enumerated() {
                let index = try #require(indices[row] as? Int)
                zoneOf[name] = zones[index]
            }
            #expect(zoneOf == ["Alexanderplatz": "Europe/Berlin", "Shinjuku": "Asia/Tokyo"])
            #expect(Set(zones) == ["Europe/Berlin", "Asia/Tokyo"], "each zone once")

            // The records layout and the Parse list are unchanged for the clients that read them.
            let records = try await ClassTests.status(client, "/c/cohort-tz/api/locations/snapshot", headers: berlin.cookieHeaders).1
            #expect(records["timeZones"] == nil)
            #expect((records["locations"] as? [[String: Any]])?.allSatisfy { $0["timeZone"] == nil } == true)
            let list = try await ClassTests.status(client, path, headers: berlin.parseHeaders).1
            #expect((list["results"] as? [[String: Any]])?.allSatisfy { $0["timeZone"] == nil } == true)
        }
    }

    @Test("the zone is asked once per distinct point, and a point with none is null")
    func encoding() throws {
        func record(_ id: String, _ latitude: Double, _ longitude: Double) -> StudentInformation {
            StudentInformation(
                objectId: id, uniqueKey: "k\(id)", firstName: "A", lastName: "B", mapString: "", mediaURL: "",
                latitude: latitude, longitude: longitude, createdAt: "2026-01-01T00:00:00.000Z",
                updatedAt: "2026-01-0\(id)T00:00:00.000Z")
        }
        var asked = 0
        let body = LiveMapJSON.mapColumnsBody(
            [record("3", 1, 1), record("2", 1, 1), record("1", -40, -130)], version: 7,
            timeZone: { latitude, _ in
                asked += 1
                return latitude > 0 ? "Etc/Test" : nil
            })
        #expect(asked == 2)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any])
        #expect(json["timeZones"] as? [String] == ["Etc/Test"])
        let zones = try #require((json["columns"] as? [String: [Any]])?["timeZone"])
        #expect(zones.count == 3)
        #expect(zones[0] as? Int == 0 && zones[1] as? Int == 0 && zones[2] is NSNull)
    }
}
