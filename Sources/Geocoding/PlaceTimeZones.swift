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

extension PlaceTimeZones {
    /// In `uniformCellZones`: a cell whose points need the nearest-place search.
    static let mixed: Int32 = -1

    /// How far, at most, a point of a 1 x 1 degree cell is from a place of the same cell: its
    /// diagonal at the equator (157.25 km), rounded up.
    static let cellReachKm = 160.0

    /// For each 1 x 1 degree cell of the reverse grid, the zone (or `none`, as an Int32) of all
    /// places that can be nearest to one of its points, when they all share it; `mixed` when
    /// they do not, or the cell is empty or too near a pole to bound. A point's nearest place
    /// is no farther than `cellReachKm` when its cell has a place, so it lies in the rows two
    /// above and below and, in longitude, within asin(sin(reach / R) / cos(latitude)) of the
    /// cell (a path is no shorter than its distance to the point's meridian), plus one.
    func uniformCellZones(cellStart: [Int32], cellPlaces: [Int32]) -> [Int32] {
        var zones = [Int32](repeating: Self.mixed, count: cellStart.count - 1)
        guard !zoneOfPlace.isEmpty else { return zones }
        let radians = Double.pi / 180
        let reach = sin(Self.cellReachKm / Gazetteer.kmPerRadian)
        for row in 12...167 {  // rows two either side within 80 degrees of the equator
            let farthest = Double(max(abs(row - 2 - 90), abs(row + 3 - 90)))
            let columnSpan = Int((asin(min(1, reach / cos(farthest * radians))) / radians).rounded(.up)) + 1
            for column in 0..<360 {
                let cell = row * 360 + column
                guard cellStart[cell] < cellStart[cell + 1] else { continue }
                let zone = zoneOfPlace[Int(cellPlaces[Int(cellStart[cell])])]
                var uniform = true
                scan: for r in row - 2...row + 2 {
                    for c in column - columnSpan...column + columnSpan {
                        let other = r * 360 + (c % 360 + 360) % 360
                        for i in Int(cellStart[other])..<Int(cellStart[other + 1]) where zoneOfPlace[Int(cellPlaces[i])] != zone {
                            uniform = false
                            break scan
                        }
                    }
                }
                if uniform { zones[cell] = Int32(zone) }
            }
        }
        return zones
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
        if maximumDistanceKm >= PlaceTimeZones.cellReachKm, latitude.isFinite, longitude.isFinite, abs(latitude) <= 90 {
            let zone = cellZones[Gazetteer.cell(latitude: latitude, longitude: longitude)]
            if zone != PlaceTimeZones.mixed { return zone == Int32(PlaceTimeZones.none) ? nil : timeZones.names[Int(zone)] }
        }
        return nearestPlaceTimeZone(latitude: latitude, longitude: longitude, maximumDistanceKm: maximumDistanceKm)
    }

    /// The zone of the nearest place, searched for.
    func nearestPlaceTimeZone(latitude: Double, longitude: Double, maximumDistanceKm: Double) -> String? {
        guard let place = nearestPlace(latitude: latitude, longitude: longitude, maximumDistanceKm: maximumDistanceKm),
            place < timeZones.zoneOfPlace.count
        else { return nil }
        let zone = timeZones.zoneOfPlace[place]
        return zone == PlaceTimeZones.none ? nil : timeZones.names[Int(zone)]
    }

    /// Whether the gazetteer knows its places' time zones.
    public var hasTimeZones: Bool { !timeZones.names.isEmpty }
}
