import NIOCore
import OnTheMapModels

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
    static func snapshot(_ records: [String: StudentInformation], version: Int64, layout: SnapshotLayout) -> EncodedSnapshot {
        let sorted = records.values.sorted { a, b in
            a.updatedAt != b.updatedAt ? a.updatedAt > b.updatedAt : a.objectId > b.objectId
        }
        let buffer =
            switch layout {
            case .records: recordsBody(sorted, version: version)
            case .mapColumns: mapColumnsBody(sorted, version: version)
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

    /// `{"columns":{"firstName":[…],…,"uniqueKey":[…]},"count":N,"version":V}`: the i-th entry
    /// of every column is the i-th location.
    static func mapColumnsBody(_ sorted: [StudentInformation], version: Int64) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: 128 + sorted.count * 140)
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
        column("uniqueKey") { StudentLocationJSON.writeString($0.uniqueKey, into: &$1) }
        buffer.writeString(#"]},"count":\#(sorted.count),"version":\#(version)}"#)
        return buffer
    }
}
