import Foundation

/// The typo search of one query (a lookup, or one type-ahead call): the walks it has done,
/// and what it may still spend.
///
/// A query reads the same name several ways (whole and split before qualifiers, with
/// leading parts dropped, looked up and then completed while typing), so a walk is done
/// once and remembered. And every walk counts the rows of the edit-distance table it
/// computes (one per trie node visited) against the query's budget: past it, walks return
/// what they have found so far and further walks find nothing. The bound is counted work,
/// not time, so the same query always gives the same answer, however loaded the machine.
final class FuzzyWork {
    /// Rows one query may compute. A row costs 0.1-0.2 µs (most of it reading the key's
    /// bytes), so this keeps the typo search of any query near 2 ms on a loaded machine;
    /// a one-edit walk of a long name takes 4,000-5,000, and the accuracy suite's heaviest
    /// lookup about 7,200 (the benchmark prints the figures). Half-typed addresses in
    /// type-ahead are what reaches it.
    static let rowBudget = 12_000
    /// A type-ahead call runs on every key press, so it gets less: 6,000 rows (about 1.5 ms),
    /// of which the lookup of what was typed may use only 3,000, so a misspelt prefix such
    /// as "Minneapl" always has rows left to be completed (with one budget for both, the
    /// lookup could spend it all first).
    static let suggestBudget = 6_000
    static let completionReserve = 3_000

    struct Walk: Hashable {
        let query: String
        let maxDistance: Int
        let prefix: Bool
        let limit: Int
        let majorPastOneEdit: Bool
    }

    var remaining: Int
    private(set) var rows = 0
    var done: [Walk: [Gazetteer.FuzzyKey]] = [:]

    init(budget: Int = FuzzyWork.rowBudget) {
        remaining = budget
    }

    func spend(_ count: Int) {
        rows += count
        remaining -= count
    }

    /// Runs `body` with `rows` of what is left kept back for a later stage of the query.
    func holdingBack<T>(_ rows: Int, _ body: () -> T) -> T {
        let held = max(0, min(rows, remaining))
        remaining -= held
        defer { remaining += held }
        return body()
    }
}

extension Gazetteer {
    /// A key found by fuzzy search and its edit distance from the query.
    struct FuzzyKey {
        var key: Int
        var distance: Int
    }

    /// How many edits a typed name of `length` bytes may carry: none for very short names
    /// (too many neighbours), one up to 7 letters, two beyond.
    static func typoBudget(_ length: Int) -> Int {
        length < 4 ? 0 : length < 8 ? 1 : 2
    }

    /// Keys within `maxDistance` edits of `query` (optimal string alignment distance:
    /// insert, delete, substitute, swap two neighbours), or with `prefix`, keys that start
    /// with something that close. The sorted keys are walked as a trie: one row of the
    /// edit-distance table per byte, shared by keys with a common prefix, and a whole range
    /// of keys skipped as soon as its prefix is out of reach. Distances count UTF-8 bytes.
    /// With `prefix`, at most `limit` keys are returned (the first ones in key order).
    /// With `majorPastOneEdit`, keys more than one edit away are looked for only among
    /// `majorKeys` (a third of the keys), for callers that keep nothing else that far.
    func fuzzyKeys(
        _ query: String, maxDistance: Int, prefix: Bool = false, limit: Int = Int.max,
        majorPastOneEdit: Bool = false, work: FuzzyWork = FuzzyWork()
    ) -> [FuzzyKey] {
        let memo = FuzzyWork.Walk(
            query: query, maxDistance: maxDistance, prefix: prefix, limit: limit,
            majorPastOneEdit: majorPastOneEdit)
        if let known = work.done[memo] { return known }
        let found = uncachedFuzzyKeys(
            query, maxDistance: maxDistance, prefix: prefix, limit: limit,
            majorPastOneEdit: majorPastOneEdit, work: work)
        work.done[memo] = found
        return found
    }

