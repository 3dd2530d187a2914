import Foundation

extension Gazetteer {
    /// Longest query accepted; longer text is not a place name.
    public static let maximumQueryLength = 256

    /// Ranking weights (log10 units; 1.0 = a factor of ten in population).
    enum Weight {
        static let alternateName = -0.7
        static let capital = 0.5
        static let regionFactor = 0.1  // a region counts as a tenth of its population
        static let countryFactor = 2.0  // a country beats a same-named city
        static let regionQualifier = 0.3  // "Perth, WA": a region match is worth more than a country match
        static let splitQualifier = -0.5  // "Paris Texas" read as "Paris, Texas"
        static let exactPrefix = 0.5  // type-ahead: the whole key typed
        static let suggestAlternate = -1.5  // type-ahead: completing an alternate name is a weaker hint
        static let typo = -1.0  // per edit of a misspelt name
        static let postcode = 1.5  // a place near the postcode given with it
        static let postcodeTown = 0.2  // a bare postcode: the town counts less than the country
        static let streetSkipped = -0.3  // words dropped from the front of an address
    }

    /// Confidence of a reading that needed a spelling correction.
    static let typoConfidence = 0.7
    /// A place counts as near a postcode within this distance.
    static let postcodeRadiusKm = 30.0

    struct Candidate {
        var entry: Int
        var score: Double
        /// Found by one of its other names (another language's, a former name, a code).
        var alternate = false
        /// Spelling corrections needed to read it.
        var edits = 0
        /// Bytes of the normalized name it was found by.
        var nameLength = 0
        /// Read with a region, country or postcode that holds ("Home, WA").
        var qualified = false
    }

    /// Names shorter than this (codes: "SDF", "NYC") are never reached by a correction.
    static let shortestCorrectableName = 4
    /// Confidence of a reading that is only a guess: an everyday word that happens to be a
    /// town's name ("home", "school"), a short code of a small place.
    static let guessConfidence = 0.5

    enum Entry {
        case place(Int)
        case region(Int)
        case country(Int)
        case postcode(Int)
    }

    /// Entry id of postcode row `i`.
    func postcodeEntry(_ i: Int) -> Int {
        placeLatitude.count + regions.count + countries.count + i
    }

    func entry(_ id: Int) -> Entry {
        let p = placeLatitude.count
        if id < p { return .place(id) }
        if id < p + regions.count { return .region(id - p) }
        if id < p + regions.count + countries.count { return .country(id - p - regions.count) }
        return .postcode(id - p - regions.count - countries.count)
    }

    /// log10 importance of an entry: population, with capitals, regions and countries weighted.
    func importance(_ id: Int) -> Double {
        switch entry(id) {
        case .place(let p):
            return log10(Double(max(placePopulation[p], 50))) + (placeIsCapital[p] ? Weight.capital : 0)
        case .region(let r):
            return log10(max(Double(regions[r].population), 1000) * Weight.regionFactor)
        case .country(let c):
            return log10(max(Double(countries[c].population), 1000) * Weight.countryFactor)
        case .postcode(let i):
            // A bare code is read in the most populous country that has it.
            let place = Int(postcodes.place[i])
            let country = countries[location(place).country]
            return log10(max(Double(country.population), 1000)) + Weight.postcodeTown * importance(place)
        }
    }

    /// (region, country) of an entry; region -1 for countries.
    func location(_ id: Int) -> (region: Int, country: Int) {
        switch entry(id) {
        case .place(let p):
            let r = Int(placeRegion[p])
            return (r, Int(regions[r].country))
        case .region(let r):
            return (r, Int(regions[r].country))
        case .country(let c):
            return (-1, c)
        case .postcode(let i):
            return location(Int(postcodes.place[i]))
        }
    }

    /// Whether an entry lies in what a qualifier names; nil when not, else a bonus.
    func qualifierBonus(_ id: Int, _ refs: [QualifierRef]) -> Double? {
        let (region, country) = location(id)
        var best: Double?
        for ref in refs {
            switch ref.target {
            case .region where Int(ref.index) == region:
                best = max(best ?? -1, Weight.regionQualifier)
            case .country where Int(ref.index) == country:
                best = max(best ?? -1, 0)
            default:
                continue
            }
        }
        return best
    }

    // MARK: - Key search

