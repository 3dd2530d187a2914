import Foundation
import NIOCore
import Testing

@testable import OnTheMapServer

/// The binary map layout (`MapColumnsBinary`) says exactly what the JSON map layout says.
/// The web app's reader is checked in Tests/JS/mapColumns.test.js, and in the browser suite
/// through every map it draws.
@Suite struct MapColumnsBinaryTests {
    /// The binary body read back as the JSON layout's object (numbers as Double, a zone as
    /// its index or NSNull), by the rules docs/api/api.md gives a client.
    static func read(_ buffer: ByteBuffer) throws -> [String: Any] {
        let bytes = Array(buffer.readableBytesView)
        func uint32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func uint16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func float64(_ at: Int) -> Double {
            Double(bitPattern: (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) })
        }
        #expect(Array(bytes[0..<4]) == Array("OTMC".utf8))
        #expect(uint32(4) == 1)
        let headerLength = uint32(8)
        var object = try #require(JSONSerialization.jsonObject(with: Data(bytes[12..<12 + headerLength])) as? [String: Any])
        let count = try #require(object["count"] as? Int)
        let specs = try #require(object["columns"] as? [String: [String: Any]])
        var columns: [String: Any] = [:]
        for (name, spec) in specs {
            let offset = try #require(spec["offset"] as? Int)
            #expect(offset % 8 == 0, "\(name) is aligned")
            switch spec["type"] as? String {
            case "float64":
                columns[name] = (0..<count).map { float64(offset + 8 * $0) }
            case "uint16":
                columns[name] = (0..<count).map { row -> Any in uint16(offset + 2 * row) == 65535 ? NSNull() : uint16(offset + 2 * row) }
            case "text":
                let lengths = try #require(spec["lengths"] as? Int)
                let byteLength = try #require(spec["byteLength"] as? Int)
                let units = Array(String(decoding: bytes[offset..<offset + byteLength], as: UTF8.self).utf16)
                var start = 0
                columns[name] = (0..<count).map { row -> String in
                    let end = start + uint16(lengths + 2 * row)
                    defer { start = end }
                    return String(decoding: units[start..<end], as: UTF16.self)
                }
                #expect(start == units.count, "\(name)'s lengths add up to its text")
            default:
                Issue.record("\(name): unknown type")
            }
        }
        object["columns"] = columns
        return object
    }

    static func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any])
    }

    @Test("it holds the JSON map layout's columns, zones, teachers, count and version, for any script and any number of workers")
    func sameAsJSON() throws {
        let maker = CompactLocationsTests()
        var rng = CompactLocationsTests.Seeded(state: 52)
        var compact = CompactLocations()
        let zones = ["Europe/Berlin", nil, "Asia/Tokyo", "America/Lima"]
        let names = ["Bom\u{FEFF}", "🦊 Fox", "a\u{0}b", "", "Zoë", "عمر", "李"]
        for number in 0..<1_203 {
            var record = maker.record("s\(number)", &rng)
            record.firstName = names[number % names.count]
            compact.upsert(record, zone: zones[number * 5 % zones.count])
        }
        let order = compact.sortedForSnapshot()
        let binary = MapColumnsBinary.body(compact, order: order, version: 9, teachers: ["k3", "k7"], stretchCount: 1)
        let expected = try Self.json(LiveMapJSON.mapColumnsBody(compact, order: order, version: 9, teachers: ["k3", "k7"]))
        let read = try Self.read(binary)
        #expect(NSDictionary(dictionary: read).isEqual(to: expected))
        let readColumns = try #require(read["columns"] as? [String: [Any]])
        for (name, values) in try #require(expected["columns"] as? [String: [Any]]) {
            let got = try #require(readColumns[name])
            if let row = values.indices.first(where: { !NSArray(array: [values[$0]]).isEqual(to: [got[$0]]) }) {
                Issue.record("\(name)[\(row)]: \(got[row]) instead of \(values[row])")
            }
        }
        #expect((read["teachers"] as? [Int])?.isEmpty == false)
        for count in [2, 3, 8, 1_203, 1_500] {
            #expect(
                MapColumnsBinary.body(compact, order: order, version: 9, teachers: ["k3", "k7"], stretchCount: count) == binary, "\(count)")
        }
    }

    @Test("an empty class is a header and no rows")
    func empty() throws {
        let body = MapColumnsBinary.body(CompactLocations(), order: [], version: 0, stretchCount: 3)
        let expected = try Self.json(LiveMapJSON.mapColumnsBody(CompactLocations(), order: [], version: 0))
        #expect(NSDictionary(dictionary: try Self.read(body)).isEqual(to: expected))
    }

    @Test("a text's length is counted as a browser counts it: UTF-16 code units")
    func utf16Lengths() {
        for text in ["", "abc", "Zoë", "李", "🦊", "a🦊b\u{FEFF}", "\u{0}"] {
            let length = Array(text.utf8).withUnsafeBufferPointer { MapColumnsBinary.utf16Length($0) }
            #expect(Int(length) == text.utf16.count, "\(text)")
        }
    }
}
