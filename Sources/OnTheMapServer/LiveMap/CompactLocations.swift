import Foundation
import OnTheMapModels

/// A class's visible locations as the live map keeps them in memory (`LiveLocations`): every
/// row's text back to back in one UTF-8 buffer, its numbers in one flat array, and an index of
/// row numbers by objectId; not a dictionary of `StudentInformation` (a hashed key and up to
/// ten separately allocated strings each). At a million locations that is about a quarter of
/// the memory. `createdAt` is not kept (nothing the live map sends carries it), `updatedAt` is
/// kept as a number when it is in the form the server writes (`CompactTime`); each row's time
/// zone is found once, when the row comes in, for the map layout's `timeZone` column.
///
/// A changed row's text is written again at the end; the space of changed and removed rows
/// is reclaimed once it outgrows the live rows'.
struct CompactLocations: Sendable {
    /// The text fields of a row, back to back in this order. `updatedAtText` is empty when
    /// the row's `updatedAt` is kept as a number (read it with `Reader.withUpdatedAt`).
    enum Field: Int, Sendable {
        case objectId, uniqueKey, firstName, lastName, mapString, mediaURL, updatedAtText
    }

    struct Row: Sendable {
        /// Where the row's text starts in `text`; -1 once removed.
        var start: Int
        /// Lanes 0-6: each field's length in bytes, in `Field` order; lane 7: the row's time
        /// zone, an index into `zoneNames` (`UInt16.max` for none).
        var lengths: Lanes
        /// The point, exactly as read (the answers write it back digit for digit).
        var latitude, longitude: Double
        /// `updatedAt` in milliseconds since 1970, or `timeAsText` when it is kept as text.
        var updatedAt: Int64
    }

    /// A row's `updatedAt` not in the server's form (written into the database by hand): its
    /// text is kept as it is.
    static let timeAsText = Int64.min

    /// Eight 16-bit lanes in two halves of 8-byte alignment (a `SIMD8<UInt16>` is aligned to
    /// 16 bytes and would make a row 48 bytes instead of 40).
    struct Lanes: Sendable {
        private var low = SIMD4<UInt16>()
        private var high = SIMD4<UInt16>()

        subscript(lane: Int) -> UInt16 {
            get { lane < 4 ? low[lane] : high[lane - 4] }
            set {
                if lane < 4 { low[lane] = newValue } else { high[lane - 4] = newValue }
            }
        }

        /// Lanes 0-6 added up: the row's text in bytes.
        var textByteCount: Int {
            Int(SIMD4<UInt32>(truncatingIfNeeded: low).wrappedSum()) + Int(SIMD4<UInt32>(truncatingIfNeeded: high).wrappedSum())
                - Int(high[3])
        }
    }

    static let noZone = UInt32.max
    /// The longest field kept, in bytes: the server takes at most 2,048 characters (8 KB) in
    /// any field, so only a row written into the database by hand can be longer; its field is
    /// cut at the last whole character that fits.
    static let longestField = Int(UInt16.max)
    private static let emptySlot: Int32 = -1
    private static let removedSlot: Int32 = -2

    private var text: [UInt8] = []
    private var rows: [Row] = []
    /// Open addressing (linear probing) over row numbers, keyed by the objectId's bytes; a
    /// power of two long, at most 70% used counting removed slots.
    private var slots: [Int32] = Array(repeating: CompactLocations.emptySlot, count: 16)
    private var removedSlots = 0
    /// Rows were appended by `appendAscending` without entering `slots`.
    private var indexStale = false
    /// The row `appendAscending` wrote last, while nothing else has changed since.
    private var ascendingTail: Int?
    private var deadBytes = 0
    private var deadRows = 0
    /// Live rows.
    private(set) var count = 0
    /// The time zones rows are in, each once, in the order first seen.
    private(set) var zoneNames: [String] = []
    private var zoneIds: [String: UInt16] = [:]

    init() {}

