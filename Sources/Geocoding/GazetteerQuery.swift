import Foundation

/// Forward geocoding: how a typed query is read.
///
/// A query is split at commas into parts; the first part holds the name, the others
/// qualify it (region, country, postcode). Inside a part, qualifiers may also follow the
/// name without commas ("Denver Colorado USA"), and postcodes may stand at either end
/// ("80331 München", "Cambridge MA 02139"). Leading parts or words that are no place (a
/// house and street) are skipped. Exact spellings are tried first; only when nothing
/// matches is the name read with typos.
extension Gazetteer {
    /// What the parts after the name say: qualifiers that must hold and postcode rows.
    struct Qualification {
        var refs: [[QualifierRef]] = []
        var postcodeRows: [Int] = []
        var unknown = 0
        var corrected = false
    }

    /// Longest qualifier phrase, in words ("united states of america").
    static let longestQualifier = 4

    /// What separates the parts of a query in every script the app is written in: the
    /// comma and semicolon and their Arabic (، ؛), full-width (， ；) and half-width (､)
    /// forms, the ideographic comma and full stop (、 。 ｡), the Devanagari danda (। ॥),
    /// the Armenian and Ethiopic commas, and line breaks. A full stop is not one: "St.
    /// Louis", "U.S.A." keep theirs.
    static let partSeparators: Set<Character> = [
        ",", ";", "\n", "\r\n", "\r",
        "\u{060C}", "\u{061B}",
        "\u{FF0C}", "\u{FF1B}", "\u{FE50}", "\u{FE51}", "\u{FE54}", "\u{FF64}",
        "\u{3001}", "\u{3002}", "\u{FF61}",
        "\u{0964}", "\u{0965}",
        "\u{055D}", "\u{1363}", "\u{1364}", "\u{2E41}", "\u{204F}",
    ]

    static func separatesParts(_ c: Character) -> Bool { partSeparators.contains(c) }

    /// Everything the query could mean, scored, with the confidence of the reading.
    func rankedCandidates(_ query: String, work: FuzzyWork = FuzzyWork()) -> (candidates: [Candidate], confidence: Double) {
        guard !query.isEmpty, query.count <= Gazetteer.maximumQueryLength else { return ([], 0) }
        let parts = query.split(whereSeparator: Gazetteer.separatesParts)
            .map { Normalizer.key(String($0)) }
            .filter { !$0.isEmpty }
            .map { $0.split(separator: " ") }
        guard !parts.isEmpty else { return ([], 0) }

        for typos in [false, true] {
            // Whole parts first; then drop leading parts ("1 Main St, Springfield, IL").
            var drop = 0
            while drop < parts.count && drop <= 3 {
                let tail = Array(parts[drop...])
                var found = read(tail, typos: typos, work: work)
                if !found.candidates.isEmpty {
                    if drop > 0 { found.confidence = min(found.confidence, 0.5) }
                    return found
                }
                // "Paris, Germany": a known name that is not where the qualifiers say is
                // no match; only an unknown leading part (a street) may be skipped.
                if tail.count < 2 || !postings(forKey: tail[0].joined(separator: " ")).isEmpty { break }
                drop += 1
            }
        }
        // A name we do not know beside a postcode we do: the postcode. (No digits, no
        // postcode: skip reading the parts, which would try to correct every word.)
        guard parts.contains(where: { $0.contains { $0.contains(where: \.isNumber) } }) else { return ([], 0) }
        var q = Qualification()
        for part in parts { qualify(part, into: &q, typos: false, work: work) }
        return (postcodeCandidates(q), 0.5)
    }

