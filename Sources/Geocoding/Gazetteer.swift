import Foundation

/// Offline geocoder over GeoNames data (every populated place of at least 1,000 people
/// with its names in every script, first-level regions, countries and the postal codes of
/// about 100 countries), loaded once from a compact text file.
///
/// Immutable after `init`: every stored property is a `let` of a value type, so one
/// instance can serve any number of concurrent requests. Lookups are synchronous
/// (`lookup`, `suggestions`, `nearest`); the `Geocoder` methods wrap them.
public final class Gazetteer: Geocoder, Sendable {
    /// The text the gazetteer reads after loading: the index's keys, the places' names and the
    /// postal codes, back to back (`GazetteerText`); everything else in the file is parsed into
    /// the arrays below and not kept (about a third of the file).
    let bytes: [UInt8]
    let countries: [CountryRecord]
    let regions: [RegionRecord]

    // Places, structure of arrays, sorted by population (largest first).
    let placeNameStart: [Int32]
    let placeNameLength: [UInt16]
    let placeLatitude: [Float]
    let placeLongitude: [Float]
    let placeRegion: [Int32]
    let placePopulation: [Int32]
    let placeIsCapital: [Bool]

    // Name index: keys sorted by bytes; postings are entry ids (places, then regions,
    // then countries), negative (-(id + 1)) for an alternate name.
    let keyStart: [Int32]
    let keyLength: [UInt16]
    /// First 8 bytes of each key, big-endian, zero-padded: the typo walk reads these in key
    /// order instead of chasing each key into the 35 MB file (a cache miss per key).
    let keyHead: [UInt64]
    let postingStart: [Int32]
    let postings: [Int32]
    /// Key indices (ascending) whose entries include a big place, a region or a country:
    /// what type-ahead scans when a prefix is too short to scan everything.
    let majorKeys: [Int32]
    /// `keyHead` of each of `majorKeys`, contiguous for the same reason.
    let majorKeyHead: [UInt64]

    let qualifiers: [String: [QualifierRef]]
    /// Country and large-city names in many languages (CLDR): read in queries, shown to readers.
    let placeNames: PlaceNames
    /// Each place's IANA time zone (Resources/timezones.txt); empty without that file.
    let timeZones: PlaceTimeZones
    /// Places at least this big are "major" for type-ahead on short prefixes.
    static let majorPopulation: Int32 = 15_000

    // Reverse lookup grid of 1 x 1 degree cells: each cell's places, south to north, and their
    // latitudes in the same order (a search finds the point's latitude by bisection).
    let cellStart: [Int32]
    let cellPlaces: [Int32]
    let cellLatitudes: [Float]
    /// Per cell, the zone every point of it is in when that needs no search (see
    /// `PlaceTimeZones.uniformCellZones`), else `PlaceTimeZones.mixed`.
    let cellZones: [Int32]

    /// Postal codes; entries after the countries (ids P+R+C...).
    let postcodes: PostcodeTable

    /// Number of populated places.
    public var placeCount: Int { placeLatitude.count }
    /// Number of first-level regions with a name.
    public var regionCount: Int { regions.filter { !$0.name.isEmpty }.count }
    /// Number of countries.
    public var countryCount: Int { countries.count }
    /// Number of distinct normalized names in the index.
    public var keyCount: Int { keyStart.count }
    /// Number of postal codes.
    public var postcodeCount: Int { postcodes.count }

    /// Loads the gazetteer shipped with this module.
    public static func bundled() throws -> Gazetteer {
        guard let url = bundledURL else {
            throw GeocodingError.invalidData("gazetteer resource not found in Bundle.module")
        }
        return try Gazetteer(contentsOf: url)
    }

    /// URL of the bundled data file.
    public static var bundledURL: URL? {
        Bundle.module.url(forResource: "gazetteer", withExtension: "txt", subdirectory: "Resources")
            ?? Bundle.module.url(forResource: "gazetteer", withExtension: "txt")
    }

