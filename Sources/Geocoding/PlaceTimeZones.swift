import Foundation

/// The IANA time zone of each populated place of the gazetteer (Resources/timezones.txt, from
/// GeoNames by Scripts/build-timezones.py), in the gazetteer's place order. Empty when the
/// file is missing or written for another gazetteer (a different place count): points then
/// have no zone, never a guessed one.
struct PlaceTimeZones: Sendable {
    /// Zone names, the most common first.
    let names: [String]
    /// The zone index of each place; `UInt16.max` for a place without one.
    let zoneOfPlace: [UInt16]

    static let empty = PlaceTimeZones(names: [], zoneOfPlace: [])
    static let none = UInt16.max

    static var bundledURL: URL? {
        Bundle.module.url(forResource: "timezones", withExtension: "txt", subdirectory: "Resources")
            ?? Bundle.module.url(forResource: "timezones", withExtension: "txt")
    }

    /// The file next to a gazetteer file at `gazetteerURL` (the bundled one's is the bundled one).
    static func companion(of gazetteerURL: URL) -> URL {
        gazetteerURL.deletingLastPathComponent().appendingPathComponent("timezones.txt")
    }

    /// Reads the file; `.empty` unless it lists a zone for each of `placeCount` places.
    static func load(from url: URL?, placeCount: Int) -> PlaceTimeZones {
        guard let url, let data = try? Data(contentsOf: url, options: .mappedIfSafe) else { return .empty }
        var reader = GazetteerReader(bytes: [UInt8](data))
        guard let first = reader.nextLine(), reader.string(first).hasPrefix("#OTMTZ 1") else { return .empty }
        guard let zoneCount = try? reader.section("zones"), zoneCount < Int(none) else { return .empty }
        var names: [String] = []
        names.reserveCapacity(zoneCount)
        for _ in 0..<zoneCount {
            guard let line = reader.nextLine() else { return .empty }
            names.append(reader.string(line))
        }
        guard let count = try? reader.section("places"), count == placeCount else { return .empty }
        var zones = [UInt16](repeating: none, count: count)
        for index in 0..<count {
            guard let line = reader.nextLine() else { return .empty }
            guard !line.isEmpty else { continue }
            let zone = GazetteerReader.parseInt(reader.bytes, line)
            guard zone >= 0 && zone < zoneCount else { return .empty }
            zones[index] = UInt16(zone)
        }
        return PlaceTimeZones(names: names, zoneOfPlace: zones)
    }
}

extension Gazetteer {
    /// How far the nearest place may be for its time zone to count as a point's: far enough
    /// for a region's or a country's middle to find a town, near enough that open sea has none.
    public static let timeZoneDistanceKm = 500.0

    /// The IANA time zone ("Europe/Berlin") where a point is: that of the nearest populated
    /// place within `maximumDistanceKm`; nil when there is none (open sea, the poles) or the
    /// zone data is missing.
    public func timeZone(latitude: Double, longitude: Double, maximumDistanceKm: Double = Gazetteer.timeZoneDistanceKm) -> String? {
        guard let place = nearestPlace(latitude: latitude, longitude: longitude, maximumDistanceKm: maximumDistanceKm),
            place < timeZones.zoneOfPlace.count
        else { return nil }
        let zone = timeZones.zoneOfPlace[place]
        return zone == PlaceTimeZones.none ? nil : timeZones.names[Int(zone)]
    }

    /// Whether the gazetteer knows its places' time zones.
    public var hasTimeZones: Bool { !timeZones.names.isEmpty }
}
