import Dispatch
import Foundation
import NIOCore

/// The map layout in binary (`GET …/api/locations/snapshot/map.bin`): the columns the web map
/// draws, as typed arrays a browser views in place instead of parsing JSON (a million
/// locations: 116 MB of JSON took Chromium 1.5 s to parse). The web app's reader is
/// `js/mapColumns.js`; docs/api/api.md describes the layout for other clients.
///
/// Little-endian throughout:
/// - bytes 0-3 `OTMC`, 4-7 the layout's version (1), 8-11 the header's length in bytes;
/// - the header from byte 12: JSON, `{"columns":{…},"count":N,"teachers":[…],"timeZones":[…],"version":V}`,
///   `teachers` and `timeZones` as in the JSON map layout;
/// - the columns, each starting at a multiple of 8 bytes from the start, where the header's
///   `columns` says: `latitude` and `longitude` `{"type":"float64","offset":O}` (N doubles);
///   `timeZone` `{"type":"uint16","offset":O}` (an index into `timeZones`, 65535 for none);
///   `firstName`, `lastName`, `mapString`, `mediaURL`, `objectId`, `uniqueKey`
///   `{"type":"text","lengths":L,"offset":O,"byteLength":B}`: N uint16 lengths in UTF-16
///   code units at L, and the N texts one after the other in UTF-8 at O (B bytes), so one
///   decoding of the whole text and the running sum of the lengths cut it into the N strings.
enum MapColumnsBinary {
    static let magic: StaticString = "OTMC"
    static let layoutVersion: UInt32 = 1
    static let mediaType = "application/vnd.onthemap.map-columns"

    /// The text columns, in the header's order.
    static let textColumns: [(name: String, field: CompactLocations.Field)] = [
        ("firstName", .firstName), ("lastName", .lastName), ("mapString", .mapString), ("mediaURL", .mediaURL),
        ("objectId", .objectId), ("uniqueKey", .uniqueKey),
    ]

