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
    /// breaking ties as the Parse list does), plain and gzipped.
    /// `teachers`: the account keys of the class's teachers, whose posts the map layout marks.
    static func snapshot(
        _ records: [String: StudentInformation], version: Int64, layout: SnapshotLayout, teachers: Set<String> = []
    ) -> EncodedSnapshot {
        let sorted = records.values.sorted { a, b in
            a.updatedAt != b.updatedAt ? a.updatedAt > b.updatedAt : a.objectId > b.objectId
        }
        let buffer =
            switch layout {
            case .records: recordsBody(sorted, version: version)
            case .mapColumns: mapColumnsBody(sorted, version: version, teachers: teachers)
            }
        return EncodedSnapshot(version: version, count: sorted.count, plain: buffer, gzipped: Gzip.compress(buffer))
    }

    /// `{"count":N,"locations":[…],"version":V}`
    static func recordsBody(_ sorted: [StudentInformation], version: Int64) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: 64 + sorted.count * 260)
        buffer.writeString(#"{"count":\#(sorted.count),"locations":["#)
        for (index, record) in sorted.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            write(record, into: &buffer)
        }
        buffer.writeString(#"],"version":\#(version)}"#)
        return buffer
    }

    /// `{"columns":{"firstName":[…],…,"timeZone":[…],"uniqueKey":[…]},"count":N,"teachers":[…],"timeZones":[…],"version":V}`:
    /// the i-th entry of every column is the i-th location; `timeZone` holds an index into
    /// `timeZones` (IANA names, each once) or null, the zone of the point as members see it
    /// (`timeZone(latitude, longitude)`, asked once per distinct point); `teachers` lists, in
    /// order, the indexes of the locations posted by one of `teachers` (the class's teachers'
    /// account keys), so the map marks their pins (the Parse wire format carries no such flag).
    static func mapColumnsBody(
        _ sorted: [StudentInformation], version: Int64, teachers: Set<String> = [],
        timeZone: (Double, Double) -> String? = LiveMapJSON.bundledTimeZone
    ) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: 128 + sorted.count * 144)
        var zoneNames: [String] = []
        var zoneIndex: [String: Int] = [:]
        var zoneOfPoint: [PointKey: Int] = [:]
        let zones = sorted.map { record -> Int in
            let point = PointKey(latitude: record.latitude.bitPattern, longitude: record.longitude.bitPattern)
            if let known = zoneOfPoint[point] { return known }
            var index = -1
            if let name = timeZone(record.latitude, record.longitude) {
                if let known = zoneIndex[name] {
                    index = known
                } else {
                    index = zoneNames.count
                    zoneIndex[name] = index
                    zoneNames.append(name)
                }
            }
            zoneOfPoint[point] = index
            return index
        }
        func column(_ name: StaticString, first: Bool = false, _ write: (StudentInformation, inout ByteBuffer) -> Void) {
            if !first { buffer.writeStaticString("],") }
            buffer.writeStaticString("\"")
            buffer.writeStaticString(name)
            buffer.writeStaticString("\":[")
            for (index, record) in sorted.enumerated() {
                if index > 0 { buffer.writeStaticString(",") }
                write(record, &buffer)
            }
        }
        buffer.writeStaticString(#"{"columns":{"#)
        column("firstName", first: true) { StudentLocationJSON.writeString($0.firstName, into: &$1) }
        column("lastName") { StudentLocationJSON.writeString($0.lastName, into: &$1) }
        column("latitude") { StudentLocationJSON.writeNumber($0.latitude, into: &$1) }
        column("longitude") { StudentLocationJSON.writeNumber($0.longitude, into: &$1) }
        column("mapString") { StudentLocationJSON.writeString($0.mapString, into: &$1) }
        column("mediaURL") { StudentLocationJSON.writeString($0.mediaURL, into: &$1) }
        column("objectId") { StudentLocationJSON.writeString($0.objectId, into: &$1) }
        buffer.writeStaticString(#"],"timeZone":["#)
        for (index, zone) in zones.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            if zone < 0 { buffer.writeStaticString("null") } else { buffer.writeString(String(zone)) }
        }
        column("uniqueKey") { StudentLocationJSON.writeString($0.uniqueKey, into: &$1) }
        buffer.writeString(#"]},"count":\#(sorted.count),"teachers":["#)
        if !teachers.isEmpty {
            var first = true
            for (index, record) in sorted.enumerated() where teachers.contains(record.uniqueKey) {
                if !first { buffer.writeStaticString(",") }
                first = false
                buffer.writeString(String(index))
            }
        }
        buffer.writeStaticString(#"],"timeZones":["#)
        for (index, name) in zoneNames.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            StudentLocationJSON.writeString(name, into: &buffer)
        }
        buffer.writeString(#"],"version":\#(version)}"#)
        return buffer
    }

    /// The time zone of a point from the bundled gazetteer (nil without one), remembered per
    /// point: a snapshot is encoded again after every change of its class, and a class of
    /// 100,000 exact points would otherwise search the gazetteer 100,000 times each time.
    @Sendable static func bundledTimeZone(_ latitude: Double, _ longitude: Double) -> String? {
        guard case .success(let gazetteer) = BundledGazetteer.shared else { return nil }
        let point = PointKey(latitude: latitude.bitPattern, longitude: longitude.bitPattern)
        if let known = zoneCache.withLock({ $0[point] }) { return known }
        let zone = gazetteer.timeZone(latitude: latitude, longitude: longitude)
        zoneCache.withLock { cache in
            if cache.count >= zoneCacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[point] = .some(zone)
        }
        return zone
    }

    /// Points' zones found so far (nil inside: the point has none), at most `zoneCacheLimit`.
    static let zoneCache = Mutex<[PointKey: String?]>([:])
    static let zoneCacheLimit = 1_000_000

    /// A point, exactly, as a dictionary key.
    struct PointKey: Hashable, Sendable {
        let latitude: UInt64
        let longitude: UInt64
    }
}