    /// `records` in their order, each zone asked once per distinct point.
    init(_ records: some Sequence<StudentInformation>, timeZone: (Double, Double) -> String?) {
        var zoneOfPoint: [LiveMapJSON.PointKey: String?] = [:]
        for record in records {
            let point = LiveMapJSON.PointKey(latitude: record.latitude.bitPattern, longitude: record.longitude.bitPattern)
            let zone: String?
            if let known = zoneOfPoint[point] {
                zone = known
            } else {
                zone = timeZone(record.latitude, record.longitude)
                zoneOfPoint[point] = .some(zone)
            }
            upsert(record, zone: zone)
        }
    }

    // MARK: Changes

    /// Adds the location, or replaces the one with its objectId.
    mutating func upsert(_ record: StudentInformation, zone: String?) {
        refreshIndex()
        let row = appendText(record, zone: zone)
        let (slot, found) = find(record.objectId)
        if found {
            let existing = Int(slots[slot])
            deadBytes += Self.byteCount(rows[existing])
            rows[existing] = row
        } else {
            if slots[slot] == Self.removedSlot { removedSlots -= 1 }
            slots[slot] = Int32(rows.count)
            rows.append(row)
            count += 1
            if (count + removedSlots) * 10 > slots.count * 7 { rebuildIndex() }
        }
        compactIfWasteful()
    }

    /// Adds a location read in objectId order (a snapshot's pages): when its objectId is above
    /// the last one appended so, it is not looked up, and the index is built once, at the next
    /// change. Otherwise it is an `upsert`.
    mutating func appendAscending(_ record: StudentInformation, zone: String?) {
        if !rows.isEmpty {
            guard let tail = ascendingTail, Self.isAbove(record.objectId, read { $0.field(Int32(tail), .objectId) }) else {
                return upsert(record, zone: zone)
            }
        }
        rows.append(appendText(record, zone: zone))
        count += 1
        ascendingTail = rows.count - 1
        indexStale = true
    }

    /// Adds `other`'s rows after these, as `appendAscending` would add each (they are copied
    /// as they are held, not taken apart and put together again).
    mutating func appendAscending(contentsOf other: CompactLocations) {
        let zoneMap = other.zoneNames.map { zoneId($0) }
        if appendWhole(other, zoneMap: zoneMap) { return }
        other.read { reader in
            for number in reader.rows.indices where reader.rows[number].start >= 0 {
                let objectId = reader.string(Int32(number), .objectId)
                if !rows.isEmpty {
                    guard let tail = ascendingTail, Self.isAbove(objectId, read { $0.field(Int32(tail), .objectId) }) else {
                        upsert(
                            reader.record(Int32(number)),
                            zone: reader.zone(Int32(number)) == Self.noZone ? nil : other.zoneNames[Int(reader.zone(Int32(number)))])
                        continue
                    }
                }
                var row = reader.rows[number]
                let length = Self.byteCount(row)
                let start = text.count
                text.append(contentsOf: UnsafeBufferPointer(rebasing: reader.text[row.start..<row.start + length]))
                row.start = start
                if row.lengths[7] != UInt16.max { row.lengths[7] = zoneMap[Int(row.lengths[7])] }
                rows.append(row)
                count += 1
                ascendingTail = rows.count - 1
                indexStale = true
            }
        }
    }

    /// Appends all of `other` in two copies when it was itself only appended to in ascending
    /// order (every row live, in objectId order) and its first objectId is above the last one
    /// appended here; false, changing nothing, otherwise.
    private mutating func appendWhole(_ other: CompactLocations, zoneMap: [UInt16]) -> Bool {
        guard other.count > 0, other.ascendingTail != nil || other.rows.count == 1, other.rows.count == other.count else { return false }
        if !rows.isEmpty {
            guard let tail = ascendingTail else { return false }
            let above = other.read { first in
                read { last in
                    Self.isAbove(first.field(0, .objectId), last.field(Int32(tail), .objectId))
                }
            }
            guard above else { return false }
        }
        let shift = text.count
        text.append(contentsOf: other.text)
        rows.reserveCapacity(rows.count + other.rows.count)
        for var row in other.rows {
            row.start += shift
            if row.lengths[7] != UInt16.max { row.lengths[7] = zoneMap[Int(row.lengths[7])] }
            rows.append(row)
        }
        count += other.count
        ascendingTail = rows.count - 1
        indexStale = true
        return true
    }