    /// The body for the rows in `order` (see the type's documentation). `stretchCount`: how
    /// many workers write it (tests); by default one per core from
    /// `LiveMapJSON.parallelColumnsFrom` locations, else one.
    static func body(
        _ locations: CompactLocations, order: [Int32], version: Int64, teachers: Set<String> = [], stretchCount: Int? = nil
    ) -> ByteBuffer {
        let count = order.count
        let stretches = LiveMapJSON.stretches(of: count, stretchCount)
        let stretchCount = stretches.count
        // Per stretch: the UTF-8 of each text column; the lengths and the numbers are written
        // straight into their places in whole-column arrays.
        var texts = [[ByteBuffer]](repeating: [], count: stretchCount)
        var latitudes = [UInt64](repeating: 0, count: count)
        var longitudes = [UInt64](repeating: 0, count: count)
        // Text column c's lengths at c * count ..< (c + 1) * count.
        var lengths = [UInt16](repeating: 0, count: count * textColumns.count)
        var storeZones = [UInt32](repeating: CompactLocations.noZone, count: count)
        var teacherIndexes: [Int] = []
        locations.read { rows in
            latitudes.withUnsafeMutableBufferPointer { latitudes in
                longitudes.withUnsafeMutableBufferPointer { longitudes in
                    storeZones.withUnsafeMutableBufferPointer { storeZones in
                        lengths.withUnsafeMutableBufferPointer { lengths in
                            // Each worker writes its own stretch of these and its own element of
                            // `texts`, and only reads the rows, which stay put until
                            // `concurrentPerform` returns.
                            nonisolated(unsafe) let latitudes = latitudes
                            nonisolated(unsafe) let longitudes = longitudes
                            nonisolated(unsafe) let storeZones = storeZones
                            nonisolated(unsafe) let lengths = lengths
                            func write(_ stretch: Range<Int>) -> [ByteBuffer] {
                                var buffers = textColumns.map { _ in ByteBufferAllocator().buffer(capacity: 16 + stretch.count * 12) }
                                for index in stretch {
                                    let row = order[index]
                                    latitudes[index] = rows.latitude(row).bitPattern.littleEndian
                                    longitudes[index] = rows.longitude(row).bitPattern.littleEndian
                                    storeZones[index] = rows.zone(row)
                                    for (column, text) in textColumns.enumerated() {
                                        let bytes = rows.field(row, text.field)
                                        lengths[column * count + index] = utf16Length(bytes).littleEndian
                                        buffers[column].writeBytes(bytes)
                                    }
                                }
                                return buffers
                            }
                            if stretchCount == 1 {
                                texts[0] = write(stretches[0])
                            } else {
                                texts.withUnsafeMutableBufferPointer { out in
                                    nonisolated(unsafe) let out = out
                                    nonisolated(unsafe) let write = write
                                    DispatchQueue.concurrentPerform(iterations: stretchCount) { out[$0] = write(stretches[$0]) }
                                }
                            }
                        }
                    }
                }
            }
            teacherIndexes = LiveMapJSON.teacherIndexes(rows, order: order, teachers: teachers)
        }
        // Each zone numbered in the order the column first uses it, as in the JSON layout.
        let (zoneNumbers, zoneNames) = LiveMapJSON.snapshotZones(storeZones, in: locations)
        let zones = zoneNumbers.map(\.littleEndian)

        // Where each block goes, after the header.
        var blocks: [(offset: Int, bytes: Int)] = []
        var end = 0
        func place(_ bytes: Int) -> Int {
            let offset = end
            end = align(end + bytes)
            blocks.append((offset, bytes))
            return offset
        }
        let latitudeOffset = place(count * 8)
        let longitudeOffset = place(count * 8)
        let zoneOffset = place(count * 2)
        var textEntries: [(name: String, lengths: Int, offset: Int, bytes: Int)] = []
        for (column, text) in textColumns.enumerated() {
            let bytes = texts.reduce(0) { $0 + ($1.isEmpty ? 0 : $1[column].readableBytes) }
            let lengthsOffset = place(count * 2)
            textEntries.append((text.name, lengthsOffset, place(bytes), bytes))
        }
        // The header names offsets from the start of the body, so it is written once with the
        // blocks placed after a header of its own length, rounded up.
        func header(blocksFrom base: Int) -> String {
            var columnEntries = [
                #""latitude":{"offset":\#(base + latitudeOffset),"type":"float64"}"#,
                #""longitude":{"offset":\#(base + longitudeOffset),"type":"float64"}"#,
                #""timeZone":{"offset":\#(base + zoneOffset),"type":"uint16"}"#,
            ]
            for entry in textEntries {
                columnEntries.append(
                    #""\#(entry.name)":{"byteLength":\#(entry.bytes),"lengths":\#(base + entry.lengths),"offset":\#(base + entry.offset),"type":"text"}"#
                )
            }
            columnEntries.sort()
            var zoneList = ByteBufferAllocator().buffer(capacity: 64)
            LiveMapJSON.writeStrings(zoneNames, into: &zoneList)
            return #"{"columns":{\#(columnEntries.joined(separator: ","))},"count":\#(count),"#
                + #""teachers":[\#(teacherIndexes.map(String.init).joined(separator: ","))],"#
                + #""timeZones":[\#(String(buffer: zoneList))],"version":\#(version)}"#
        }
        // Offsets only grow the header by digits: a few tries settle it.
        var base = align(12 + header(blocksFrom: 0).utf8.count)
        var text = header(blocksFrom: base)
        while align(12 + text.utf8.count) != base {
            base = align(12 + text.utf8.count)
            text = header(blocksFrom: base)
        }

        var buffer = ByteBufferAllocator().buffer(capacity: base + end)
        buffer.writeStaticString(magic)
        buffer.writeInteger(layoutVersion, endianness: .little)
        buffer.writeInteger(UInt32(text.utf8.count), endianness: .little)
        buffer.writeString(text)
        pad(&buffer, to: base)
        func writeBlock(_ index: Int, _ write: (inout ByteBuffer) -> Void) {
            pad(&buffer, to: base + blocks[index].offset)
            write(&buffer)
        }
        writeBlock(0) { buffer in latitudes.withUnsafeBytes { _ = buffer.writeBytes($0) } }
        writeBlock(1) { buffer in longitudes.withUnsafeBytes { _ = buffer.writeBytes($0) } }
        writeBlock(2) { buffer in zones.withUnsafeBytes { _ = buffer.writeBytes($0) } }
        for column in textColumns.indices {
            writeBlock(3 + column * 2) { buffer in
                lengths[column * count..<(column + 1) * count].withUnsafeBytes { _ = buffer.writeBytes($0) }
            }
            writeBlock(4 + column * 2) { buffer in
                for part in texts where !part.isEmpty { buffer.writeImmutableBuffer(part[column]) }
            }
        }
        pad(&buffer, to: base + end)
        return buffer
    }

    /// The text's length in UTF-16 code units (what a browser's string counts): one per
    /// character, two for one beyond the Basic Multilingual Plane. The store's texts are
    /// valid UTF-8 (they came in as Swift strings).
    @inline(__always)
    static func utf16Length(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt16 {
        var units = 0
        for byte in bytes {
            if byte & 0xC0 != 0x80 { units += 1 }
            if byte >= 0xF0 { units += 1 }
        }
        return UInt16(truncatingIfNeeded: units)
    }

    private static func align(_ offset: Int) -> Int { (offset + 7) & ~7 }

    private static func pad(_ buffer: inout ByteBuffer, to offset: Int) {
        let missing = offset - buffer.writerIndex
        if missing > 0 { buffer.writeRepeatingByte(0, count: missing) }
    }
}
