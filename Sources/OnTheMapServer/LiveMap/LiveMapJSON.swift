import Dispatch
import Geocoding
import NIOCore
import OnTheMapModels
import Synchronization

/// The live map's wire form: a location as the map and the list need it (no `createdAt`),
/// keys sorted like every other answer of ours, written by hand as the list is.
enum LiveMapJSON {
    static func write(_ r: StudentInformation, into buffer: inout ByteBuffer) {
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
    static func mapColumnsBody(
        _ locations: CompactLocations, order: [Int32], version: Int64, teachers: Set<String> = []
    ) -> ByteBuffer {
        let teacherKeys = teachers.map { Array($0.utf8) }
        // Each column is written on its own, on every core for a big class, then they are joined.
        let names: [StaticString] = [
            "firstName", "lastName", "latitude", "longitude", "mapString", "mediaURL", "objectId", "timeZone", "uniqueKey",
        ]
        let fields: [CompactLocations.Field?] = [.firstName, .lastName, nil, nil, .mapString, .mediaURL, .objectId, nil, .uniqueKey]
        var columns = [(body: ByteBuffer, zoneNames: [String])](repeating: (ByteBuffer(), []), count: names.count)
        var teacherIndexes: [Int] = []
        locations.read { rows in
            func column(_ number: Int) -> (body: ByteBuffer, zoneNames: [String]) {
                var buffer = ByteBufferAllocator().buffer(capacity: 16 + order.count * 24)
                var zoneNames: [String] = []
                buffer.writeStaticString("\"")
                buffer.writeStaticString(names[number])
                buffer.writeStaticString("\":[")
                // The store's zone numbers, renumbered in the order this snapshot first uses them.
                var snapshotZone: [UInt32: Int] = [:]
                for (index, row) in order.enumerated() {
                    if index > 0 { buffer.writeStaticString(",") }
                    if let field = fields[number] {
                        StudentLocationJSON.writeString(utf8: rows.field(row, field), into: &buffer)
                    } else if number == 2 {
                        StudentLocationJSON.writeNumber(rows.latitude(row), into: &buffer)
                    } else if number == 3 {
                        StudentLocationJSON.writeNumber(rows.longitude(row), into: &buffer)
                    } else {
                        let zone = rows.zone(row)
                        if zone == CompactLocations.noZone {
                            buffer.writeStaticString("null")
                            continue
                        }
                        if snapshotZone[zone] == nil {
                            snapshotZone[zone] = zoneNames.count
                            zoneNames.append(locations.zoneNames[Int(zone)])
                        }
                        buffer.writeString(String(snapshotZone[zone]!))
                    }
                }
                buffer.writeStaticString("]")
                return (buffer, zoneNames)
            }
            if order.count >= parallelColumnsFrom {
                columns.withUnsafeMutableBufferPointer { out in
                    // Each worker writes its own element of `out` and only reads the rows, which
                    // stay put until `concurrentPerform` returns.
                    nonisolated(unsafe) let out = out
                    nonisolated(unsafe) let column = column
                    DispatchQueue.concurrentPerform(iterations: names.count) { out[$0] = column($0) }
                }
            } else {
                for number in names.indices { columns[number] = column(number) }
            }
            if !teacherKeys.isEmpty {
                for (index, row) in order.enumerated() {
                    let key = rows.field(row, .uniqueKey)
                    if teacherKeys.contains(where: { $0.elementsEqual(key) }) { teacherIndexes.append(index) }
                }
            }
        }
        var buffer = ByteBufferAllocator().buffer(capacity: 128 + columns.reduce(0) { $0 + $1.body.readableBytes })
        buffer.writeStaticString(#"{"columns":{"#)
        for (number, column) in columns.enumerated() {
            if number > 0 { buffer.writeStaticString(",") }
            buffer.writeImmutableBuffer(column.body)
        }
        buffer.writeString(#"},"count":\#(order.count),"teachers":["#)
        buffer.writeString(teacherIndexes.map(String.init).joined(separator: ","))
        buffer.writeStaticString(#"],"timeZones":["#)
        for (index, name) in columns[7].zoneNames.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            StudentLocationJSON.writeString(name, into: &buffer)
        }
        buffer.writeString(#"],"version":\#(version)}"#)
        return buffer
    }

    /// From how many locations the map layout's columns are written in parallel.
    static let parallelColumnsFrom = 20_000

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
