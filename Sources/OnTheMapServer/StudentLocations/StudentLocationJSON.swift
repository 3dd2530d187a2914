import NIOCore
import OnTheMapModels

/// Writes `{"results":[…],"count"?}` by hand. Lists are the hot path (JSONEncoder was a
/// third of an uncached request's CPU), and the shape is fixed: ten fields, keys in sorted
/// order like every other answer of ours.
enum StudentLocationJSON {
    /// The body is written into a plain byte array, then copied into a ByteBuffer once: a page
    /// is thousands of small writes, and each ByteBuffer write checks exclusive access to the
    /// buffer's storage at run time (about a quarter of the list JSON's CPU in a release
    /// profile), where appending to a local array checks nothing.
    static func listBody(_ results: [StudentInformation], count: Int?) -> ByteBuffer {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + results.count * 320)
        bytes.appendJSON(#"{"#)
        if let count {
            bytes.appendJSON(#""count":"#)
            bytes.appendJSONText(String(count))
            bytes.appendJSON(",")
        }
        bytes.appendJSON(#""results":["#)
        for (index, record) in results.enumerated() {
            if index > 0 { bytes.appendJSON(",") }
            write(record, into: &bytes)
        }
        bytes.appendJSON("]}")
        var buffer = ByteBufferAllocator().buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        return buffer
    }

    static func write<Sink: JSONSink>(_ r: StudentInformation, into buffer: inout Sink) {
        buffer.appendJSON(#"{"createdAt":"#)
        writeString(r.createdAt, into: &buffer)
        buffer.appendJSON(#","firstName":"#)
        writeString(r.firstName, into: &buffer)
        buffer.appendJSON(#","lastName":"#)
        writeString(r.lastName, into: &buffer)
        buffer.appendJSON(#","latitude":"#)
        writeNumber(r.latitude, into: &buffer)
        buffer.appendJSON(#","longitude":"#)
        writeNumber(r.longitude, into: &buffer)
        buffer.appendJSON(#","mapString":"#)
        writeString(r.mapString, into: &buffer)
        buffer.appendJSON(#","mediaURL":"#)
        writeString(r.mediaURL, into: &buffer)
        buffer.appendJSON(#","objectId":"#)
        writeString(r.objectId, into: &buffer)
        buffer.appendJSON(#","uniqueKey":"#)
        writeString(r.uniqueKey, into: &buffer)
        buffer.appendJSON(#","updatedAt":"#)
        writeString(r.updatedAt, into: &buffer)
        buffer.appendJSON("}")
    }

    /// Finite doubles only (validated on input). Whole numbers are written without a
    /// fraction, as JSONEncoder does.
    static func writeNumber<Sink: JSONSink>(_ value: Double, into buffer: inout Sink) {
        buffer.appendJSONText(numberText(value))
    }

    /// A coordinate as every answer writes it (the list, the snapshot, the exports).
    static func numberText(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : value.description
    }

    /// A JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
    static func writeString<Sink: JSONSink>(_ text: String, into buffer: inout Sink) {
        var text = text
        text.withUTF8 { writeString(utf8: $0, into: &buffer) }
    }

    /// The same, from text already held as UTF-8 (the live map's compact rows).
    static func writeString<Sink: JSONSink>(utf8 bytes: UnsafeBufferPointer<UInt8>, into buffer: inout Sink) {
        buffer.appendJSON("\"")
        if !needsEscaping(bytes) {  // almost every name, place and link: copied whole
            buffer.appendJSONBytes(UnsafeRawBufferPointer(bytes))
            buffer.appendJSON("\"")
            return
        }
        var start = 0
        for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            buffer.appendJSONBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<index]))
            switch byte {
            case UInt8(ascii: "\""): buffer.appendJSON("\\\"")
            case UInt8(ascii: "\\"): buffer.appendJSON("\\\\")
            case 0x0A: buffer.appendJSON("\\n")
            case 0x0D: buffer.appendJSON("\\r")
            case 0x09: buffer.appendJSON("\\t")
            default:
                buffer.appendJSON("\\u00")
                buffer.appendJSONByte(hexDigit(byte >> 4))
                buffer.appendJSONByte(hexDigit(byte & 0x0F))
            }
            start = index + 1
        }
        buffer.appendJSONBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start...]))
        buffer.appendJSON("\"")
    }

    /// Whether any byte is a control character, `"` or `\`, eight bytes at a time: a byte
    /// below 0x20 is one whose value minus 0x20 borrows from its top bit, and `"` and `\` are
    /// the bytes that become zero when XORed with them.
    static func needsEscaping(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
        var index = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= bytes.count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                // Below 0x20: (b - 0x20) sets the top bit where b's own top bit was clear.
                if (word &- ones &* 0x20) & ~word & highs != 0 || hasZeroByte(word ^ (ones &* 0x22))
                    || hasZeroByte(word ^ (ones &* 0x5C))
                {
                    return true
                }
                index += 8
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
            index += 1
        }
        return false
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}

/// Where `StudentLocationJSON` writes: a ByteBuffer (the live map's bodies, the exports), or
/// a plain byte array (the list, see `listBody`).
protocol JSONSink {
    mutating func appendJSON(_ text: StaticString)
    mutating func appendJSONBytes(_ bytes: UnsafeRawBufferPointer)
    mutating func appendJSONByte(_ byte: UInt8)
    mutating func appendJSONText(_ text: String)
}

extension ByteBuffer: JSONSink {
    mutating func appendJSON(_ text: StaticString) {
        writeStaticString(text)
    }

    mutating func appendJSONBytes(_ bytes: UnsafeRawBufferPointer) {
        writeBytes(bytes)
    }

    mutating func appendJSONByte(_ byte: UInt8) {
        writeInteger(byte)
    }

    mutating func appendJSONText(_ text: String) {
        writeString(text)
    }
}

extension Array: JSONSink where Element == UInt8 {
    mutating func appendJSON(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    mutating func appendJSONBytes(_ bytes: UnsafeRawBufferPointer) {
        append(contentsOf: bytes)
    }

    mutating func appendJSONByte(_ byte: UInt8) {
        append(byte)
    }

    mutating func appendJSONText(_ text: String) {
        append(contentsOf: text.utf8)
    }
}
