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

    /// `{"count":N,"locations":[…],"version":V}`, most recently updated first (the list's
    /// order, objectId breaking ties as the Parse list does), plain and gzipped.
    static func snapshot(_ records: [String: StudentInformation], version: Int64) -> EncodedSnapshot {
        let sorted = records.values.sorted { a, b in
            a.updatedAt != b.updatedAt ? a.updatedAt > b.updatedAt : a.objectId > b.objectId
        }
        var buffer = ByteBufferAllocator().buffer(capacity: 64 + sorted.count * 260)
        buffer.writeString(#"{"count":\#(sorted.count),"locations":["#)
        for (index, record) in sorted.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            write(record, into: &buffer)
        }
        buffer.writeString(#"],"version":\#(version)}"#)
        return EncodedSnapshot(version: version, count: sorted.count, plain: buffer, gzipped: Gzip.compress(buffer))
    }
}