    private func uncachedFuzzyKeys(
        _ query: String, maxDistance: Int, prefix: Bool, limit: Int,
        majorPastOneEdit: Bool, work: FuzzyWork
    ) -> [FuzzyKey] {
        let q = Array(query.utf8)
        let n = q.count
        let k = maxDistance
        guard n > 0, k > 0, !keyStart.isEmpty, work.remaining > 0 else { return [] }
        // Most typos are one edit, and a one-edit walk prunes far sooner: the wider walk
        // runs only when the narrower one finds nothing. Past one edit, only names that
        // begin with the query's first byte are walked (a misspelt name nearly always keeps
        // its first letter, and the walk shrinks by an order of magnitude).
        if k > 1 {
            let near = fuzzyKeys(
                query, maxDistance: k - 1, prefix: prefix, limit: limit,
                majorPastOneEdit: majorPastOneEdit, work: work)
            if !near.isEmpty { return near }
            if majorPastOneEdit {
                return majorKeys.withUnsafeBufferPointer {
                    walk(q, k, prefix, limit, only: $0, positions: startingWith(q[0], majorKeyHead), work: work)
                }
            }
            return walk(q, k, prefix, limit, only: nil, positions: startingWith(q[0], keyHead), work: work)
        }
        return walk(q, k, prefix, limit, only: nil, positions: 0..<keyStart.count, work: work)
    }