    /// Compares key `k` with `query`: <0, 0, >0. With `prefix`, a key that starts
    /// with `query` compares equal.
    @inline(__always)
    func compareKey(_ k: Int, _ query: UnsafeBufferPointer<UInt8>, prefix: Bool, _ buf: UnsafeBufferPointer<UInt8>) -> Int {
        let start = Int(keyStart[k])
        let length = Int(keyLength[k])
        let n = min(length, query.count)
        var i = 0
        while i < n {
            let a = buf[start + i]
            let b = query[i]
            if a != b { return a < b ? -1 : 1 }
            i += 1
        }
        if length == query.count { return 0 }
        if length < query.count { return -1 }
        return prefix ? 0 : 1
    }

    /// Index range of keys equal to (or, with `prefix`, starting with) `key`.
    func keyRange(_ key: String, prefix: Bool) -> Range<Int> {
        var q = Array(key.utf8)
        return q.withUnsafeMutableBufferPointer { qm in
            let query = UnsafeBufferPointer(qm)
            return bytes.withUnsafeBufferPointer { buf in
                var lo = 0
                var hi = keyStart.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if compareKey(mid, query, prefix: prefix, buf) < 0 { lo = mid + 1 } else { hi = mid }
                }
                let first = lo
                hi = keyStart.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if compareKey(mid, query, prefix: prefix, buf) <= 0 { lo = mid + 1 } else { hi = mid }
                }
                return first..<lo
            }
        }
    }

    /// Postings of one exact key as (entry, isAlternate): the gazetteer's names, then the
    /// names in other languages (`placeNames`, alternate names of countries and cities).
    func postings(forKey key: String) -> [(entry: Int, alternate: Bool)] {
        let range = keyRange(key, prefix: false)
        var out = range.first.map { postingsOf(keyIndex: $0) } ?? []
        // Another language's name of a country never outranks a town that is called so in
        // its own right ("Brasilia" is Brazil in Romanian, and a capital).
        let ownName = out.contains { !$0.alternate && ($0.entry >= placeCount || placePopulation[$0.entry] >= Gazetteer.majorPopulation) }
        guard !ownName else { return out }
        for entry in placeNames.entriesByKey[key] ?? [] where !out.contains(where: { $0.entry == entry }) {
            out.append((entry, true))
        }
        return out
    }

    func postingsOf(keyIndex k: Int) -> [(entry: Int, alternate: Bool)] {
        var out: [(entry: Int, alternate: Bool)] = []
        let lo = Int(postingStart[k])
        let hi = Int(postingStart[k + 1])
        out.reserveCapacity(hi - lo)
        for i in lo..<hi {
            let v = Int(postings[i])
            out.append(v < 0 ? (-v - 1, true) : (v, false))
        }
        return out
    }

    func key(at k: Int) -> String {
        let s = Int(keyStart[k])
        return String(decoding: bytes[s..<(s + Int(keyLength[k]))], as: UTF8.self)
    }

    /// Best `limit` distinct entries, best first.
    func top(_ candidates: [Candidate], limit: Int) -> [Candidate] {
        var best = TopK(capacity: limit)
        for c in candidates { best.insert(c) }
        return best.items
    }

    /// The best reading and the alternatives worth offering beside it: the same name
    /// elsewhere ("Paris, Texas" beside Paris), and regions and countries of that name;
    /// never a town found by another of its names that is not what the best one is called
    /// (Newton, an old name of which is Cambridge, beside Cambridge).
    func alternativesWorthOffering(_ candidates: [Candidate], limit: Int) -> [Candidate] {
        let ranked = top(candidates, limit: limit * 3)
        guard let best = ranked.first else { return [] }
        let bestName = ownNameKey(best.entry)
        var kept = [best]
        for c in ranked.dropFirst() where kept.count < limit {
            switch entry(c.entry) {
            case .region, .country:
                kept.append(c)
            case .place, .postcode:
                // A name read as typed stands beside the best one; one read by another name or
                // through a correction only when it is called what the best one is called.
                if (!c.alternate && c.edits == 0) || ownNameKey(c.entry) == bestName { kept.append(c) }
            }
        }
        return kept
    }

    /// The normalized name an entry goes by in the gazetteer.
    func ownNameKey(_ id: Int) -> String {
        switch entry(id) {
        case .place(let p): return Normalizer.key(placeName(p))
        case .region(let r): return Normalizer.key(regions[r].name)
        case .country(let c): return Normalizer.key(countries[c].name)
        case .postcode(let i): return ownNameKey(Int(postcodes.place[i]))
        }
    }

    /// How sure the answer is: the reading's confidence, lowered to a guess when the query is
    /// an everyday word that happens to name a town ("home" is Home, Washington; "nada" a town
    /// in Hainan), or the best match a small place's short code, typed without anything that
    /// says a place is meant ("Home, WA" is one).
    func confidence(of best: Candidate?, query: String, reading: Double) -> Double {
        guard let best else { return 0 }
        // A number alone is a postcode in many countries ("1234"): which one is a guess.
        let key = Normalizer.key(query)
        if !key.isEmpty && !key.contains(where: \.isLetter) { return min(reading, Gazetteer.guessConfidence) }
        guard !best.qualified, case .place(let p) = entry(best.entry) else { return reading }
        if EverydayWords.contains(key) { return min(reading, Gazetteer.guessConfidence) }
        if best.alternate && best.nameLength < Gazetteer.shortestCorrectableName && placePopulation[p] < 1_000_000 {
            return min(reading, Gazetteer.guessConfidence)
        }
        return reading
    }

    /// Synchronous forward geocoding; best first, `[]` when nothing matches. Names are in
    /// `language` (a BCP 47 tag) where the data has them, else in the gazetteer's spelling.
    public func lookup(_ query: String, limit: Int = 5, language: String? = nil) -> [GeocodeResult] {
        lookup(query, limit: limit, language: language, work: FuzzyWork())
    }

    func lookup(_ query: String, limit: Int, language: String? = nil, work: FuzzyWork) -> [GeocodeResult] {
        let limit = min(max(limit, 1), 50)
        let reading = rankedCandidates(query, work: work)
        let ranked = alternativesWorthOffering(reading.candidates, limit: limit)
        let confidence = confidence(of: ranked.first, query: query, reading: reading.confidence)
        return ranked.map { result(entry: $0.entry, confidence: confidence, language: language) }
    }

    // MARK: - Reverse

    /// Nearest populated place within `maximumDistanceKm`, or nil.
    public func nearest(
        latitude: Double, longitude: Double, maximumDistanceKm: Double = 500, language: String? = nil
    ) -> GeocodeResult? {
        nearestPlace(latitude: latitude, longitude: longitude, maximumDistanceKm: maximumDistanceKm).map {
            result(entry: $0, confidence: 1, language: language)
        }
    }

    /// The index of the populated place nearest the point, within `maximumDistanceKm`, among
    /// places of at least `minimumPopulation`.
    func nearestPlace(latitude: Double, longitude: Double, maximumDistanceKm: Double, minimumPopulation: Int32 = 0) -> Int? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90 else { return nil }
        let home = Gazetteer.cell(latitude: latitude, longitude: longitude)
        let row = home / 360
        let column = home % 360
        var best = -1
        var bestDistance = Double.infinity
        var bestHaversine = Double.infinity

        let radians = Double.pi / 180
        let pointCosine = cos(latitude * radians)
        // A place that cannot beat the best so far is passed over without the distance's
        // trigonometry (the answer is the same; a million points' time zones took 45 s, most of
        // it sines and cosines). Two lower bounds of the great-circle distance: no path between
        // two latitudes is shorter than the meridian's (R times their difference), nor shorter
        // than the place's distance to the point's meridian, R asin(cos(placeLat) sin(dLon)) >=
        // R cosEdge (x - x^3/6) for x = |dLon| <= pi/2, cosEdge being the cosine at the place's
        // cell's edge farther from the equator. A cell's places go south to north, so the walk
        // starts at the point's latitude and stops, each way, at the first place the latitude
        // bound rules out: every place beyond it is farther in latitude still.
        func beyondBest(_ boundRadians: Double) -> Bool { boundRadians * Self.kmPerRadian * (1 - 1e-9) > bestDistance }
        func consider(_ i: Int, cosEdge: Double) {
            let p = Int(cellPlaces[i])
            guard placePopulation[p] >= minimumPopulation else { return }
            let placeLat = Double(cellLatitudes[i])
            let placeLon = Double(placeLongitude[p])
            var x = abs(placeLon - longitude)
            if x >= 360 { x = x.truncatingRemainder(dividingBy: 360) }  // a longitude outside -180...180
            if x > 180 { x = 360 - x }
            x *= radians
            if x <= .pi / 2, beyondBest(cosEdge * (x - x * x * x / 6)) { return }
            // `distanceKm`'s haversine term, which grows with the distance: places are compared
            // by it, and the distance itself (an arc tangent) is worked out for a new best only.
            let halfLatitudeSine = sin((placeLat - latitude) * radians / 2)
            let halfLongitudeSine = sin((placeLon - longitude) * radians / 2)
            let a =
                halfLatitudeSine * halfLatitudeSine + pointCosine * cos(placeLat * radians) * halfLongitudeSine * halfLongitudeSine
            // Equally near: the lower index, whichever cell was walked first.
            if a < bestHaversine || (a == bestHaversine && p < best) {
                bestHaversine = a
                bestDistance = Gazetteer.distanceKm(haversine: a)
                best = p
            }
        }
        func visit(_ r: Int, _ c: Int) {
            let cell = r * 360 + ((c % 360) + 360) % 360
            let start = Int(cellStart[cell])
            let end = Int(cellStart[cell + 1])
            guard start < end else { return }
            let cosEdge = cos(Double(max(abs(r - 90), abs(r - 89))) * radians)
            var low = start
            var high = end
            while low < high {
                let middle = (low + high) / 2
                if Double(cellLatitudes[middle]) < latitude { low = middle + 1 } else { high = middle }
            }
            var i = low
            while i < end, !beyondBest((Double(cellLatitudes[i]) - latitude) * radians) {
                consider(i, cosEdge: cosEdge)
                i += 1
            }
            i = low - 1
            while i >= start, !beyondBest((latitude - Double(cellLatitudes[i])) * radians) {
                consider(i, cosEdge: cosEdge)
                i -= 1
            }
        }

        // 1. The 3 x 3 cells around the point: enough on land almost everywhere. The point's own
        //    cell first: its nearest place usually rules out most of the others'.
        visit(row, column)
        for r in max(row - 1, 0)...min(row + 1, 179) {
            for c in (column - 1)...(column + 1) where r != row || c != column { visit(r, c) }
        }
        // 2. Every cell that could hold something closer: a box of the search radius,
        //    widened in longitude by latitude (with a margin, since great circles cut
        //    across parallels).
        let radius = min(bestDistance, maximumDistanceKm)
        let kmPerDegree = 111.19
        let rowSpan = Int((radius / kmPerDegree).rounded(.up)) + 1
        if rowSpan > 1 {
            for r in max(row - rowSpan, 0)...min(row + rowSpan, 179) {
                let bandEdge = max(abs(Double(r) - 90), abs(Double(r + 1) - 90))
                let cosine = cos(min(bandEdge, 90) * .pi / 180)
                let halfWidth = cosine < 0.01 ? 180 : min(180, Int((radius * 1.2 / (kmPerDegree * cosine)).rounded(.up)) + 1)
                if halfWidth >= 180 {
                    for c in 0..<360 { visit(r, c) }
                } else {
                    for c in (column - halfWidth)...(column + halfWidth) where abs(r - row) > 1 || abs(c - column) > 1 {
                        visit(r, c)
                    }
                }
            }
        }
        guard best >= 0, bestDistance <= maximumDistanceKm else { return nil }
        return best
    }

    /// The Earth's mean radius, as `distanceKm` takes it.
    static let kmPerRadian = 6371.0

    /// Great-circle distance in kilometres.
    public static func distanceKm(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = Double.pi / 180
        let dLat = (lat2 - lat1) * r
        let dLon = (lon2 - lon1) * r
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * r) * cos(lat2 * r) * sin(dLon / 2) * sin(dLon / 2)
        return distanceKm(haversine: a)
    }

    /// The distance whose haversine term is `a`.
    static func distanceKm(haversine a: Double) -> Double {
        kmPerRadian * 2 * atan2(sqrt(a), sqrt(max(0, 1 - a)))
    }

    // MARK: - Results

    func placeName(_ p: Int) -> String {
        let s = Int(placeNameStart[p])
        return String(decoding: bytes[s..<(s + Int(placeNameLength[p]))], as: UTF8.self)
    }

    /// The answer for an entry, named in `language` where the data has its names: a city's
    /// and its country's name in that language, the region's only where the language is
    /// written in Latin letters (a transliteration would be no help to its reader).
    func result(entry id: Int, confidence: Double, language: String? = nil) -> GeocodeResult {
        let display = language.flatMap { $0.hasPrefix("en") ? nil : DisplayLanguage(tag: $0) }
        let separator = display?.separator ?? ", "
        func countryName(_ c: Int) -> String {
            placeNames.label(placeLatitude.count + regions.count + c, language: display?.tag) ?? countries[c].name
        }
        switch entry(id) {
        case .place(let p):
            let region = regions[Int(placeRegion[p])]
            let country = countries[Int(region.country)]
            let ownName = placeName(p)
            let label = placeNames.label(p, language: display?.tag)
            let name = label ?? ownName
            // A town without a name in a non-Latin language keeps its region: three "Cairo"s
            // in the United States are told apart by their states.
            let showsRegion = !region.name.isEmpty && ((display?.isLatin ?? true) || label == nil)
            var parts = [name]
            if showsRegion && Normalizer.key(region.name) != Normalizer.key(ownName) && Normalizer.key(region.name) != Normalizer.key(name)
            {
                parts.append(region.name)
            }
            let countryLabel = countryName(Int(region.country))
            parts.append(countryLabel)
            let lat = Double(placeLatitude[p])
            let population = Double(max(placePopulation[p], 1000))
            let delta = min(max(0.1 + 0.05 * log10(population / 1000), 0.1), 0.35)
            let lonDelta = min(delta / max(cos(lat * .pi / 180), 0.2), 2)
            return GeocodeResult(
                name: parts.joined(separator: separator), latitude: lat, longitude: Double(placeLongitude[p]),
                kind: .city, country: countryLabel, countryCode: country.code,
                region: showsRegion ? region.name : nil,
                span: MapSpan(latitudeDelta: delta, longitudeDelta: lonDelta), confidence: confidence)
        case .region(let r):
            let region = regions[r]
            let country = countries[Int(region.country)]
            let countryLabel = countryName(Int(region.country))
            return GeocodeResult(
                name: region.name + separator + countryLabel, latitude: region.latitude, longitude: region.longitude,
                kind: .region, country: countryLabel, countryCode: country.code, region: region.name,
                span: region.span, confidence: confidence)
        case .country(let c):
            let country = countries[c]
            let countryLabel = countryName(c)
            return GeocodeResult(
                name: countryLabel, latitude: country.latitude, longitude: country.longitude,
                kind: .country, country: countryLabel, countryCode: country.code, region: nil,
                span: country.span, confidence: confidence)
        case .postcode(let i):
            // "02139, Cambridge, Massachusetts, United States" at the postcode's own point.
            var town = result(entry: Int(postcodes.place[i]), confidence: confidence, language: language)
            town.name = postcodes.code(i, in: bytes) + separator + town.name
            town.latitude = Double(postcodes.latitude[i])
            town.longitude = Double(postcodes.longitude[i])
            town.span = MapSpan(latitudeDelta: 0.05, longitudeDelta: min(0.05 / max(cos(town.latitude * .pi / 180), 0.2), 1))
            return town
        }
    }
}