    /// Reads parts[0] as a name qualified by the other parts.
    func read(_ parts: [[Substring]], typos: Bool, work: FuzzyWork) -> (candidates: [Candidate], confidence: Double) {
        var q = Qualification()
        for part in parts.dropFirst() { qualify(part, into: &q, typos: typos, work: work) }
        let confidence = q.unknown > 0 ? 0.6 : (typos || q.corrected) ? Gazetteer.typoConfidence : 1

        // A postcode at either end of the name part is a qualifier ("80331 München").
        var words = parts[0]
        var lead: [Substring] = []
        var trail: [Substring] = []
        while let w = words.first, w.contains(where: \.isNumber) {
            lead.append(w)
            words.removeFirst()
        }
        while let w = words.last, w.contains(where: \.isNumber) {
            trail.insert(w, at: 0)
            words.removeLast()
        }
        let edgeRows = postcodeRows(lead) + postcodeRows(trail)

        var found: [Candidate] = []
        if words.count < parts[0].count {
            // "12 de Octubre" is a name with a number in it.
            found += readName(parts[0], q, typos: typos, work: work)
        }
        var withCodes = q
        withCodes.postcodeRows += edgeRows
        if words.isEmpty {
            // Only a postcode (and qualifiers): the postcode's own place.
            return (found + postcodeCandidates(withCodes), confidence)
        }
        found += readName(words, withCodes, typos: typos, work: work)
        if found.isEmpty && !lead.isEmpty && parts.count == 1 {
            // "77 Massachusetts Ave Cambridge MA": skip street words after a house number.
            for skip in 1..<min(words.count, 5) {
                let rest = Array(words[skip...])
                found = readName(rest, withCodes, typos: typos, work: work).map {
                    var skipped = $0
                    skipped.score += Weight.streetSkipped
                    return skipped
                }
                if !found.isEmpty { return (found, min(confidence, 0.5)) }
            }
        }
        return (found, confidence)
    }

    /// The name as a whole, and split into a name and trailing qualifiers
    /// ("mountain view" + "california" + "usa"). Read with typos, words followed by known
    /// qualifiers are corrected without them first ("Mountain Veiw California"), and the
    /// whole words, a longer and costlier walk, only when that finds nothing.
    private func readName(_ words: [Substring], _ q: Qualification, typos: Bool, work: FuzzyWork) -> [Candidate] {
        var found: [Candidate] = []
        if words.count >= 2 {
            for split in stride(from: words.count - 1, through: 1, by: -1) {
                guard let extra = qualifierPhrases(words[split...]) else { continue }
                var more = q
                more.refs += extra
                found += candidates(
                    name: words[..<split].joined(separator: " "), more,
                    baseScore: Weight.splitQualifier, typos: typos, work: work)
            }
        }
        if !typos || found.isEmpty {
            found += candidates(name: words.joined(separator: " "), q, baseScore: 0, typos: typos, work: work)
        }
        return found
    }

    /// Candidates for a name under qualifiers that must all hold. With `typos`, only a
    /// name with no exact key is corrected (an exact name in the wrong place stays wrong).
    func candidates(
        name: String, _ q: Qualification, baseScore: Double, typos: Bool,
        work: FuzzyWork
    ) -> [Candidate] {
        // (entries, edits, bytes of the name matched) for each spelling read.
        var matches: [(postings: [(entry: Int, alternate: Bool)], distance: Int, length: Int)]
        if !typos {
            let exact = postings(forKey: name)
            guard !exact.isEmpty else { return [] }
            matches = [(exact, 0, name.utf8.count)]
        } else {
            guard postings(forKey: name).isEmpty else { return [] }
            // Two edits are trusted only for well-known places (below): only their keys are walked.
            matches = fuzzyKeys(name, maxDistance: Gazetteer.typoBudget(name.utf8.count), majorPastOneEdit: true, work: work)
                // A misspelling of a code ("asdf" for "sdf", an airport) is no reading: codes are
                // typed exactly or not at all.
                .filter { Int(keyLength[$0.key]) >= Gazetteer.shortestCorrectableName }
                .map { (postingsOf(keyIndex: $0.key), $0.distance, Int(keyLength[$0.key])) }
        }
        var out: [Candidate] = []
        for match in matches {
            for (entry, alternate) in match.postings {
                // Two edits are trusted only for well-known places.
                if match.distance >= 2 && entry < placeCount && placePopulation[entry] < Gazetteer.majorPopulation { continue }
                var score =
                    baseScore + importance(entry) + (alternate ? Weight.alternateName : 0)
                    + Double(match.distance) * Weight.typo
                guard let bonus = qualification(entry, q) else { continue }
                score += bonus
                // Named with its postcode: the postcode's point is the more precise one.
                let row = nearestPostcode(entry, q.postcodeRows)
                out.append(
                    Candidate(
                        entry: row.map(postcodeEntry) ?? entry, score: score, alternate: alternate,
                        edits: match.distance, nameLength: match.length, qualified: !q.refs.isEmpty || row != nil))
            }
        }
        return out
    }

