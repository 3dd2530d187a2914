import Foundation

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
    func fuzzyKeys(_ query: String, maxDistance: Int, prefix: Bool = false) -> [FuzzyKey] {
        let q = Array(query.utf8)
        let n = q.count
        guard n > 0, maxDistance > 0, !keyStart.isEmpty else { return [] }
        let width = n + 1
        let maxDepth = n + maxDistance
        var rows = [Int](repeating: 0, count: width * (maxDepth + 1))
        for j in 0...n { rows[j] = j }
        var path: [UInt8] = []
        path.reserveCapacity(maxDepth)
        var found: [FuzzyKey] = []
        let keyCount = keyStart.count

        bytes.withUnsafeBufferPointer { buf in
            q.withUnsafeBufferPointer { qb in
                var k = 0
                keys: while k < keyCount {
                    let start = Int(keyStart[k]), length = Int(keyLength[k])
                    var common = 0
                    while common < min(length, path.count) && buf[start + common] == path[common] { common += 1 }
                    path.removeLast(path.count - common)
                    while path.count < min(length, maxDepth) {
                        let c = buf[start + path.count]
                        let d = path.count + 1
                        let row = d * width, above = row - width
                        rows[row] = d
                        var rowMin = d
                        for j in 1...n {
                            var v = min(rows[above + j] + 1, rows[row + j - 1] + 1,
                                        rows[above + j - 1] + (c == qb[j - 1] ? 0 : 1))
                            if d > 1 && j > 1 && c == qb[j - 2] && path[d - 2] == qb[j - 1] {
                                v = min(v, rows[above - width + j - 2] + 1)
                            }
                            rows[row + j] = v
                            rowMin = min(rowMin, v)
                        }
                        path.append(c)
                        if prefix && rows[row + n] <= maxDistance {
                            // Everything under this prefix completes a close enough start.
                            let end = prefixEnd(path, from: k, buf)
                            for key in k..<end { found.append(FuzzyKey(key: key, distance: rows[row + n])) }
                            k = end
                            continue keys
                        }
                        // Out of reach, also through a later swap of two neighbours.
                        if rowMin > maxDistance && (d < 2 || minimum(rows, from: above, count: width) >= maxDistance) {
                            k = prefixEnd(path, from: k, buf)
                            continue keys
                        }
                    }
                    if length <= maxDepth && !prefix {
                        let distance = rows[length * width + n]
                        if distance <= maxDistance { found.append(FuzzyKey(key: k, distance: distance)) }
                    }
                    k += 1
                }
            }
        }
        return found
    }

    private func minimum(_ values: [Int], from start: Int, count: Int) -> Int {
        var m = Int.max
        for i in start..<(start + count) { m = min(m, values[i]) }
        return m
    }

    /// First key index at or after `from` that does not start with `path`.
    private func prefixEnd(_ path: [UInt8], from: Int, _ buf: UnsafeBufferPointer<UInt8>) -> Int {
        path.withUnsafeBufferPointer { p in
            var lo = from, hi = keyStart.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if compareKey(mid, p, prefix: true, buf) <= 0 { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
    }
}