/// The best `capacity` distinct entries seen so far, best first.
struct TopK {
    let capacity: Int
    private(set) var items: [Gazetteer.Candidate] = []

    init(capacity: Int) {
        self.capacity = max(capacity, 0)
        items.reserveCapacity(self.capacity + 1)
    }

    mutating func insert(_ entry: Int, _ score: Double) {
        insert(Gazetteer.Candidate(entry: entry, score: score))
    }

    mutating func insert(_ candidate: Gazetteer.Candidate) {
        let entry = candidate.entry
        let score = candidate.score
        if items.count == capacity, let last = items.last, score <= last.score { return }
        if let i = items.firstIndex(where: { $0.entry == entry }) {
            if items[i].score >= score { return }
            items.remove(at: i)
        }
        var at = items.count
        while at > 0 && (items[at - 1].score < score || (items[at - 1].score == score && items[at - 1].entry > entry)) { at -= 1 }
        items.insert(candidate, at: at)
        if items.count > capacity { items.removeLast() }
    }
}

extension Gazetteer {
    /// What else the place a search names is called: when `query` is exactly the name of a
    /// country, a region or a town of at least 15,000 people (in any language or script the
    /// gazetteer knows), that place's own name and its names in other languages, normalized
    /// ("برلين" gives "berlin", "柏林", "berlin"...). Empty when the query names no such place.
    /// A search for classmates uses them to find posts that name the place another way.
    public func namesOfPlace(_ query: String, limit: Int = 3) -> [String] {
        let key = Normalizer.key(query)
        guard !key.isEmpty, key.utf8.count <= Gazetteer.maximumQueryLength, !EverydayWords.contains(key) else { return [] }
        let places = postings(forKey: key).map(\.entry)
            .filter { $0 >= placeCount || placePopulation[$0] >= Gazetteer.majorPopulation }
            .sorted { importance($0) > importance($1) }
            .prefix(limit)
        var names: [String] = []
        var seen: Set<String> = [key]
        for entry in places {
            let forms = [ownNameKey(entry)] + (placeNames.labels[entry]?.values.map(Normalizer.key) ?? []).sorted()
            for form in forms where !form.isEmpty && seen.insert(form).inserted { names.append(form) }
        }
        return names
    }
}
