// Geocoder benchmark: load time, resident memory, throughput, p99 latency, accuracy.
//
//   swift run -c release geocoder-benchmark            # full report
//   swift run -c release geocoder-benchmark -- "Paris, TX" München   # try queries
//   GEOCODER_LANGUAGE=ar swift run -c release geocoder-benchmark -- Cairo   # names in Arabic
//
// Targets: load < 0.5 s, < 150 MB resident, p99 < 2 ms per query.

import Foundation
import GeocoderAccuracySuite
@_spi(Benchmark) import Geocoding

func residentKB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func percentile(_ sorted: [UInt64], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let i = min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)
    return Double(sorted[max(i, 0)]) / 1000
}

struct Stats {
    var name: String
    var latencies: [UInt64] = []
    var total: UInt64 = 0
    var description: String {
        let s = latencies.sorted()
        let perSecond = Double(latencies.count) / (Double(total) / 1e9)
        return String(
            format: "%-24@ %8d ops  %10.0f ops/s  p50 %7.1f µs  p99 %7.1f µs  max %8.1f µs",
            name as NSString, latencies.count, perSecond, percentile(s, 0.5), percentile(s, 0.99),
            Double(s.last ?? 0) / 1000)
    }
}

/// Times `body` once per item, `rounds` times over the items.
func measure<T>(_ name: String, _ items: [T], rounds: Int, _ body: (T) -> Int) -> Stats {
    var stats = Stats(name: name)
    stats.latencies.reserveCapacity(items.count * rounds)
    var sink = 0
    for item in items.prefix(50) { sink &+= body(item) }  // warm-up
    let start = now()
    for _ in 0..<rounds {
        for item in items {
            let t = now()
            sink &+= body(item)
            stats.latencies.append(now() - t)
        }
    }
    stats.total = now() - start
    if sink == Int.min { print(sink) }
    return stats
}

let arguments = Array(CommandLine.arguments.dropFirst())
let rssBefore = residentKB()
let loadStart = now()
let gazetteer = try Gazetteer.bundled()
let loadSeconds = Double(now() - loadStart) / 1e9
let rssAfter = residentKB()

if !arguments.isEmpty {
    for q in arguments {
        print("\(q) ->")
        for r in gazetteer.lookup(q, limit: 5, language: ProcessInfo.processInfo.environment["GEOCODER_LANGUAGE"]) {
            print(
                String(
                    format: "   %@  (%.4f, %.4f) %@ conf %.1f span %.2f x %.2f", r.name, r.latitude, r.longitude,
                    r.kind.rawValue, r.confidence, r.span.latitudeDelta, r.span.longitudeDelta))
        }
    }
    exit(0)
}

let cases = try AccuracySuite.bundled()

// Accuracy
var correct = 0
var byCategory: [String: (ok: Int, all: Int)] = [:]
var failures: [String] = []
for c in cases {
    let results = gazetteer.lookup(c.query, limit: 5)
    let ok = c.isAnswered(by: results)
    correct += ok ? 1 : 0
    byCategory[c.category, default: (0, 0)].all += 1
    byCategory[c.category, default: (0, 0)].ok += ok ? 1 : 0
    if !ok { failures.append("\(c.query) -> \(results.first?.name ?? "nothing")") }
}

// Workloads
let queries = cases.map(\.query)
let prefixes =
    queries.compactMap { q -> String? in
        let t = q.trimmingCharacters(in: .whitespaces)
        return t.count >= 3 ? String(t.prefix(max(1, t.count / 2))) : nil
    } + ["s", "m", "sa", "ber", "new", "lon"]
// GEOCODER_SLOWEST=1: the slowest queries of each workload, to find the tail.
if ProcessInfo.processInfo.environment["GEOCODER_SLOWEST"] != nil {
    func slowest(_ name: String, _ items: [String], rows: (String) -> Int, _ body: (String) -> Int) {
        var sink = 0
        let timed = items.map { q -> (String, UInt64) in
            var best = UInt64.max
            for _ in 0..<3 {
                let t = now()
                sink &+= body(q)
                best = min(best, now() - t)
            }
            return (q, best)
        }.sorted { $0.1 > $1.1 }
        print("\(name): slowest of \(items.count) (time, rows of the typo search)")
        for (q, t) in timed.prefix(25) {
            print(String(format: "  %9.1f µs  %7d rows  %@", Double(t) / 1000, rows(q), q))
        }
        if sink == Int.min { print(sink) }
    }
    slowest("geocode", queries, rows: { gazetteer.typoSearchRows(lookup: $0) }) { gazetteer.lookup($0, limit: 5).count }
    slowest("suggest", prefixes, rows: { gazetteer.typoSearchRows(suggest: $0) }) { gazetteer.suggestions(prefix: $0, limit: 5).count }
    exit(0)
}
var rng = SystemRandomNumberGenerator()
let points: [(Double, Double)] = (0..<2000).map { _ in
    (Double.random(in: -60...70, using: &rng), Double.random(in: -180...180, using: &rng))
}
enum Op {
    case geocode(String)
    case suggest(String)
    case reverse(Double, Double)
}
var mixed: [Op] = []
for i in 0..<3000 {
    switch i % 10 {
    case 0..<6: mixed.append(.geocode(queries[i % queries.count]))
    case 6..<9: mixed.append(.suggest(prefixes[i % prefixes.count]))
    default:
        let p = points[i % points.count]
        mixed.append(.reverse(p.0, p.1))
    }
}