    /// The trie walk of `fuzzyKeys` at one budget, over all keys or the sorted subset `only`
    /// (which must be `majorKeys`: `heads` is indexed by position in the walked list).
    /// Positions in a sorted list of packed key heads of the keys that begin with `byte`.
    private func startingWith(_ byte: UInt8, _ heads: [UInt64]) -> Range<Int> {
        func lowerBound(_ value: UInt64) -> Int {
            var lo = 0
            var hi = heads.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if heads[mid] < value { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
        let low = lowerBound(UInt64(byte) << 56)
        return low..<(byte == 0xFF ? heads.count : lowerBound(UInt64(byte + 1) << 56))
    }

    private func walk(
        _ q: [UInt8], _ k: Int, _ prefix: Bool, _ limit: Int,
        only: UnsafeBufferPointer<Int32>?, positions: Range<Int>, work: FuzzyWork
    ) -> [FuzzyKey] {
        let n = q.count
        let width = n + 1
        let maxDepth = n + k
        // Cells are clamped at `cap`: past the budget only "out of reach" matters. Only the
        // band |row - column| <= k is computed (anything outside it is more than k edits),
        // so the rest keeps `cap` from here on.
        let cap = k + 1
        let rows = UnsafeMutableBufferPointer<Int>.allocate(capacity: width * (maxDepth + 1))
        rows.initialize(repeating: cap)
        defer { rows.deallocate() }
        for j in 0...min(n, k) { rows[j] = j }
        let path = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: maxDepth)
        path.initialize(repeating: 0)
        defer { path.deallocate() }
        var depth = 0
        var pathHead: UInt64 = 0  // the first 8 bytes of the path, packed like `keyHead`
        var found: [FuzzyKey] = []
        let keyCount = positions.upperBound
        var rowsLeft = work.remaining
        defer { work.spend(work.remaining - rowsLeft) }

        bytes.withUnsafeBufferPointer { buf in
            keyStart.withUnsafeBufferPointer { starts in
                keyLength.withUnsafeBufferPointer { lengths in
                    (only == nil ? keyHead : majorKeyHead).withUnsafeBufferPointer { heads in
                        q.withUnsafeBufferPointer { qb in
                            // `key` is a position in the walked list; `id` the key it stands for.
                            var key = positions.lowerBound
                            keys: while key < keyCount {
                                if rowsLeft <= 0 { break keys }
                                let id = only.map { Int($0[key]) } ?? key
                                let start = Int(starts[id])
                                let length = Int(lengths[id])
                                let head = heads[key]
                                let reach = min(length, depth)
                                var common = min(reach, 8, (head ^ pathHead).leadingZeroBitCount / 8)
                                if common == 8 {
                                    while common < reach && buf[start + common] == path[common] { common += 1 }
                                }
                                depth = common
                                pathHead &= Gazetteer.headMask(depth)
                                while depth < min(length, maxDepth) {
                                    let c = depth < 8 ? UInt8(truncatingIfNeeded: head >> (56 - 8 * depth)) : buf[start + depth]
                                    if rowsLeft <= 0 { break keys }
                                    rowsLeft -= 1
                                    let d = depth + 1
                                    let row = d * width
                                    let above = row - width
                                    var rowMin = cap
                                    if d <= k {
                                        rows[row] = d
                                        rowMin = d
                                    }
                                    let lo = max(1, d - k)
                                    let hi = min(n, d + k)
                                    if lo <= hi {
                                        for j in lo...hi {
                                            var v = min(
                                                rows[above + j] + 1, rows[row + j - 1] + 1,
                                                rows[above + j - 1] + (c == qb[j - 1] ? 0 : 1))
                                            if d > 1 && j > 1 && c == qb[j - 2] && path[d - 2] == qb[j - 1] {
                                                v = min(v, rows[above - width + j - 2] + 1)
                                            }
                                            v = min(v, cap)
                                            rows[row + j] = v
                                            rowMin = min(rowMin, v)
                                        }
                                    }
                                    // The one way below this row that bypasses it: swapping `c` with the
                                    // next byte, from the row above where `c` is the query's next byte.
                                    var swapMin = cap
                                    let swapLo = max(2, d + 1 - k)
                                    let swapHi = min(n, d + 1 + k)
                                    if rowMin > k && swapLo <= swapHi {
                                        for j in swapLo...swapHi where qb[j - 1] == c {
                                            swapMin = min(swapMin, rows[above + j - 2] + 1)
                                        }
                                    }
                                    path[depth] = c
                                    if depth < 8 { pathHead |= UInt64(c) << (56 - 8 * depth) }
                                    depth = d
                                    if prefix && rows[row + n] <= k {
                                        // Everything under this prefix completes a close enough start.
                                        let end = prefixEnd(path, depth, from: key, pathHead, buf, starts, lengths, heads, only)
                                        for each in key..<end {
                                            if found.count == limit { break keys }
                                            found.append(FuzzyKey(key: only.map { Int($0[each]) } ?? each, distance: rows[row + n]))
                                        }
                                        key = end
                                        continue keys
                                    }
                                    // Out of reach, also through a later swap of two neighbours.
                                    if rowMin > k && swapMin > k {
                                        key = prefixEnd(path, depth, from: key, pathHead, buf, starts, lengths, heads, only)
                                        continue keys
                                    }
                                }
                                if length <= maxDepth && !prefix {
                                    let distance = rows[length * width + n]
                                    if distance <= k { found.append(FuzzyKey(key: id, distance: distance)) }
                                }
                                // Longer keys under a prefix of the deepest reachable length are out of reach.
                                key =
                                    !prefix && depth == maxDepth
                                    ? prefixEnd(path, depth, from: key + 1, pathHead, buf, starts, lengths, heads, only) : key + 1
                            }
                        }
                    }
                }
            }
        }
        return found
    }

    /// Mask of the first `count` bytes of a packed key head.
    static func headMask(_ count: Int) -> UInt64 {
        count >= 8 ? ~0 : count <= 0 ? 0 : ~0 << UInt64(64 - 8 * count)
    }

    /// First key index at or after `from` that does not start with the first `count` bytes
    /// of `path`. Galloping from `from`: most ranges skipped by the walk are a few keys long,
    /// and a binary search over all the keys each time was most of the walk's cost.
    private func prefixEnd(
        _ path: UnsafeMutableBufferPointer<UInt8>, _ count: Int, from: Int, _ pathHead: UInt64,
        _ buf: UnsafeBufferPointer<UInt8>, _ starts: UnsafeBufferPointer<Int32>,
        _ lengths: UnsafeBufferPointer<UInt16>, _ heads: UnsafeBufferPointer<UInt64>,
        _ only: UnsafeBufferPointer<Int32>?
    ) -> Int {
        let mask = Gazetteer.headMask(count)
        // Whether key `i` starts with the path (keys before the end all do).
        func under(_ position: Int) -> Bool {
            let i = only.map { Int($0[position]) } ?? position
            guard Int(lengths[i]) >= count, (heads[position] ^ pathHead) & mask == 0 else { return false }
            guard count > 8 else { return true }
            let start = Int(starts[i])
            for b in 8..<count where buf[start + b] != path[b] { return false }
            return true
        }
        let total = only?.count ?? starts.count
        var lo = from
        var step = 1
        var hi = from
        while hi < total && under(hi) {
            lo = hi + 1
            hi = from + step
            step *= 2
        }
        hi = min(hi, total)
        while lo < hi {
            let mid = (lo + hi) / 2
            if under(mid) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}

extension Gazetteer {
    /// Rows of the edit-distance table that the typo search of a lookup computes (counted
    /// work, for the benchmark), and the most one query may compute.
    @_spi(Benchmark) public func typoSearchRows(lookup query: String) -> Int {
        let work = FuzzyWork()
        _ = lookup(query, limit: 5, work: work)
        return work.rows
    }

    /// The same for one type-ahead call.
    @_spi(Benchmark) public func typoSearchRows(suggest prefix: String) -> Int {
        let work = FuzzyWork(budget: FuzzyWork.suggestBudget)
        _ = suggestions(prefix: prefix, limit: 5, lookedUp: false, work: work)
        return work.rows
    }

    @_spi(Benchmark) public static var typoSearchRowBudget: Int { FuzzyWork.rowBudget }
    @_spi(Benchmark) public static var suggestRowBudget: Int { FuzzyWork.suggestBudget }
}
