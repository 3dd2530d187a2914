import Foundation
import NIOCore
import OnTheMapModels
import Testing

@testable import OnTheMapServer

@Suite("Hand-written list JSON")
struct StudentLocationJSONTests {
    static func record(_ text: String, latitude: Double, longitude: Double) -> StudentInformation {
        StudentInformation(
            objectId: "AbCdEfGhIj", uniqueKey: text, firstName: text, lastName: "O'Brien", mapString: text,
            mediaURL: "https://example.com/a/b?c=d&e=\(text)", latitude: latitude, longitude: longitude,
            createdAt: "2015-02-25T01:10:38.103Z", updatedAt: "2015-03-09T22:04:50.315Z")
    }

    static let tricky = [
        "plain", "quote \" inside", "back\\slash", "line\nbreak\ttab\r", "\u{01}\u{1F}", "München Zürich",
        "東京", "emoji 🗺️", "</script>", "", "slash/es",
    ]

    @Test("text is copied whole exactly when no byte needs escaping, wherever in a word the byte is")
    func escapingCheck() {
        var rng = SystemRandomNumberGenerator()
        // Bytes around each special one, and multi-byte UTF-8 (never escaped), at every offset.
        let alphabet: [UInt8] = [0x00, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xA2, 0xDC, 0xFF, 0x61]
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &rng)).map { _ in
                Bool.random(using: &rng) ? UInt8(ascii: "a") : alphabet.randomElement(using: &rng)!
            }
            let expected = bytes.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }
            bytes.withUnsafeBufferPointer { #expect(StudentLocationJSON.needsEscaping($0) == expected, "\(bytes)") }
        }
    }

    @Test("decodes to exactly what JSONEncoder's output decodes to, for awkward text and numbers")
    func sameMeaningAsJSONEncoder() throws {
        let numbers: [(Double, Double)] = [
            (0, 0), (-90, 180), (51.5074, -0.1278), (1e-7, -1e-7), (37.38605123456789, -122.08385), (12, -3.5),
        ]
        var records: [StudentInformation] = []
        for (index, text) in Self.tricky.enumerated() {
            let (latitude, longitude) = numbers[index % numbers.count]
            records.append(Self.record(text, latitude: latitude, longitude: longitude))
        }
        for count in [nil, 0, 1_000_000] as [Int?] {
            let ours = Data(buffer: StudentLocationJSON.listBody(records, count: count))
            let decoded = try JSONSerialization.jsonObject(with: ours) as! [String: Any]
            #expect(decoded["count"] as? Int == count)
            let results = try #require(decoded["results"] as? [[String: Any]])
            let roundTrip = try JSONDecoder().decode([StudentInformation].self, from: JSONSerialization.data(withJSONObject: results))
            #expect(roundTrip == records)
        }
    }

    @Test("the list's byte array and a ByteBuffer (the live map's, the exports') receive the same bytes")
    func bothSinksWriteTheSameBytes() {
        var records: [StudentInformation] = []
        for (index, text) in Self.tricky.enumerated() {
            records.append(
                Self.record(text + String(repeating: "\u{7F}é\"\\\n", count: index), latitude: -1.5 * Double(index), longitude: 1e-7))
        }
        var buffer = ByteBuffer()
        buffer.writeStaticString(#"{"results":["#)
        for (index, record) in records.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            StudentLocationJSON.write(record, into: &buffer)
        }
        buffer.writeStaticString("]}")
        #expect(StudentLocationJSON.listBody(records, count: nil) == buffer)
    }

    @Test("is byte-identical to JSONEncoder with sorted keys for ordinary records")
    func byteIdenticalForOrdinaryRecords() throws {
        let records = [
            Self.record("Jarrod", latitude: 34.7303688, longitude: -86.5861037), Self.record("Ana", latitude: 10, longitude: -20.25),
        ]
        struct Wrapper: Encodable { let results: [StudentInformation] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let expected = try encoder.encode(Wrapper(results: records))
        #expect(String(buffer: StudentLocationJSON.listBody(records, count: nil)) == String(decoding: expected, as: UTF8.self))
        #expect(String(buffer: StudentLocationJSON.listBody([], count: nil)) == #"{"results":[]}"#)
    }
}
