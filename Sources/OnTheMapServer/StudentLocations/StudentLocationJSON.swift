import NIOCore
import OnTheMapModels

/// Writes `{"results":[…],"count"?}` straight into a ByteBuffer. Lists are the hot path
/// (JSONEncoder was a third of an uncached request's CPU), and the shape is fixed: ten
/// fields, keys in sorted order like every other answer of ours.
enum StudentLocationJSON {
    static func listBody(_ results: [StudentInformation], count: Int?) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: 64 + results.count * 300)
        buffer.writeStaticString(#"{"#)
        if let count {
            buffer.writeStaticString(#""count":"#)
            buffer.writeString(String(count))
            buffer.writeStaticString(",")
        }
        buffer.writeStaticString(#""results":["#)
        for (index, record) in results.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            write(record, into: &buffer)
        }
        buffer.writeStaticString("]}")
        return buffer
    }

    static func write(_ r: StudentInformation, into buffer: inout ByteBuffer) {
        buffer.writeStaticString(#"{"createdAt":"#)
        writeString(r.createdAt, into: &buffer)
        buffer.writeStaticString(#","firstName":"#)
        writeString(r.firstName, into: &buffer)
        buffer.writeStaticString(#","lastName":"#)
        writeString(r.lastName, into: &buffer)
        buffer.writeStaticString(#","latitude":"#)
        writeNumber(r.latitude, into: &buffer)
        buffer.writeStaticString(#","longitude":"#)
        writeNumber(r.longitude, into: &buffer)
        buffer.writeStaticString(#","mapString":"#)
        writeString(r.mapString, into: &buffer)
        buffer.writeStaticString(#","mediaURL":"#)
        writeString(r.mediaURL, into: &buffer)
        buffer.writeStaticString(#","objectId":"#)
        writeString(r.objectId, into: &buffer)
        buffer.writeStaticString(#","uniqueKey":"#)
        writeString(r.uniqueKey, into: &buffer)
        buffer.writeStaticString(#","updatedAt":"#)
        writeString(r.updatedAt, into: &buffer)
        buffer.writeStaticString("}")
    }

    /// Finite doubles only (validated on input). Whole numbers are written without a
    /// fraction, as JSONEncoder does.
    static func writeNumber(_ value: Double, into buffer: inout ByteBuffer) {
        buffer.writeString(numberText(value))
    }

    /// A coordinate as every answer writes it (the list, the snapshot, the exports).
    static func numberText(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : value.description
    }

    /// A JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
    static func writeString(_ text: String, into buffer: inout ByteBuffer) {
        var text = text
        text.withUTF8 { writeString(utf8: $0, into: &buffer) }
    }

    /// The same, from text already held as UTF-8 (the live map's compact rows).
    static func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>, into buffer: inout ByteBuffer) {
        buffer.writeStaticString("\"")
        var start = 0
        for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<index]))
            switch byte {
            case UInt8(ascii: "\""): buffer.writeStaticString("\\\"")
            case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
            case 0x0A: buffer.writeStaticString("\\n")
            case 0x0D: buffer.writeStaticString("\\r")
            case 0x09: buffer.writeStaticString("\\t")
            default:
                buffer.writeStaticString("\\u00")
                buffer.writeInteger(hexDigit(byte >> 4))
                buffer.writeInteger(hexDigit(byte & 0x0F))
            }
            start = index + 1
        }
        buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start...]))
        buffer.writeStaticString("\"")
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
