import Foundation
import NIOCore
import OnTheMapModels
import Testing

@testable import OnTheMapServer

/// The live map keeps a class's locations in a compact form (`CompactLocations`); what it
/// sends must be byte for byte what the same locations as records would give.
@Suite("The live map's compact locations")
struct CompactLocationsTests {
    /// A seeded generator, so a failure can be run again.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let names = ["Ada", "Zoë", "عمر", "李", "", "O'Brien \"Bob\"", "Back\\slash", "Tab\tNew\nLine", "Ünïcödé"]

    /// Times as the server writes them (kept as numbers), mostly; now and then one in another
    /// form or an impossible date, which only hand-written SQL makes (kept as text).
    static func updatedAt(day: Int, _ rng: inout Seeded) -> String {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: "2026-01-0\(day)T00:00:00Z"
        case 1: "2026-02-3\(day % 2)T00:00:00.000Z"
        case 2: "2026-01-0\(day)T00:00:00.000Z and more"
        default: "2026-01-0\(day)T0\(day):00:00.\(day)00Z"
        }
    }

    func record(_ id: String, _ rng: inout Seeded) -> StudentInformation {
        let day = Int.random(in: 1...9, using: &rng)
        let updatedAt = Self.updatedAt(day: day, &rng)
        return StudentInformation(
            objectId: id, uniqueKey: "k\(Int.random(in: 0..<20, using: &rng))", firstName: Self.names.randomElement(using: &rng)!,
            lastName: Self.names.randomElement(using: &rng)!,
            mapString: ["Berlin", "القاهرة", "", "São Paulo"].randomElement(using: &rng)!,
            mediaURL: "https://example.com/\(Int.random(in: 0..<1000, using: &rng))",
            latitude: Double(Int.random(in: -90...90, using: &rng)) / 2, longitude: Double(Int.random(in: -180...180, using: &rng)) / 3,
            createdAt: "2026-01-01T00:00:00.000Z", updatedAt: updatedAt)
    }

    /// Removes `id` from both, or puts a new record under it in both; their counts must agree.
    func change(
        _ id: String, removing: Bool, _ compact: inout CompactLocations, _ reference: inout [String: StudentInformation],
        _ rng: inout Seeded
    ) {
        if removing {
            compact.remove(id)
            reference[id] = nil
        } else {
            let new = record(id, &rng)
            compact.upsert(new, zone: nil)
            reference[id] = new
        }
        #expect(compact.count == reference.count)
    }

    /// The records layout as the change frames write each location, in the list's order.
    func expectedRecordsBody(_ records: [String: StudentInformation], version: Int64) -> String {
        let sorted = records.values.sorted { a, b in a.updatedAt != b.updatedAt ? a.updatedAt > b.updatedAt : a.objectId > b.objectId }
        var buffer = ByteBuffer()
        buffer.writeString(#"{"count":\#(sorted.count),"locations":["#)
        for (index, record) in sorted.enumerated() {
            if index > 0 { buffer.writeString(",") }
            LiveMapJSON.write(record, into: &buffer)
        }
        buffer.writeString(#"],"version":\#(version)}"#)
        return String(buffer: buffer)
    }

    @Test("after thousands of adds, moves and removals it holds exactly what a dictionary would, in the same bytes")
    func matchesRecords() throws {
        var rng = Seeded(state: 46)
        var compact = CompactLocations()
        var reference: [String: StudentInformation] = [:]
        for step in 0..<6000 {
            let id = "id\(Int.random(in: 0..<700, using: &rng))"
            change(id, removing: Int.random(in: 0..<4, using: &rng) == 0, &compact, &reference, &rng)
            if step % 1000 == 999 {
                let body = LiveMapJSON.recordsBody(compact, order: compact.sortedForSnapshot(), version: Int64(step))
                #expect(String(buffer: body) == expectedRecordsBody(reference, version: Int64(step)))
            }
        }
        compact.removeAll()
        #expect(compact.count == 0)
        #expect(
            String(buffer: LiveMapJSON.recordsBody(compact, order: compact.sortedForSnapshot(), version: 1))
                == #"{"count":0,"locations":[],"version":1}"#)
    }

    @Test("rows appended in objectId order, some out of order or repeated, then changed, hold what a dictionary would")
    func appendedInOrder() throws {
        var rng = Seeded(state: 5)
        var compact = CompactLocations()
        var reference: [String: StudentInformation] = [:]
        // A snapshot's pages: ascending ids, with a repeat and a step back among them.
        var ids = (0..<3000).map { String(format: "p%05d", $0) }
        ids.insert("p00010", at: 500)
        ids.insert("p00007", at: 1200)
        for id in ids {
            let new = record(id, &rng)
            compact.appendAscending(new, zone: nil)
            reference[id] = new
            #expect(compact.count == reference.count)
        }
        func same(_ version: Int64) {
            let body = LiveMapJSON.recordsBody(compact, order: compact.sortedForSnapshot(), version: version)
            #expect(String(buffer: body) == expectedRecordsBody(reference, version: version))
        }
        same(1)
        // Then changes replayed on top: moves, removals, new rows.
        for _ in 0..<2000 {
            let id = String(format: "p%05d", Int.random(in: 0..<3500, using: &rng))
            change(id, removing: Bool.random(using: &rng), &compact, &reference, &rng)
        }
        same(2)
        // Appending after a change is an upsert again.
        let moved = record("p00001", &rng)
        compact.appendAscending(moved, zone: nil)
        reference["p00001"] = moved
        #expect(compact.count == reference.count)
        same(3)
    }

    @Test("two halves read at once and joined hold what one read would, zones and all; overlapping halves still hold each row once")
    func joinedHalves() throws {
        var rng = Seeded(state: 8)
        let zones = ["Asia/Tokyo", nil, "Europe/Rome", "America/Lima"]
        let records = (0..<2_000).map { record(String(format: "%c%04d", $0 < 1_000 ? 65 : 86, $0), &rng) }
        func zone(_ index: Int) -> String? { zones[index % zones.count] }
        var whole = CompactLocations()
        var lower = CompactLocations()
        var upper = CompactLocations()
        for (index, record) in records.enumerated() {
            whole.appendAscending(record, zone: zone(index))
            if index < 1_000 { lower.appendAscending(record, zone: zone(index)) }
            // The upper half meets its zones in another order: the join renumbers them.
            if index >= 1_000 { upper.appendAscending(record, zone: zone(3 - index % zones.count)) }
        }
        var upperSameZones = CompactLocations()
        for (index, record) in records.enumerated() where index >= 1_000 { upperSameZones.appendAscending(record, zone: zone(index)) }
        var joined = lower
        joined.appendAscending(contentsOf: upperSameZones)
        #expect(joined.count == whole.count)
        let body = { (c: CompactLocations) in String(buffer: LiveMapJSON.mapColumnsBody(c, order: c.sortedForSnapshot(), version: 1)) }
        #expect(body(joined) == body(whole))
        // Renumbered zones: each row keeps its own zone's name.
        var renumbered = lower
        renumbered.appendAscending(contentsOf: upper)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(body(renumbered).utf8)) as? [String: Any])
        let names = try #require(json["timeZones"] as? [String])
        let columns = try #require(json["columns"] as? [String: [Any]])
        for (position, id) in try #require(columns["objectId"] as? [String]).enumerated() {
            let index = Int(id.dropFirst())!
            let expected = index < 1_000 ? zone(index) : zone(3 - index % zones.count)
            #expect((columns["timeZone"]?[position] as? Int).map { names[$0] } == expected)
        }
        // Overlapping halves (not what a read makes): rows already held are replaced, not doubled.
        var overlapping = whole
        overlapping.appendAscending(contentsOf: upperSameZones)
        #expect(overlapping.count == whole.count)
        #expect(body(overlapping) == body(whole))
    }

    @Test("the map layout is the same bytes whether one worker writes it or several, each a stretch of the rows")
    func stretchesJoinExactly() throws {
        var rng = Seeded(state: 31)
        var compact = CompactLocations()
        let zones = ["Europe/Berlin", "Asia/Tokyo", nil, "America/Lima", "Africa/Cairo"]
        for number in 0..<1_003 { compact.upsert(record("s\(number)", &rng), zone: zones[number * 7 % zones.count]) }
        let order = compact.sortedForSnapshot()
        let one = LiveMapJSON.mapColumnsBody(compact, order: order, version: 2, teachers: ["k3"], stretchCount: 1)
        for count in [2, 3, 8, 1_003, 1_500] {
            #expect(LiveMapJSON.mapColumnsBody(compact, order: order, version: 2, teachers: ["k3"], stretchCount: count) == one, "\(count)")
        }
        let empty = CompactLocations()
        #expect(
            String(buffer: LiveMapJSON.mapColumnsBody(empty, order: [], version: 0, stretchCount: 3))
                == #"{"columns":{"firstName":[],"lastName":[],"latitude":[],"longitude":[],"mapString":[],"mediaURL":[],"objectId":[],"timeZone":[],"uniqueKey":[]},"count":0,"teachers":[],"timeZones":[],"version":0}"#
        )
    }

    @Test("a big class is sorted in two halves at once and merged: the list's order, ties broken by objectId")
    func sortedInHalves() throws {
        var rng = Seeded(state: 17)
        var compact = CompactLocations()
        var records: [String: StudentInformation] = [:]
        // Nine days' times and a few other forms: thousands of rows share each time.
        for _ in 0..<(CompactLocations.sortHalvesFrom + 1_001) {
            let record = record("r\(Int.random(in: 0..<1_000_000, using: &rng))", &rng)
            compact.upsert(record, zone: nil)
            records[record.objectId] = record
        }
        let body = LiveMapJSON.recordsBody(compact, order: compact.sortedForSnapshot(), version: 5)
        #expect(String(buffer: body) == expectedRecordsBody(records, version: 5))
    }

    @Test("each row keeps its time zone; the map layout numbers the zones in the order it first uses them")
    func zones() throws {
        var compact = CompactLocations()
        var rng = Seeded(state: 7)
        var a = record("a", &rng)
        a.updatedAt = "2026-01-01T00:00:00.000Z"
        var b = record("b", &rng)
        b.updatedAt = "2026-01-02T00:00:00.000Z"
        var c = record("c", &rng)
        c.updatedAt = "2026-01-03T00:00:00.000Z"
        compact.upsert(a, zone: "Europe/Berlin")
        compact.upsert(b, zone: nil)
        compact.upsert(c, zone: "Asia/Tokyo")
        // c, b, a: Tokyo is used first.
        let body = LiveMapJSON.mapColumnsBody(compact, order: compact.sortedForSnapshot(), version: 3)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any])
        #expect(json["timeZones"] as? [String] == ["Asia/Tokyo", "Europe/Berlin"])
        let column = try #require((json["columns"] as? [String: [Any]])?["timeZone"])
        #expect(column[0] as? Int == 0 && column[1] is NSNull && column[2] as? Int == 1)
        #expect((json["columns"] as? [String: [Any]])?["objectId"] as? [String] == ["c", "b", "a"])
        // A move takes the new point's zone.
        compact.upsert(c, zone: nil)
        let moved = LiveMapJSON.mapColumnsBody(compact, order: compact.sortedForSnapshot(), version: 4)
        let after = try #require(try JSONSerialization.jsonObject(with: Data(buffer: moved)) as? [String: Any])
        #expect(after["timeZones"] as? [String] == ["Europe/Berlin"])
    }

    @Test("a big class's map layout, written a column per core, holds each location's values in the same place of every column")
    func parallelColumns() throws {
        var rng = Seeded(state: 23)
        var compact = CompactLocations()
        var records: [String: StudentInformation] = [:]
        let zones = ["Europe/Berlin", "Asia/Tokyo", nil, "America/Lima"]
        var zoneOf: [String: String?] = [:]
        for number in 0..<(LiveMapJSON.parallelColumnsFrom + 500) {
            let record = record("o\(number)", &rng)
            let zone = zones[number % zones.count]
            compact.upsert(record, zone: zone)
            records[record.objectId] = record
            zoneOf[record.objectId] = .some(zone)
        }
        let order = compact.sortedForSnapshot()
        let body = LiveMapJSON.mapColumnsBody(compact, order: order, version: 9, teachers: ["k3"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any])
        let columns = try #require(json["columns"] as? [String: [Any]])
        let timeZones = try #require(json["timeZones"] as? [String])
        #expect(json["count"] as? Int == records.count && json["version"] as? Int == 9)
        let ids = try #require(columns["objectId"] as? [String])
        #expect(ids.count == records.count)
        var teacherRows: [Int] = []
        for (index, id) in ids.enumerated() {
            let record = try #require(records[id])
            #expect(columns["firstName"]?[index] as? String == record.firstName)
            #expect(columns["lastName"]?[index] as? String == record.lastName)
            #expect(columns["mapString"]?[index] as? String == record.mapString)
            #expect(columns["mediaURL"]?[index] as? String == record.mediaURL)
            #expect(columns["uniqueKey"]?[index] as? String == record.uniqueKey)
            #expect(columns["latitude"]?[index] as? Double == record.latitude)
            #expect(columns["longitude"]?[index] as? Double == record.longitude)
            let zone = columns["timeZone"]?[index]
            #expect((zone as? Int).map { timeZones[$0] } == zoneOf[id]!)
            if record.uniqueKey == "k3" { teacherRows.append(index) }
        }
        #expect(json["teachers"] as? [Int] == teacherRows)
    }

    @Test("a row takes 48 bytes besides its text, and a field longer than 65,535 bytes is cut at a whole character")
    func rowSizeAndOverlongField() throws {
        #expect(MemoryLayout<CompactLocations.Row>.stride == 48)
        var rng = Seeded(state: 11)
        var long = record("long", &rng)
        // Only a row written into the database by hand can be this long: 21,845 three-byte
        // characters and one more, which would end past the limit.
        long.mediaURL = "https://example.com/" + String(repeating: "€", count: 21_845)
        let short = record("short", &rng)
        var compact = CompactLocations()
        compact.upsert(long, zone: "Europe/Paris")
        compact.upsert(short, zone: nil)
        let kept = compact.read { $0.string(0, .mediaURL) }
        #expect(kept.utf8.count <= CompactLocations.longestField && kept.utf8.count > CompactLocations.longestField - 3)
        #expect(long.mediaURL.hasPrefix(kept) && kept.hasSuffix("€"))
        // The fields after it, the next row and the time zone are whole.
        #expect(compact.read { $0.record(0).updatedAt } == long.updatedAt)
        #expect(compact.read { $0.string(1, .mediaURL) } == short.mediaURL)
        #expect(compact.read { ($0.zone(0), $0.zone(1)) } == (0, CompactLocations.noZone))
    }

    @Test("a large snapshot keeps only its gzipped body until a reader cannot take gzip")
    func plainOnDemand() throws {
        var compact = CompactLocations()
        var rng = Seeded(state: 11)
        for index in 0..<20_000 { compact.upsert(record("row\(index)", &rng), zone: nil) }
        let encoded = LiveMapJSON.snapshot(compact, version: 9, layout: .records)
        let gzipped = try #require(encoded.gzipped)
        #expect(gzipped.readableBytes < EncodedSnapshot.keptPlainBytes)
        let plain = encoded.plain
        #expect(plain.readableBytes > EncodedSnapshot.keptPlainBytes)
        #expect(Gzip.decompress(gzipped) == plain)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: plain)) as? [String: Any])
        #expect(json["count"] as? Int == 20_000)
    }

    @Test("a time in the server's form is kept as a number and written back byte for byte; any other is kept as text")
    func timesAsNumbers() throws {
        var rng = Seeded(state: 2026)
        func written(_ milliseconds: Int64) -> String {
            var bytes = [UInt8](repeating: 0, count: 24)
            bytes.withUnsafeMutableBufferPointer { CompactTime.write(milliseconds, into: $0) }
            return String(decoding: bytes, as: UTF8.self)
        }
        // Known instants, the proleptic Gregorian calendar's first and last of four-digit years.
        for (milliseconds, text) in [
            (0, "1970-01-01T00:00:00.000Z"), (-1, "1969-12-31T23:59:59.999Z"), (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"), (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        ] as [(Int64, String)] {
            var text = text
            #expect(written(milliseconds) == text)
            #expect(text.withUTF8(CompactTime.milliseconds) == milliseconds)
        }
        // What the server writes now and then: its own dates, read back exactly.
        for _ in 0..<2000 {
            let date = Date(timeIntervalSince1970: Double(Int.random(in: 0..<4_102_444_800_000, using: &rng)) / 1000)
            var text = ParseDate.string(from: date)
            let read = text.withUTF8(CompactTime.milliseconds)
            let milliseconds = try #require(read, "\(text)")
            #expect(written(milliseconds) == text)
            let parsed = try #require(ParseDate.date(from: text))
            #expect(Int64((parsed.timeIntervalSince1970 * 1000).rounded()) == milliseconds)
        }
        // Any millisecond from 1900 to 9999 is written as Foundation reads it back.
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
        for _ in 0..<2000 {
            let milliseconds = Int64.random(in: -2_208_988_800_000...253_402_300_799_999, using: &rng)
            var text = written(milliseconds)
            #expect(text.withUTF8(CompactTime.milliseconds) == milliseconds)
            let parsed = try style.parse(text)
            #expect(Int64((parsed.timeIntervalSince1970 * 1000).rounded()) == milliseconds, "\(text)")
        }
        for other in [
            "", "2026-11-27T23:05:27Z", "2026-11-27T23:05:27.123+00:00", "2026-11-27t23:05:27.123z", "2026-02-29T00:00:00.000Z",
            "2026-13-01T00:00:00.000Z", "2026-00-10T00:00:00.000Z", "2026-11-00T00:00:00.000Z", "2026-11-27T24:00:00.000Z",
            "2026-11-27T23:60:00.000Z", "2026-11-27T23:05:60.000Z", "2026-11-27 23:05:27.123Z", "-026-11-27T23:05:27.123Z",
            "２０２６-11-27T23:05:27.123Z",
        ] {
            var text = other
            #expect(text.withUTF8(CompactTime.milliseconds) == nil, "\(other)")
            var compact = CompactLocations()
            var record = record("x", &rng)
            record.updatedAt = other
            compact.upsert(record, zone: nil)
            #expect(compact.read { $0.record(0).updatedAt } == other)
        }
    }
}
