import Testing

@testable import Geocoding

/// Every place of the gazetteer carries its GeoNames time zone (Resources/timezones.txt): a
/// point's zone is its nearest place's, read from data, never from its longitude.
@Suite("Time zones of places")
struct TimeZoneTests {
    @Test("Berlin's and Tokyo's points are in Europe/Berlin and Asia/Tokyo")
    func berlinAndTokyo() {
        let gazetteer = Fixture.gazetteer
        #expect(gazetteer.hasTimeZones)
        #expect(gazetteer.timeZone(latitude: 52.52, longitude: 13.405) == "Europe/Berlin")
        #expect(gazetteer.timeZone(latitude: 35.6895, longitude: 139.6917) == "Asia/Tokyo")
    }

    @Test("zones follow borders, not meridians: Madrid is on Paris's time, Kashgar on Urumqi's")
    func fromDataNotLongitude() {
        let gazetteer = Fixture.gazetteer
        #expect(gazetteer.timeZone(latitude: 40.4168, longitude: -3.7038) == "Europe/Madrid")
        #expect(
            gazetteer.timeZone(latitude: 39.4704, longitude: 75.9898).map { ["Asia/Kashgar", "Asia/Urumqi", "Asia/Shanghai"].contains($0) }
                == true)
        #expect(gazetteer.timeZone(latitude: 40.7128, longitude: -74.006) == "America/New_York")
    }

    @Test("a region's middle finds a zone; open sea has none")
    func farFromPlaces() {
        let gazetteer = Fixture.gazetteer
        // Bavaria's middle (a region-precision class shows it).
        #expect(gazetteer.timeZone(latitude: 48.95, longitude: 11.4) == "Europe/Berlin")
        #expect(gazetteer.timeZone(latitude: -40, longitude: -130) == nil)
        #expect(gazetteer.timeZone(latitude: .nan, longitude: 0) == nil)
    }

    @Test("a zone file written for another gazetteer is refused, not misread")
    func companionMustMatch() throws {
        guard let url = PlaceTimeZones.bundledURL else {
            Issue.record("timezones.txt is not bundled")
            return
        }
        #expect(PlaceTimeZones.load(from: url, placeCount: Fixture.gazetteer.placeCount).names.count > 300)
        #expect(PlaceTimeZones.load(from: url, placeCount: 12).names.isEmpty)
        #expect(PlaceTimeZones.load(from: nil, placeCount: 12).names.isEmpty)
    }
}
