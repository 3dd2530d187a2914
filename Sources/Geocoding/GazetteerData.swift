import Foundation

/// A country as loaded from the gazetteer file.
struct CountryRecord: Sendable {
    let code: String
    let iso3: String
    let name: String
    let latitude: Double
    let longitude: Double
    let span: MapSpan
    let population: Int
    /// Place index of the capital, or -1.
    let capital: Int32
}

/// A first-level region (state, province). An empty `name` marks the bucket of places
/// whose region is unknown; it is never a result.
struct RegionRecord: Sendable {
    let country: Int32
    let code: String
    let abbreviation: String
    let name: String
    let latitude: Double
    let longitude: Double
    let span: MapSpan
    let population: Int
}

/// What a qualifier ("MA", "Bavaria", "UK") can stand for.
struct QualifierRef: Sendable, Hashable {
    enum Target: Sendable, Hashable { case country, region }
    let target: Target
    let index: Int32
    /// True for a full name ("Massachusetts"), false for a code ("MA").
    let byName: Bool
}

/// Byte-level reader of the gazetteer text format (see Scripts/build-gazetteer.py).
struct GazetteerReader {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    var atEnd: Bool { position >= bytes.count }

    /// Range of the next line without its newline; advances past the newline.
    mutating func nextLine() -> Range<Int>? {
        guard position < bytes.count else { return nil }
        let start = position
        let end = bytes.withUnsafeBufferPointer { buf -> Int in
            var i = start
            while i < buf.count && buf[i] != 0x0A { i += 1 }
            return i
        }
        position = end + 1
        return start..<end
    }

    /// Splits a line range at tabs.
    func fields(_ line: Range<Int>, into out: inout [Range<Int>]) {
        out.removeAll(keepingCapacity: true)
        bytes.withUnsafeBufferPointer { buf in
            var start = line.lowerBound
            var i = start
            while i < line.upperBound {
                if buf[i] == 0x09 {
                    out.append(start..<i)
                    start = i + 1
                }
                i += 1
            }
            out.append(start..<line.upperBound)
        }
    }

    func string(_ r: Range<Int>) -> String {
        String(decoding: bytes[r], as: UTF8.self)
    }

    func int(_ r: Range<Int>) -> Int {
        Self.parseInt(bytes, r)
    }

    static func parseInt(_ bytes: [UInt8], _ r: Range<Int>) -> Int {
        let number = parseNumber(bytes, r, fraction: false)
        return number.negative ? -number.mantissa : number.mantissa
    }

    func double(_ r: Range<Int>) -> Double {
        Self.parseDouble(bytes, r)
    }

    /// Parses "-12.345" (no exponent), which is all the file contains.
    static func parseDouble(_ bytes: [UInt8], _ r: Range<Int>) -> Double {
        let number = parseNumber(bytes, r, fraction: true)
        let value = Double(number.mantissa) / Double(number.scale)
        return number.negative ? -value : value
    }

    /// A decimal number's sign, its digits as one integer, and the power of ten its fraction
    /// takes ("-12.345": true, 12345, 1000). Stops at the first byte that is not a digit (a dot
    /// is read only with `fraction`).
    private static func parseNumber(_ bytes: [UInt8], _ r: Range<Int>, fraction: Bool) -> (negative: Bool, mantissa: Int, scale: Int) {
        var i = r.lowerBound
        let negative = i < r.upperBound && bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var mantissa = 0
        var scale = 1
        var seenDot = false
        while i < r.upperBound {
            let b = bytes[i]
            if fraction && b == UInt8(ascii: ".") {
                seenDot = true
            } else {
                let d = Int(b) - 48
                if d < 0 || d > 9 { break }
                mantissa = mantissa * 10 + d
                if seenDot { scale *= 10 }
            }
            i += 1
        }
        return (negative, mantissa, scale)
    }

    /// Reads "@name N" and returns N.
    mutating func section(_ name: String) throws -> Int {
        while let line = nextLine() {
            if line.isEmpty || bytes[line.lowerBound] == UInt8(ascii: "#") { continue }
            let text = string(line)
            let parts = text.split(separator: " ")
            guard parts.count == 2, parts[0] == "@" + name, let n = Int(parts[1]) else {
                throw GeocodingError.invalidData("expected section @\(name), found \(text.prefix(40))")
            }
            return n
        }
        throw GeocodingError.invalidData("missing section @\(name)")
    }
}

/// The part of the gazetteer file that lookups read after loading (the index's keys, the
/// places' names, the postal codes), copied back to back out of the whole file so that the
/// rest of it (numbers, postings, already parsed) need not stay in memory.
struct GazetteerText {
    private let source: [UInt8]
    private(set) var bytes: [UInt8] = []
    /// The two source ranges copied last, and where their copies start.
    private var last: (range: Range<Int>, start: Int32)?
    private var beforeLast: (range: Range<Int>, start: Int32)?

    init(from source: [UInt8], capacity: Int) {
        self.source = source
        bytes.reserveCapacity(capacity)
    }

    /// Copies `length` bytes of the source from `start`; where they start in `bytes`. The same
    /// text as one of the two copied just before shares its copy (a postal code printed as its
    /// key, a key repeated for several countries).
    mutating func keep(start: Int32, length: Int) -> Int32 {
        let range = Int(start)..<Int(start) + length
        if let last, source[last.range].elementsEqual(source[range]) { return last.start }
        if let beforeLast, source[beforeLast.range].elementsEqual(source[range]) { return beforeLast.start }
        let kept = Int32(bytes.count)
        bytes.append(contentsOf: source[range])
        (last, beforeLast) = ((range, kept), last)
        return kept
    }

    /// `keep` for each range in turn.
    mutating func keep(starts: [Int32], lengths: [some BinaryInteger]) -> [Int32] {
        zip(starts, lengths).map { keep(start: $0, length: Int($1)) }
    }
}
