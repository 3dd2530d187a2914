import Foundation

/// Postal codes (GeoNames postal code data), sorted by normalized key: where each one
/// lies and the gazetteer place that names it. The same key may exist in several
/// countries ("30301" is Atlanta and a town in Mexico).
struct PostcodeTable: Sendable {
    private(set) var keyStart: [Int32]
    let keyLength: [UInt8]
    private(set) var codeStart: [Int32]
    let codeLength: [UInt8]
    let latitude: [Float]
    let longitude: [Float]
    /// Place index (in the gazetteer) that names the postcode's area.
    let place: [Int32]

    /// Bytes of text the keys and codes take, copied one by one.
    var textByteCount: Int { keyLength.lazy.map(Int.init).reduce(0, +) + codeLength.lazy.map(Int.init).reduce(0, +) }

    var count: Int { keyStart.count }

    /// Reads `count` lines of "key<TAB>code<TAB>lat<TAB>lon<TAB>place".
    init(reader: inout GazetteerReader, count: Int, placeCount: Int) throws {
        var keyStart = [Int32]()
        var keyLength = [UInt8]()
        var codeStart = [Int32]()
        var codeLength = [UInt8]()
        var lat = [Float]()
        var lon = [Float]()
        var place = [Int32]()
        keyStart.reserveCapacity(count)
        keyLength.reserveCapacity(count)
        codeStart.reserveCapacity(count)
        codeLength.reserveCapacity(count)
        lat.reserveCapacity(count)
        lon.reserveCapacity(count)
        place.reserveCapacity(count)
        var f: [Range<Int>] = []
        for _ in 0..<count {
            guard let line = reader.nextLine() else { throw GeocodingError.invalidData("truncated postcodes") }
            reader.fields(line, into: &f)
            guard f.count >= 5 else { throw GeocodingError.invalidData("short postcode line at byte \(reader.position)") }
            let p = reader.int(f[4])
            guard p >= 0 && p < placeCount else { throw GeocodingError.invalidData("bad postcode place") }
            keyStart.append(Int32(f[0].lowerBound))
            keyLength.append(UInt8(clamping: f[0].count))
            codeStart.append(Int32(f[1].lowerBound))
            codeLength.append(UInt8(clamping: f[1].count))
            lat.append(Float(reader.double(f[2])))
            lon.append(Float(reader.double(f[3])))
            place.append(Int32(p))
        }
        self.keyStart = keyStart
        self.keyLength = keyLength
        self.codeStart = codeStart
        self.codeLength = codeLength
        self.latitude = lat
        self.longitude = lon
        self.place = place
    }

    /// The same table, its keys and codes copied into `text` (a code printed as its key is kept
    /// once).
    func keeping(in text: inout GazetteerText) -> PostcodeTable {
        var kept = self
        for row in 0..<count {
            kept.keyStart[row] = text.keep(start: keyStart[row], length: Int(keyLength[row]))
            kept.codeStart[row] = text.keep(start: codeStart[row], length: Int(codeLength[row]))
        }
        return kept
    }

    /// Rows whose key is `key` (or, with `prefix`, starts with it).
    func rows(_ key: String, prefix: Bool = false, in bytes: [UInt8]) -> Range<Int> {
        let q = Array(key.utf8)
        func compare(_ i: Int) -> Int {
            let start = Int(keyStart[i])
            let length = Int(keyLength[i])
            for k in 0..<min(length, q.count) where bytes[start + k] != q[k] {
                return bytes[start + k] < q[k] ? -1 : 1
            }
            if length == q.count { return 0 }
            if length < q.count { return -1 }
            return prefix ? 0 : 1
        }
        var lo = 0
        var hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if compare(mid) < 0 { lo = mid + 1 } else { hi = mid }
        }
        let first = lo
        hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if compare(mid) <= 0 { lo = mid + 1 } else { hi = mid }
        }
        return first..<lo
    }

    /// The code as written in the source ("SW1A", "02139").
    func code(_ i: Int, in bytes: [UInt8]) -> String {
        let s = Int(codeStart[i])
        return String(decoding: bytes[s..<(s + Int(codeLength[i]))], as: UTF8.self)
    }
}