    private static func isAbove(_ objectId: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
        objectId.lexicographicallyPrecedes(other) == false && !objectId.elementsEqual(other)
    }

    private static func isAbove(_ objectId: String, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
        var objectId = objectId
        return objectId.withUTF8 { isAbove($0, other) }
    }

    private mutating func refreshIndex() {
        ascendingTail = nil
        if indexStale {
            indexStale = false
            rebuildIndex()
        }
    }

    /// Writes the record's text at the end of `text`; the row that points at it.
    private mutating func appendText(_ record: StudentInformation, zone: String?) -> Row {
        var lengths = Lanes()
        let start = text.count
        var end = start
        var updatedAt = record.updatedAt
        let milliseconds = updatedAt.withUTF8(CompactTime.milliseconds)
        for (lane, value) in [
            record.objectId, record.uniqueKey, record.firstName, record.lastName, record.mapString, record.mediaURL,
            milliseconds == nil ? record.updatedAt : "",
        ].enumerated() {
            var value = value
            value.withUTF8 { bytes in
                var kept = bytes.count
                if kept > Self.longestField {
                    kept = Self.longestField
                    while kept > 0 && bytes[kept] & 0xC0 == 0x80 { kept -= 1 }  // not inside a character
                }
                text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<kept]))
            }
            lengths[lane] = UInt16(text.count - end)
            end = text.count
        }
        lengths[7] = zoneId(zone)
        return Row(
            start: start, lengths: lengths, latitude: record.latitude, longitude: record.longitude,
            updatedAt: milliseconds ?? Self.timeAsText)
    }

    /// Removes the location with this objectId, if there is one.
    mutating func remove(_ objectId: String) {
        refreshIndex()
        let (slot, found) = find(objectId)
        guard found else { return }
        let row = Int(slots[slot])
        deadBytes += Self.byteCount(rows[row])
        rows[row].start = -1
        deadRows += 1
        slots[slot] = Self.removedSlot
        removedSlots += 1
        count -= 1
        compactIfWasteful()
    }

    mutating func removeAll() { self = CompactLocations() }

    private mutating func zoneId(_ zone: String?) -> UInt16 {
        // The IANA database has about 600 zones; were there ever 65,535, the rest go without.
        guard let zone, zoneNames.count < Int(UInt16.max) || zoneIds[zone] != nil else { return UInt16.max }
        if let known = zoneIds[zone] { return known }
        let id = UInt16(zoneNames.count)
        zoneNames.append(zone)
        zoneIds[zone] = id
        return id
    }

    private static func byteCount(_ row: Row) -> Int {
        row.lengths.textByteCount
    }

    // MARK: Index

    private func hash(_ key: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(key))
        return hasher.finalize()
    }

    /// The slot holding `objectId`'s row, or the slot it would take (the first removed one on
    /// its probe path, else the empty one that ends the path).
    private func find(_ objectId: String) -> (slot: Int, found: Bool) {
        var objectId = objectId
        return objectId.withUTF8 { key in
            text.withUnsafeBufferPointer { text in
                let mask = slots.count - 1
                var slot = hash(key) & mask
                var firstRemoved: Int? = nil
                while true {
                    let entry = slots[slot]
                    if entry == Self.emptySlot { return (firstRemoved ?? slot, false) }
                    if entry == Self.removedSlot {
                        if firstRemoved == nil { firstRemoved = slot }
                    } else {
                        let row = rows[Int(entry)]
                        let length = Int(row.lengths[0])
                        if length == key.count, length == 0 || memcmp(text.baseAddress! + row.start, key.baseAddress!, length) == 0 {
                            return (slot, true)
                        }
                    }
                    slot = (slot + 1) & mask
                }
            }
        }
    }

    /// Every live row placed again in a table sized for them (removed slots dropped).
    private mutating func rebuildIndex() {
        var size = 16
        while count * 10 > size * 5 { size *= 2 }
        slots = Array(repeating: Self.emptySlot, count: size)
        removedSlots = 0
        let mask = size - 1
        text.withUnsafeBufferPointer { text in
            for (index, row) in rows.enumerated() where row.start >= 0 {
                let key = UnsafeBufferPointer(rebasing: text[row.start..<row.start + Int(row.lengths[0])])
                var slot = hash(key) & mask
                while slots[slot] != Self.emptySlot { slot = (slot + 1) & mask }
                slots[slot] = Int32(index)
            }
        }
    }

    /// Writes the live rows again, back to back, once the dead ones take more room than they.
    private mutating func compactIfWasteful() {
        guard deadBytes > 4096, deadBytes > text.count / 2 || deadRows > rows.count / 2 else { return }
        var newText: [UInt8] = []
        newText.reserveCapacity(text.count - deadBytes)
        var newRows: [Row] = []
        newRows.reserveCapacity(count)
        for var row in rows where row.start >= 0 {
            let length = Self.byteCount(row)
            newText.append(contentsOf: text[row.start..<row.start + length])
            row.start = newText.count - length
            newRows.append(row)
        }
        text = newText
        rows = newRows
        deadBytes = 0
        deadRows = 0
        rebuildIndex()
    }

    // MARK: Reading

    /// The live rows, most recently updated first, objectId breaking ties (descending): the
    /// list's order. Both are compared as UTF-8 bytes, which is the order of their Unicode
    /// scalars (the server writes both in ASCII).
    func sortedForSnapshot() -> [Int32] {
        var order: [Int32] = []
        order.reserveCapacity(count)
        for (index, row) in rows.enumerated() where row.start >= 0 { order.append(Int32(index)) }
        return read { reader in
            // Each row's time, its first 24 bytes (all of a Parse date) as three numbers that
            // compare as the bytes do, so most comparisons need not find and compare the text.
            var times = [TimePrefix](repeating: TimePrefix(), count: rows.count)
            for row in order { times[Int(row)] = reader.withUpdatedAt(row, TimePrefix.init) }
            return times.withUnsafeBufferPointer { times in
                let before = { (a: Int32, b: Int32) -> Bool in
                    let (x, y) = (times[Int(a)], times[Int(b)])
                    if x != y { return x > y }
                    let byTime = reader.compareUpdatedAt(a, b)
                    return byTime != 0 ? byTime > 0 : reader.compare(a, b, .objectId) > 0
                }
                guard order.count >= Self.sortHalvesFrom else {
                    order.sort(by: before)
                    return order
                }
                // A big class: each half sorted on its own core, then the two merged.
                let middle = order.count / 2
                order.withUnsafeMutableBufferPointer { order in
                    // Each worker sorts its own half and only reads the rows and times, which stay
                    // put until `concurrentPerform` returns.
                    nonisolated(unsafe) let order = order
                    nonisolated(unsafe) let before = before
                    DispatchQueue.concurrentPerform(iterations: 2) { half in
                        var part = UnsafeMutableBufferPointer(rebasing: half == 0 ? order[..<middle] : order[middle...])
                        part.sort(by: before)
                    }
                }
                var merged: [Int32] = []
                merged.reserveCapacity(order.count)
                var (left, right) = (0, middle)
                while left < middle && right < order.count {
                    if before(order[right], order[left]) {
                        merged.append(order[right])
                        right += 1
                    } else {
                        merged.append(order[left])
                        left += 1
                    }
                }
                merged.append(contentsOf: order[left..<middle])
                merged.append(contentsOf: order[right...])
                return merged
            }
        }
    }

    /// From how many rows `sortedForSnapshot` sorts two halves at once.
    static let sortHalvesFrom = 20_000

    /// The first 24 bytes of a text, big-endian, zero after its end: two prefixes compare as
    /// the texts' bytes do as far as they reach, and equal prefixes need the whole texts.
    struct TimePrefix: Comparable {
        var high: UInt64 = 0
        var middle: UInt64 = 0
        var low: UInt64 = 0

        init() {}

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            func word(_ from: Int) -> UInt64 {
                var value: UInt64 = 0
                for index in from..<from + 8 { value = value << 8 | UInt64(index < bytes.count ? bytes[index] : 0) }
                return value
            }
            high = word(0)
            middle = word(8)
            low = word(16)
        }

        static func < (a: TimePrefix, b: TimePrefix) -> Bool {
            (a.high, a.middle, a.low) < (b.high, b.middle, b.low)
        }
    }

    /// The rows in the order they came in (each replaced row where its first version was).
    func insertionOrder() -> [Int32] {
        rows.indices.filter { rows[$0].start >= 0 }.map { Int32($0) }
    }

    func read<Result>(_ body: (Reader) throws -> Result) rethrows -> Result {
        try text.withUnsafeBufferPointer { text in
            try rows.withUnsafeBufferPointer { rows in try body(Reader(text: text, rows: rows)) }
        }
    }

    /// Rows by number, valid only inside `read`.
    struct Reader {
        let text: UnsafeBufferPointer<UInt8>
        let rows: UnsafeBufferPointer<Row>

        @inline(__always)
        func field(_ row: Int32, _ field: Field) -> UnsafeBufferPointer<UInt8> {
            let r = rows[Int(row)]
            var start = r.start
            for lane in 0..<field.rawValue { start += Int(r.lengths[lane]) }
            return UnsafeBufferPointer(rebasing: text[start..<start + Int(r.lengths[field.rawValue])])
        }

        func string(_ row: Int32, _ field: Field) -> String { String(decoding: self.field(row, field), as: UTF8.self) }

        /// The row as a record (without `createdAt`, which is not kept).
        func record(_ row: Int32) -> StudentInformation {
            StudentInformation(
                objectId: string(row, .objectId), uniqueKey: string(row, .uniqueKey), firstName: string(row, .firstName),
                lastName: string(row, .lastName), mapString: string(row, .mapString), mediaURL: string(row, .mediaURL),
                latitude: latitude(row), longitude: longitude(row), createdAt: "",
                updatedAt: withUpdatedAt(row) { String(decoding: $0, as: UTF8.self) })
        }

        /// The row's `updatedAt` as text: written out from its number, or as kept.
        @inline(__always)
        func withUpdatedAt<Result>(_ row: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
            let time = rows[Int(row)].updatedAt
            guard time != CompactLocations.timeAsText else { return try body(field(row, .updatedAtText)) }
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: CompactTime.length) { out in
                CompactTime.write(time, into: out)
                return try body(UnsafeBufferPointer(out))
            }
        }
        func latitude(_ row: Int32) -> Double { rows[Int(row)].latitude }
        func longitude(_ row: Int32) -> Double { rows[Int(row)].longitude }
        /// An index into `zoneNames`, or `noZone`.
        func zone(_ row: Int32) -> UInt32 {
            let zone = rows[Int(row)].lengths[7]
            return zone == UInt16.max ? CompactLocations.noZone : UInt32(zone)
        }

        /// Negative, zero or positive as `a`'s field sorts before, with or after `b`'s (bytewise).
        func compare(_ a: Int32, _ b: Int32, _ name: Field) -> Int {
            Self.compare(field(a, name), field(b, name))
        }

        /// `compare` for the rows' `updatedAt` texts.
        func compareUpdatedAt(_ a: Int32, _ b: Int32) -> Int {
            withUpdatedAt(a) { x in withUpdatedAt(b) { y in Self.compare(x, y) } }
        }

        private static func compare(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
            let shared = min(x.count, y.count)
            if shared > 0 {
                let order = memcmp(x.baseAddress!, y.baseAddress!, shared)
                if order != 0 { return Int(order) }
            }
            return x.count - y.count
        }
    }
}