    /// Loads a gazetteer file written by Scripts/build-gazetteer.py.
    public init(contentsOf url: URL) throws {
        let data = try Data(contentsOf: url, options: .mappedIfSafe)
        let bytes = [UInt8](data)
        var reader = GazetteerReader(bytes: bytes)
        guard let first = reader.nextLine(), reader.string(first).hasPrefix("#OTMGAZ 2") else {
            throw GeocodingError.invalidData("not a gazetteer file (missing #OTMGAZ 2)")
        }
        var f: [Range<Int>] = []
        f.reserveCapacity(16)

        func require(_ count: Int, _ what: String) throws {
            guard f.count >= count else {
                throw GeocodingError.invalidData("short \(what) line at byte \(reader.position)")
            }
        }

        // Countries
        let countryCount = try reader.section("countries")
        var countries: [CountryRecord] = []
        countries.reserveCapacity(countryCount)
        for _ in 0..<countryCount {
            guard let line = reader.nextLine() else { throw GeocodingError.invalidData("truncated countries") }
            reader.fields(line, into: &f)
            try require(9, "country")
            countries.append(
                CountryRecord(
                    code: reader.string(f[0]), iso3: reader.string(f[1]), name: reader.string(f[2]),
                    latitude: reader.double(f[3]), longitude: reader.double(f[4]),
                    span: MapSpan(latitudeDelta: min(reader.double(f[5]), 180), longitudeDelta: min(reader.double(f[6]), 360)),
                    population: reader.int(f[7]), capital: Int32(reader.int(f[8]))))
        }

        // Regions
        let regionCount = try reader.section("regions")
        var regions: [RegionRecord] = []
        regions.reserveCapacity(regionCount)
        for _ in 0..<regionCount {
            guard let line = reader.nextLine() else { throw GeocodingError.invalidData("truncated regions") }
            reader.fields(line, into: &f)
            try require(9, "region")
            let country = reader.int(f[0])
            guard country >= 0 && country < countries.count else { throw GeocodingError.invalidData("bad region country") }
            regions.append(
                RegionRecord(
                    country: Int32(country), code: reader.string(f[1]), abbreviation: reader.string(f[2]),
                    name: reader.string(f[3]), latitude: reader.double(f[4]), longitude: reader.double(f[5]),
                    span: MapSpan(latitudeDelta: min(reader.double(f[6]), 180), longitudeDelta: min(reader.double(f[7]), 360)),
                    population: reader.int(f[8])))
        }

        // Places
        let placeCount = try reader.section("places")
        var nameStart = [Int32]()
        var nameLength = [UInt16]()
        var lat = [Float]()
        var lon = [Float]()
        var region = [Int32]()
        var population = [Int32]()
        nameStart.reserveCapacity(placeCount)
        nameLength.reserveCapacity(placeCount)
        lat.reserveCapacity(placeCount)
        lon.reserveCapacity(placeCount)
        region.reserveCapacity(placeCount)
        population.reserveCapacity(placeCount)
        for _ in 0..<placeCount {
            guard let line = reader.nextLine() else { throw GeocodingError.invalidData("truncated places") }
            reader.fields(line, into: &f)
            try require(5, "place")
            nameStart.append(Int32(f[0].lowerBound))
            nameLength.append(UInt16(clamping: f[0].count))
            lat.append(Float(reader.double(f[1])))
            lon.append(Float(reader.double(f[2])))
            let r = reader.int(f[3])
            guard r >= 0 && r < regions.count else { throw GeocodingError.invalidData("bad place region") }
            region.append(Int32(r))
            population.append(Int32(clamping: reader.int(f[4])))
        }
        var isCapital = [Bool](repeating: false, count: placeCount)
        for c in countries where c.capital >= 0 && Int(c.capital) < placeCount {
            isCapital[Int(c.capital)] = true
        }

        // Qualifiers
        let qualifierCount = try reader.section("qualifiers")
        var qualifiers: [String: [QualifierRef]] = [:]
        qualifiers.reserveCapacity(qualifierCount)
        for _ in 0..<qualifierCount {
            guard let line = reader.nextLine() else { throw GeocodingError.invalidData("truncated qualifiers") }
            reader.fields(line, into: &f)
            try require(2, "qualifier")
            var refs: [QualifierRef] = []
            for item in reader.string(f[1]).split(separator: ",") {
                let chars = Array(item.utf8)
                guard chars.count >= 3, let index = Int32(String(decoding: chars[2...], as: UTF8.self)) else { continue }
                let target: QualifierRef.Target = chars[0] == UInt8(ascii: "c") ? .country : .region
                let limit = target == .country ? countries.count : regions.count
                guard index >= 0 && Int(index) < limit else { continue }
                refs.append(QualifierRef(target: target, index: index, byName: chars[1] == UInt8(ascii: "N")))
            }
            qualifiers[reader.string(f[0])] = refs
        }

        // Names
        let keyCount = try reader.section("names")
        let entryCount = placeCount + regions.count + countries.count
        var keyStart = [Int32]()
        var keyLength = [UInt16]()
        var postingStart = [Int32]()
        var postings = [Int32]()
        keyStart.reserveCapacity(keyCount)
        keyLength.reserveCapacity(keyCount)
        postingStart.reserveCapacity(keyCount + 1)
        postings.reserveCapacity(keyCount * 3 / 2)
        var majorKeys = [Int32]()
        var keyHead = [UInt64]()
        keyHead.reserveCapacity(keyCount)
        let majorPopulation = Gazetteer.majorPopulation
        try bytes.withUnsafeBufferPointer { buf in
            for k in 0..<keyCount {
                guard let line = reader.nextLine() else { throw GeocodingError.invalidData("truncated names") }
                var tab = line.lowerBound
                while tab < line.upperBound && buf[tab] != 0x09 { tab += 1 }
                guard tab < line.upperBound else { throw GeocodingError.invalidData("bad names line") }
                keyStart.append(Int32(line.lowerBound))
                keyLength.append(UInt16(clamping: tab - line.lowerBound))
                var head: UInt64 = 0
                for b in 0..<8 where line.lowerBound + b < tab {
                    head |= UInt64(buf[line.lowerBound + b]) << (56 - 8 * b)
                }
                keyHead.append(head)
                postingStart.append(Int32(postings.count))
                var i = tab + 1
                var major = false
                while i < line.upperBound {
                    var alternate = false
                    if buf[i] == UInt8(ascii: "~") {
                        alternate = true
                        i += 1
                    }
                    var value = 0
                    while i < line.upperBound && buf[i] != UInt8(ascii: ",") {
                        value = value * 10 + Int(buf[i]) - 48
                        i += 1
                    }
                    i += 1
                    guard value < entryCount else { throw GeocodingError.invalidData("bad posting \(value)") }
                    postings.append(alternate ? Int32(-(value + 1)) : Int32(value))
                    if value >= placeCount || population[value] >= majorPopulation { major = true }
                }
                if major { majorKeys.append(Int32(k)) }
            }
        }
        postingStart.append(Int32(postings.count))

        let postcodeCount = try reader.section("postcodes")
        let postcodes = try PostcodeTable(reader: &reader, count: postcodeCount, placeCount: placeCount)

        // Reverse grid: counting sort of places into 1-degree cells.
        let cells = 180 * 360
        var cellCount = [Int32](repeating: 0, count: cells + 1)
        var cellOf = [Int32](repeating: 0, count: placeCount)
        for p in 0..<placeCount {
            let c = Gazetteer.cell(latitude: Double(lat[p]), longitude: Double(lon[p]))
            cellOf[p] = Int32(c)
            cellCount[c + 1] += 1
        }
        for c in 0..<cells { cellCount[c + 1] += cellCount[c] }
        var fill = cellCount
        var cellPlaces = [Int32](repeating: 0, count: placeCount)
        for p in 0..<placeCount {
            let c = Int(cellOf[p])
            cellPlaces[Int(fill[c])] = Int32(p)
            fill[c] += 1
        }
        for c in 0..<cells where cellCount[c + 1] - cellCount[c] > 1 {
            cellPlaces[Int(cellCount[c])..<Int(cellCount[c + 1])].sort { (lat[Int($0)], $0) < (lat[Int($1)], $1) }
        }
        let cellLatitudes = cellPlaces.map { lat[Int($0)] }

        // Names in other languages: countries become qualifiers too ("…، مصر").
        let countryIndex = Dictionary(countries.enumerated().map { ($1.code, $0) }, uniquingKeysWith: { first, _ in first })
        let placeNames = PlaceNames.load(
            from: PlaceNames.bundledURL, country: { countryIndex[$0] },
            countryEntry: { placeCount + regions.count + $0 },
            city: { country, key in
                Gazetteer.largestPlace(
                    named: key, in: country, bytes: bytes, keyStart: keyStart, keyLength: keyLength,
                    postingStart: postingStart, postings: postings, placeRegion: region, regions: regions,
                    population: population)
            })
        for (key, indices) in placeNames.countriesByKey {
            var refs = qualifiers[key] ?? []
            for index in indices where !refs.contains(where: { $0.target == .country && $0.index == index }) {
                refs.append(QualifierRef(target: .country, index: index, byName: true))
            }
            qualifiers[key] = refs
        }

        // Only the text read after loading is kept (12 of the file's 35 MB).
        var text = GazetteerText(
            from: bytes,
            capacity: keyLength.lazy.map(Int.init).reduce(0, +) + nameLength.lazy.map(Int.init).reduce(0, +) + postcodes.textByteCount)
        keyStart = text.keep(starts: keyStart, lengths: keyLength)
        nameStart = text.keep(starts: nameStart, lengths: nameLength)
        let keptPostcodes = postcodes.keeping(in: &text)
        self.bytes = text.bytes
        self.placeNames = placeNames
        let timeZones = PlaceTimeZones.load(from: PlaceTimeZones.companion(of: url), placeCount: placeCount)
        self.timeZones = timeZones
        self.cellZones = timeZones.uniformCellZones(cellStart: cellCount, cellPlaces: cellPlaces)
        self.countries = countries
        self.regions = regions
        self.placeNameStart = nameStart
        self.placeNameLength = nameLength
        self.placeLatitude = lat
        self.placeLongitude = lon
        self.placeRegion = region
        self.placePopulation = population
        self.placeIsCapital = isCapital
        self.keyStart = keyStart
        self.keyLength = keyLength
        self.keyHead = keyHead
        self.postingStart = postingStart
        self.postings = postings
        self.majorKeys = majorKeys
        self.majorKeyHead = majorKeys.map { keyHead[Int($0)] }
        self.qualifiers = qualifiers
        self.postcodes = keptPostcodes
        self.cellStart = cellCount
        self.cellPlaces = cellPlaces
        self.cellLatitudes = cellLatitudes
    }