let geocodeStats = measure("geocode (suite)", queries, rounds: 50) { gazetteer.lookup($0, limit: 5).count }
// What students type: misspellings, qualifiers without commas, addresses, postcodes, scripts.
let hardCategories: Set<String> = ["typo", "wordorder", "address", "postcode", "script", "hanzi", "nonsense"]
let hardQueries = cases.filter { hardCategories.contains($0.category) }.map(\.query)
let hardStats = measure("geocode (typed forms)", hardQueries, rounds: 50) { gazetteer.lookup($0, limit: 5).count }
let suggestStats = measure("suggest (prefixes)", prefixes, rounds: 50) { gazetteer.suggestions(prefix: $0, limit: 5).count }
let reverseStats = measure("reverse (random land+sea)", points, rounds: 5) {
    gazetteer.nearest(latitude: $0.0, longitude: $0.1) == nil ? 0 : 1
}
let mixedStats = measure("mixed 60/30/10", mixed, rounds: 10) { op -> Int in
    switch op {
    case .geocode(let q): return gazetteer.lookup(q, limit: 5).count
    case .suggest(let p): return gazetteer.suggestions(prefix: p, limit: 5).count
    case .reverse(let la, let lo): return gazetteer.nearest(latitude: la, longitude: lo) == nil ? 0 : 1
    }
}

// Two threads, to show the shared instance scales (the machine has 2 cores).
let parallelStart = now()
let perThread = 20
DispatchQueue.concurrentPerform(iterations: 2) { _ in
    for _ in 0..<perThread { for q in queries { _ = gazetteer.lookup(q, limit: 5) } }
}
let parallelSeconds = Double(now() - parallelStart) / 1e9
let parallelRate = Double(2 * perThread * queries.count) / parallelSeconds

let dataFile = Gazetteer.bundledURL.flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int } ?? 0
print("Geocoder benchmark (release build expected)")
print(
    String(
        format: "data file            %.2f MB (%d places, %d regions, %d countries, %d index keys, %d postcodes)",
        Double(dataFile) / 1e6, gazetteer.placeCount, gazetteer.regionCount, gazetteer.countryCount, gazetteer.keyCount,
        gazetteer.postcodeCount))
print(String(format: "load time            %.3f s   (target < 0.5 s)", loadSeconds))
print(
    String(
        format: "resident memory      %.1f MB held by the gazetteer (VmRSS %.1f -> %.1f MB; target < 150 MB)",
        Double(rssAfter - rssBefore) / 1024, Double(rssBefore) / 1024, Double(rssAfter) / 1024))
print(geocodeStats.description)
print(hardStats.description)
print(suggestStats.description)
print(reverseStats.description)
print(mixedStats.description)
// Counted work: rows of the typo search's edit-distance table per query (deterministic).
let geocodeRows = queries.map { gazetteer.typoSearchRows(lookup: $0) }
let suggestRows = prefixes.map { gazetteer.typoSearchRows(suggest: $0) }
print(
    String(
        format: "typo search rows     geocode max %d (budget %d), suggest max %d per query (budget %d)",
        geocodeRows.max() ?? 0, Gazetteer.typoSearchRowBudget, suggestRows.max() ?? 0, Gazetteer.suggestRowBudget))
print(String(format: "geocode, 2 threads   %10.0f ops/s", parallelRate))
print(
    String(
        format: "accuracy             %d/%d = %.1f%% (top result within the case's radius; nonsense must give nothing)",
        correct, cases.count, 100 * Double(correct) / Double(cases.count)))
for (category, r) in byCategory.sorted(by: { $0.key < $1.key }) {
    print("  \(category.padding(toLength: 12, withPad: " ", startingAt: 0)) \(r.ok)/\(r.all)")
}
for f in failures { print("  FAIL \(f)") }
// Confidence: real places answered surely enough to pre-select; no-place queries never.
let real = cases.filter { $0.latitude != nil }
let sure = real.filter { c in
    let results = gazetteer.lookup(c.query, limit: 5)
    return c.isAnswered(by: results) && (results.first?.confidence ?? 0) >= AccuracySuite.confident
}
print(
    String(
        format: "confident and right   %d/%d = %.1f%% of real places (top result right, confidence >= %.1f: pre-selected)",
        sure.count, real.count, 100 * Double(sure.count) / Double(max(real.count, 1)), AccuracySuite.confident))
let noPlace = try AccuracySuite.noPlace()
let fooled = noPlace.filter { (gazetteer.lookup($0.query, limit: 5).first?.confidence ?? 0) >= AccuracySuite.confident }
let silent = noPlace.filter { gazetteer.lookup($0.query, limit: 5).isEmpty }
print(
    String(
        format: "no-place set          %d queries: %d confident (must be 0), %d with no result, %d offered as a guess",
        noPlace.count, fooled.count, silent.count, noPlace.count - fooled.count - silent.count))
for f in fooled { print("  CONFIDENT \(f.query) -> \(gazetteer.lookup(f.query, limit: 1).first?.name ?? "")") }
print(String(format: "VmRSS at end        %.1f MB", Double(residentKB()) / 1024))
