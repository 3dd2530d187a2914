import Foundation

/// Type-ahead: names that start with what was typed, then the readings of a full lookup
/// (qualifiers without commas, postcodes), then names that start with a close spelling.
extension Gazetteer {
    /// Most keys a misspelt prefix may expand to before the rest is ignored.
    static let typoPrefixKeys = 5_000

    /// Synchronous type-ahead: entries with a name starting with `prefix`, best first.
    public func suggestions(prefix: String, limit: Int = 5, language: String? = nil) -> [GeocodeResult] {
        suggestions(
            prefix: prefix, limit: limit, language: language, lookedUp: false, work: FuzzyWork(budget: FuzzyWork.suggestBudget))
    }

    /// `lookedUp`: a lookup of `prefix` has already found nothing (it is not repeated).
    /// `work`: the typo search of the whole call (shared by the lookup and the completion).
    func suggestions(prefix: String, limit: Int, language: String? = nil, lookedUp: Bool, work: FuzzyWork) -> [GeocodeResult] {
        let limit = min(max(limit, 1), 50)
        guard !prefix.isEmpty, prefix.count <= Gazetteer.maximumQueryLength else { return [] }
        if prefix.contains(where: Gazetteer.separatesParts) {
            let exact = work.holdingBack(FuzzyWork.completionReserve) { lookup(prefix, limit: limit, language: language, work: work) }
            if !exact.isEmpty { return exact }
            // "Unter den Linden 77, ": nothing after the comma yet, so the name part alone
            // reads the same and was just looked up.
            let rest = prefix.drop(while: { !Gazetteer.separatesParts($0) })
            return suggestions(
                prefix: String(prefix.prefix(while: { !Gazetteer.separatesParts($0) })), limit: limit, language: language,
                lookedUp: rest.allSatisfy { Gazetteer.separatesParts($0) || $0.isWhitespace }, work: work)
        }
        let key = Normalizer.key(prefix)
        guard !key.isEmpty else { return [] }
        let range = keyRange(key, prefix: true)
        if range.isEmpty {
            if key.contains(where: \.isNumber) && !key.contains(" ") {
                return postcodeSuggestions(key, limit: limit, language: language)
            }
            let whole =
                lookedUp
                ? [] : work.holdingBack(FuzzyWork.completionReserve) { lookup(prefix, limit: limit, language: language, work: work) }
            if !whole.isEmpty { return whole }
            return typoSuggestions(key, limit: limit, language: language, work: work)
        }
        let keyBytes = key.utf8.count
        var best = TopK(capacity: limit)
        if range.count <= 400 {
            for k in range { scan(k, exact: Int(keyLength[k]) == keyBytes, into: &best) }
        } else {
            // Short prefix: only keys of big places, regions and countries.
            var lo = 0
            var hi = majorKeys.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if Int(majorKeys[mid]) < range.lowerBound { lo = mid + 1 } else { hi = mid }
            }
            var i = lo
            while i < majorKeys.count && Int(majorKeys[i]) < range.upperBound {
                let k = Int(majorKeys[i])
                scan(k, exact: Int(keyLength[k]) == keyBytes, majorOnly: true, into: &best)
                i += 1
            }
            scan(range.lowerBound, exact: Int(keyLength[range.lowerBound]) == keyBytes, into: &best)  // the exact key, if typed in full
        }
        return best.items.map { result(entry: $0.entry, confidence: 1, language: language) }
    }

    /// Scores the entries of key `k` into `best`.
    private func scan(_ k: Int, exact: Bool, majorOnly: Bool = false, penalty: Double = 0, into best: inout TopK) {
        let lo = Int(postingStart[k])
        let hi = Int(postingStart[k + 1])
        for i in lo..<hi {
            let v = Int(postings[i])
            let (entry, alternate) = v < 0 ? (-v - 1, true) : (v, false)
            if majorOnly && entry < placeCount && placePopulation[entry] < Gazetteer.majorPopulation { continue }
            best.insert(
                entry,
                importance(entry) + (exact ? Weight.exactPrefix : 0)
                    + (alternate ? Weight.suggestAlternate : 0) + penalty)
        }
    }

    /// "Minneap" typed as "Mineap": names starting with a close spelling.
    private func typoSuggestions(_ key: String, limit: Int, language: String?, work: FuzzyWork) -> [GeocodeResult] {
        var best = TopK(capacity: limit)
        let keys = fuzzyKeys(
            key, maxDistance: Gazetteer.typoBudget(key.utf8.count), prefix: true,
            limit: Gazetteer.typoPrefixKeys, work: work)
        for fuzzy in keys.prefix(Gazetteer.typoPrefixKeys) {
            scan(fuzzy.key, exact: false, penalty: Double(fuzzy.distance) * Weight.typo, into: &best)
        }
        return best.items.map { result(entry: $0.entry, confidence: Gazetteer.typoConfidence, language: language) }
    }

    /// "0213": postcodes starting with the digits typed.
    private func postcodeSuggestions(_ key: String, limit: Int, language: String?) -> [GeocodeResult] {
        guard key.count >= 3 else { return [] }
        var best = TopK(capacity: limit)
        for row in postcodes.rows(key, prefix: true, in: bytes).prefix(Gazetteer.typoPrefixKeys) {
            let entry = postcodeEntry(row)
            best.insert(entry, importance(entry))
        }
        return best.items.map { result(entry: $0.entry, confidence: 1, language: language) }
    }
}
