import Foundation
import OnTheMapModels
import Testing

@testable import OnTheMapServer

/// The map layout of the live map's snapshot names which locations its class's teachers
/// posted (their row indexes), so the web map marks their pins; the Parse wire format does not.
@Suite("The map snapshot marks teachers' posts")
struct SnapshotTeachersTests {
    func record(_ id: String, key: String) -> StudentInformation {
        StudentInformation(
            objectId: id, uniqueKey: key, firstName: "A", lastName: "B", mapString: "", mediaURL: "",
            latitude: 1, longitude: 2, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-0\(id)T00:00:00.000Z")
    }

    @Test("the rows of the teachers' posts are listed in order; none without teachers")
    func rows() throws {
        let sorted = [record("3", key: "teacher"), record("2", key: "student"), record("1", key: "other-teacher")]
        let marked = LiveMapJSON.mapColumnsBody(sorted, version: 1, teachers: ["teacher", "other-teacher"], timeZone: { _, _ in nil })
        let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: marked)) as? [String: Any])
        #expect(json["teachers"] as? [Int] == [0, 2])
        let plain = LiveMapJSON.mapColumnsBody(sorted, version: 1, timeZone: { _, _ in nil })
        let none = try #require(try JSONSerialization.jsonObject(with: Data(buffer: plain)) as? [String: Any])
        #expect(none["teachers"] as? [Int] == [])
    }

    @Test("the records layout (the list's, the SDK's) carries no such field")
    func recordsLayout() throws {
        let encoded = LiveMapJSON.snapshot(["1": record("1", key: "teacher")], version: 1, layout: .records, teachers: ["teacher"])
        let text = String(buffer: encoded.plain)
        #expect(!text.contains("\"teachers\""))
    }
}