    /// Bonus for an entry under `q`, or nil when a qualifier does not hold.
    func qualification(_ entry: Int, _ q: Qualification) -> Double? {
        var score = 0.0
        for refs in q.refs {
            guard let bonus = qualifierBonus(entry, refs) else { return nil }
            score += bonus
        }
        // "Texas, USA" names the region; "Bavaria, Bavaria" is not a thing.
        if case .country = self.entry(entry), !q.refs.allSatisfy({ $0.allSatisfy { $0.target == .country } }) {
            return nil
        }
        if nearestPostcode(entry, q.postcodeRows) != nil { score += Weight.postcode }
        return score
    }

    /// The postcode row within reach of a place entry, if any.
    private func nearestPostcode(_ entry: Int, _ rows: [Int]) -> Int? {
        guard !rows.isEmpty, case .place(let p) = self.entry(entry) else { return nil }
        let lat = Double(placeLatitude[p])
        let lon = Double(placeLongitude[p])
        return rows.first {
            Gazetteer.distanceKm(lat, lon, Double(postcodes.latitude[$0]), Double(postcodes.longitude[$0])) <= Gazetteer.postcodeRadiusKm
        }
    }

    private func postcodeCandidates(_ q: Qualification) -> [Candidate] {
        q.postcodeRows.compactMap { row in
            let entry = postcodeEntry(row)
            var plain = q
            plain.postcodeRows = []
            guard let bonus = qualification(entry, plain) else { return nil }
            return Candidate(entry: entry, score: importance(entry) + bonus)
        }
    }

    // MARK: - Qualifiers

    /// Reads one qualifying part ("MA 02139", "California USA", "Masachusetts").
    func qualify(_ part: [Substring], into q: inout Qualification, typos: Bool, work: FuzzyWork) {
        let words = part.filter { !$0.contains(where: \.isNumber) }
        let numbers = part.filter { $0.contains(where: \.isNumber) }
        q.postcodeRows += postcodeRows(numbers)
        if words.isEmpty { return }
        if let phrases = qualifierPhrases(words[...]) {
            q.refs += phrases
            return
        }
        // A misspelt region or country ("Masachusetts").
        let text = words.joined(separator: " ")
        if typos || text.utf8.count >= 5, let refs = correctedQualifier(text, work: work) {
            q.refs.append(refs)
            q.corrected = true
            return
        }
        q.unknown += 1
    }

    /// Covers `words` with known qualifier phrases, longest first; nil if some word is left.
    func qualifierPhrases(_ words: ArraySlice<Substring>) -> [[QualifierRef]]? {
        var out: [[QualifierRef]] = []
        var i = words.startIndex
        next: while i < words.endIndex {
            for length in stride(from: min(Gazetteer.longestQualifier, words.endIndex - i), through: 1, by: -1) {
                if let refs = qualifiers[words[i..<(i + length)].joined(separator: " ")], !refs.isEmpty {
                    out.append(refs)
                    i += length
                    continue next
                }
            }
            return nil
        }
        return out
    }

    /// The qualifier closest in spelling to `text`, if one is within the typo budget.
    func correctedQualifier(_ text: String, work: FuzzyWork) -> [QualifierRef]? {
        // Region and country names are all major keys.
        let keys = fuzzyKeys(text, maxDistance: Gazetteer.typoBudget(text.utf8.count), majorPastOneEdit: true, work: work)
            .sorted { $0.distance < $1.distance }
        for fuzzy in keys {
            if let refs = qualifiers[key(at: fuzzy.key)], refs.contains(where: \.byName) { return refs }
        }
        return nil
    }

    /// Postcode rows named by number-bearing words: each word, and adjacent words joined
    /// ("00 001" for Poland's "00-001").
    func postcodeRows(_ words: [Substring]) -> [Int] {
        guard !words.isEmpty else { return [] }
        var keys = words.filter { $0.count >= 3 }.map(String.init)
        if words.count > 1 { keys.insert(words.joined(), at: 0) }
        for key in keys {
            let rows = postcodes.rows(key, in: bytes)
            if !rows.isEmpty { return Array(rows) }
        }
        return []
    }
}
