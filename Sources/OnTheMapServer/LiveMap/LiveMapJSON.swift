import Dispatch
import Foundation
import Geocoding
import NIOCore
import OnTheMapModels
import Synchronization

/// The live map's wire form: a location as the map and the list need it (no `createdAt`),
/// keys sorted like every other answer of ours, written by hand as the list is.
enum LiveMapJSON {
    static func write(_ r: StudentInformation, timeZone: String? = nil, into buffer: inout ByteBuffer) {
        buffer.writeStaticString(#"{"firstName":"#)
        StudentLocationJSON.writeString(r.firstName, into: &buffer)
        buffer.writeStaticString(#","lastName":"#)
        StudentLocationJSON.writeString(r.lastName, into: &buffer)
        buffer.writeStaticString(#","latitude":"#)
        StudentLocationJSON.writeNumber(r.latitude, into: &buffer)
        buffer.writeStaticString(#","longitude":"#)
        StudentLocationJSON.writeNumber(r.longitude, into: &buffer)
        buffer.writeStaticString(#","mapString":"#)
        StudentLocationJSON.writeString(r.mapString, into: &buffer)
        buffer.writeStaticString(#","mediaURL":"#)
        StudentLocationJSON.writeString(r.mediaURL, into: &buffer)
        buffer.writeStaticString(#","objectId":"#)
        StudentLocationJSON.writeString(r.objectId, into: &buffer)
        if let timeZone {
            buffer.writeStaticString(#","timeZone":"#)
            StudentLocationJSON.writeString(timeZone, into: &buffer)
        }
        buffer.writeStaticString(#","uniqueKey":"#)
        StudentLocationJSON.writeString(r.uniqueKey, into: &buffer)
        buffer.writeStaticString(#","updatedAt":"#)
        StudentLocationJSON.writeString(r.updatedAt, into: &buffer)
        buffer.writeStaticString("}")
    }

    /// The snapshot in `layout`, most recently updated first (the list's order, objectId
    /// breaking ties as the Parse list does), gzipped (see `EncodedSnapshot`).
    /// `teachers`: the account keys of the class's teachers, whose posts the map layout marks.
    static func snapshot(
        _ locations: CompactLocations, version: Int64, layout: SnapshotLayout, teachers: Set<String> = []
    ) -> EncodedSnapshot {
        let order = locations.sortedForSnapshot()
        let buffer =
            switch layout {
            case .records: recordsBody(locations, order: order, version: version)
            case .mapColumns: mapColumnsBody(locations, order: order, version: version, teachers: teachers)
            case .mapBinary: MapColumnsBinary.body(locations, order: order, version: version, teachers: teachers)
            }
        return EncodedSnapshot(version: version, count: order.count, body: buffer)
    }

    /// The same from records by objectId (tests).
    static func snapshot(
        _ records: [String: StudentInformation], version: Int64, layout: SnapshotLayout, teachers: Set<String> = []
    ) -> EncodedSnapshot {
        snapshot(CompactLocations(records.values, timeZone: bundledTimeZone), version: version, layout: layout, teachers: teachers)
    }

    /// `{"count":N,"locations":[…],"version":V}`, the rows in `order`.
    static func recordsBody(_ locations: CompactLocations, order: [Int32], version: Int64) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: 64 + order.count * 260)
        buffer.writeString(#"{"count":\#(order.count),"locations":["#)
        locations.read { rows in
            func text(_ row: Int32, _ field: CompactLocations.Field) {
                StudentLocationJSON.writeString(utf8: rows.field(row, field), into: &buffer)
            }
            for (index, row) in order.enumerated() {
                if index > 0 { buffer.writeStaticString(",") }
                buffer.writeStaticString(#"{"firstName":"#)
                text(row, .firstName)
                buffer.writeStaticString(#","lastName":"#)
                text(row, .lastName)
                buffer.writeStaticString(#","latitude":"#)
                StudentLocationJSON.writeNumber(rows.latitude(row), into: &buffer)
                buffer.writeStaticString(#","longitude":"#)
                StudentLocationJSON.writeNumber(rows.longitude(row), into: &buffer)
                buffer.writeStaticString(#","mapString":"#)
                text(row, .mapString)
                buffer.writeStaticString(#","mediaURL":"#)
                text(row, .mediaURL)
                buffer.writeStaticString(#","objectId":"#)
                text(row, .objectId)
                buffer.writeStaticString(#","uniqueKey":"#)
                text(row, .uniqueKey)
                buffer.writeStaticString(#","updatedAt":"#)
                rows.withUpdatedAt(row) { StudentLocationJSON.writeString(utf8: $0, into: &buffer) }
                buffer.writeStaticString("}")
            }
        }
        buffer.writeString(#"],"version":\#(version)}"#)
        return buffer
    }

    /// `{"columns":{"firstName":[…],…,"timeZone":[…],"uniqueKey":[…]},"count":N,"teachers":[…],"timeZones":[…],"version":V}`:
    /// the i-th entry of every column is the i-th location; `timeZone` holds an index into
    /// `timeZones` (IANA names, each once, in the order first used) or null, the zone of the
    /// point as members see it (found when the row came in); `teachers` lists, in order, the
    /// indexes of the locations posted by one of `teachers` (the class's teachers' account
    /// keys), so the map marks their pins (the Parse wire format carries no such flag).
    /// `stretchCount`: how many workers write it (tests); by default one per core from
    /// `parallelColumnsFrom` locations, else one.
    static func mapColumnsBody(
        _ locations: CompactLocations, order: [Int32], version: Int64, teachers: Set<String> = [], stretchCount: Int? = nil
    ) -> ByteBuffer {
        let names: [StaticString] = [
            "firstName", "lastName", "latitude", "longitude", "mapString", "mediaURL", "objectId", "timeZone", "uniqueKey",
        ]
        let fields: [CompactLocations.Field?] = [.firstName, .lastName, nil, nil, .mapString, .mediaURL, .objectId, nil, .uniqueKey]
        let timeZoneColumn = 7
        // The locations are cut into stretches, one per core for a big class; each stretch's
        // part of every column is written by one worker visiting each of its rows once (the
        // rows are in the list's order, scattered in memory: a column at a time would fetch
        // every row nine times). Each column's parts are then joined in order.
        let stretches = Self.stretches(of: order.count, stretchCount)
        let stretchCount = stretches.count
        var parts = [[ByteBuffer]](repeating: [], count: stretchCount)
        // The store's zone number of each location, for the zone column written afterwards
        // (numbered in the order the whole column first uses each zone).
        var zones = [UInt32](repeating: CompactLocations.noZone, count: order.count)
        var teacherIndexes: [Int] = []
        locations.read { rows in
            func write(_ stretch: Range<Int>, zones: UnsafeMutableBufferPointer<UInt32>) -> [ByteBuffer] {
                var columns = names.indices.map { column in
                    ByteBufferAllocator().buffer(capacity: column == timeZoneColumn ? 0 : 16 + stretch.count * 24)
                }
                for index in stretch {
                    let row = order[index]
                    for (column, field) in fields.enumerated() where column != timeZoneColumn {
                        if index > stretch.lowerBound { columns[column].writeStaticString(",") }
                        if let field {
                            StudentLocationJSON.writeString(utf8: rows.field(row, field), into: &columns[column])
                        } else {
                            StudentLocationJSON.writeNumber(column == 2 ? rows.latitude(row) : rows.longitude(row), into: &columns[column])
                        }
                    }
                    zones[index] = rows.zone(row)
                }
                return columns
            }
            zones.withUnsafeMutableBufferPointer { zones in
                if stretchCount == 1 {
                    parts[0] = write(stretches[0], zones: zones)
                    return
                }
                parts.withUnsafeMutableBufferPointer { out in
                    // Each worker writes its own element of `out` and its own stretch of `zones`,
                    // and only reads the rows, which stay put until `concurrentPerform` returns.
                    nonisolated(unsafe) let out = out
                    nonisolated(unsafe) let zones = zones
                    nonisolated(unsafe) let write = write
                    DispatchQueue.concurrentPerform(iterations: stretchCount) { out[$0] = write(stretches[$0], zones) }
                }
            }
            teacherIndexes = Self.teacherIndexes(rows, order: order, teachers: teachers)
        }
        // The zone column: each zone numbered in the order the column first uses it.
        let (zoneNumbers, zoneNames) = Self.snapshotZones(zones, in: locations)
        var zoneColumn = ByteBufferAllocator().buffer(capacity: 16 + order.count * 3)
        for (index, number) in zoneNumbers.enumerated() {
            if index > 0 { zoneColumn.writeStaticString(",") }
            if number == Self.noSnapshotZone {
                zoneColumn.writeStaticString("null")
            } else {
                zoneColumn.writeString(String(number))
            }
        }
        let size = parts.reduce(zoneColumn.readableBytes) { total, part in part.reduce(total) { $0 + $1.readableBytes } }
        var buffer = ByteBufferAllocator().buffer(capacity: 256 + size + stretchCount * names.count)
        buffer.writeStaticString(#"{"columns":{"#)
        for (column, name) in names.enumerated() {
            if column > 0 { buffer.writeStaticString(",") }
            buffer.writeStaticString("\"")
            buffer.writeStaticString(name)
            buffer.writeStaticString("\":[")
            if column == timeZoneColumn {
                buffer.writeImmutableBuffer(zoneColumn)
            } else {
                for (part, stretch) in zip(parts, stretches) where !stretch.isEmpty {
                    if stretch.lowerBound > 0 { buffer.writeStaticString(",") }
                    buffer.writeImmutableBuffer(part[column])
                }
            }
            buffer.writeStaticString("]")
        }
        buffer.writeString(#"},"count":\#(order.count),"teachers":["#)
        buffer.writeString(teacherIndexes.map(String.init).joined(separator: ","))
        buffer.writeStaticString(#"],"timeZones":["#)
        writeStrings(zoneNames, into: &buffer)
        buffer.writeString(#"],"version":\#(version)}"#)
        return buffer
    }

    /// From how many locations the map layout's columns are written in parallel.
    static let parallelColumnsFrom = 20_000

    // MARK: What both map layouts (JSON and binary) share

    /// The stretches of `count` rows in order, one per worker: `stretchCount` of them (tests),
    /// by default one per core (at most 8) from `parallelColumnsFrom` rows, else one.
    static func stretches(of count: Int, _ stretchCount: Int?) -> [Range<Int>] {
        let workers =
            stretchCount.map { max(1, $0) }
            ?? (count >= parallelColumnsFrom ? max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8)) : 1)
        return (0..<workers).map { part in count * part / workers..<count * (part + 1) / workers }
    }

    /// The indexes in `order` of the rows posted by one of `teachers` (account keys).
    static func teacherIndexes(_ rows: CompactLocations.Reader, order: [Int32], teachers: Set<String>) -> [Int] {
        guard !teachers.isEmpty else { return [] }
        let keys = teachers.map { Array($0.utf8) }
        return order.indices.filter { index in
            let key = rows.field(order[index], .uniqueKey)
            return keys.contains { $0.elementsEqual(key) }
        }
    }

    /// A snapshot's zone number for none.
    static let noSnapshotZone = UInt16.max

    /// The snapshot's zone of each row, from the store's zone numbers (`CompactLocations.zone`):
    /// each zone numbered in the order the rows first use it, `noSnapshotZone` for none, and
    /// the zones' names in that order.
    static func snapshotZones(_ storeZones: [UInt32], in locations: CompactLocations) -> (numbers: [UInt16], names: [String]) {
        var numbers = [UInt16](repeating: noSnapshotZone, count: storeZones.count)
        var names: [String] = []
        var numberOf: [UInt32: UInt16] = [:]
        for (index, zone) in storeZones.enumerated() where zone != CompactLocations.noZone {
            if let number = numberOf[zone] {
                numbers[index] = number
                continue
            }
            let number = UInt16(names.count)
            numberOf[zone] = number
            names.append(locations.zoneNames[Int(zone)])
            numbers[index] = number
        }
        return (numbers, names)
    }

    /// `strings` as JSON strings separated by commas (the inside of an array).
    static func writeStrings(_ strings: [String], into buffer: inout ByteBuffer) {
        for (index, string) in strings.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            StudentLocationJSON.writeString(string, into: &buffer)
        }
    }

    /// The map layout of locations already in order (tests), each zone asked once per point.
    static func mapColumnsBody(
        _ sorted: [StudentInformation], version: Int64, teachers: Set<String> = [],
        timeZone: (Double, Double) -> String? = LiveMapJSON.bundledTimeZone
    ) -> ByteBuffer {
        let locations = CompactLocations(sorted, timeZone: timeZone)
        return mapColumnsBody(locations, order: locations.insertionOrder(), version: version, teachers: teachers)
    }

    /// The time zone of a point from the bundled gazetteer (nil without one). Not remembered:
    /// the gazetteer answers most points from its table of one-zone cells and the rest with a
    /// search that costs about what a shared cache's lock and lookup did.
    @Sendable static func bundledTimeZone(_ latitude: Double, _ longitude: Double) -> String? {
        guard case .success(let gazetteer) = BundledGazetteer.shared else { return nil }
        return gazetteer.timeZone(latitude: latitude, longitude: longitude)
    }

    /// A point, exactly, as a dictionary key.
    struct PointKey: Hashable, Sendable {
        let latitude: UInt64
        let longitude: UInt64
    }
}