    /// The most populous place in `country` with `key` among its names, found in the
    /// name index before the gazetteer is assembled.
    static func largestPlace(
        named key: String, in country: Int, bytes: [UInt8], keyStart: [Int32], keyLength: [UInt16],
        postingStart: [Int32], postings: [Int32], placeRegion: [Int32], regions: [RegionRecord], population: [Int32]
    ) -> Int? {
        let query = Array(key.utf8)
        guard !query.isEmpty else { return nil }
        var lo = 0
        var hi = keyStart.count
        while lo < hi {
            let mid = (lo + hi) / 2
            let start = Int(keyStart[mid])
            let candidate = bytes[start..<(start + Int(keyLength[mid]))]
            if candidate.lexicographicallyPrecedes(query) { lo = mid + 1 } else { hi = mid }
        }
        guard lo < keyStart.count else { return nil }
        let start = Int(keyStart[lo])
        guard bytes[start..<(start + Int(keyLength[lo]))].elementsEqual(query) else { return nil }
        var best: Int?
        for i in Int(postingStart[lo])..<Int(postingStart[lo + 1]) {
            let value = Int(postings[i])
            let entry = value < 0 ? -value - 1 : value
            guard entry < population.count, Int(regions[Int(placeRegion[entry])].country) == country else { continue }
            if best.map({ population[entry] > population[$0] }) ?? true { best = entry }
        }
        return best
    }

    static func cell(latitude: Double, longitude: Double) -> Int {
        let row = min(max(Int((latitude + 90).rounded(.down)), 0), 179)
        var lonWrapped = longitude.truncatingRemainder(dividingBy: 360)
        if lonWrapped < -180 { lonWrapped += 360 }
        if lonWrapped >= 180 { lonWrapped -= 360 }
        let column = min(max(Int((lonWrapped + 180).rounded(.down)), 0), 359)
        return row * 360 + column
    }

    // MARK: - Geocoder

    public func geocode(_ query: String, limit: Int, language: String?) async throws -> [GeocodeResult] {
        lookup(query, limit: limit, language: language)
    }

    public func suggest(prefix: String, limit: Int, language: String?) async throws -> [GeocodeResult] {
        suggestions(prefix: prefix, limit: limit, language: language)
    }

    public func reverse(latitude: Double, longitude: Double, language: String?) async throws -> GeocodeResult? {
        nearest(latitude: latitude, longitude: longitude, language: language)
    }
}
