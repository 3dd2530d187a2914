import Foundation
import Geocoding

/// One query of the accuracy suite (Resources/accuracy-suite.tsv), shared by the tests
/// and the benchmark so both measure the same thing.
public struct AccuracyCase: Sendable, CustomStringConvertible {
    public var category: String
    public var query: String
    /// Expected point; nil for nonsense that must give no result.
    public var latitude: Double?
    public var longitude: Double?
    public var radiusKm: Double

    public var description: String { "[\(category)] \(query)" }

    /// Whether `results` (best first) answer this case.
    public func isAnswered(by results: [GeocodeResult]) -> Bool {
        guard let latitude, let longitude else { return results.isEmpty }
        guard let top = results.first else { return false }
        return Gazetteer.distanceKm(latitude, longitude, top.latitude, top.longitude) <= radiusKm
    }

    /// Distance of the top result from the expected point, if both exist.
    public func errorKm(_ results: [GeocodeResult]) -> Double? {
        guard let latitude, let longitude, let top = results.first else { return nil }
        return Gazetteer.distanceKm(latitude, longitude, top.latitude, top.longitude)
    }
}

public enum AccuracySuite {
    /// The suite shipped with this module.
    public static func bundled() throws -> [AccuracyCase] {
        guard
            let url = Bundle.module.url(forResource: "accuracy-suite", withExtension: "tsv", subdirectory: "Resources")
                ?? Bundle.module.url(forResource: "accuracy-suite", withExtension: "tsv")
        else {
            throw GeocodingError.invalidData("accuracy-suite.tsv not found in Bundle.module")
        }
        return try parse(String(contentsOf: url, encoding: .utf8))
    }

    /// Queries that name no place (Resources/no-place-suite.tsv) as (category, query): none
    /// may get a confident answer.
    public static func noPlace() throws -> [(category: String, query: String)] {
        guard
            let url = Bundle.module.url(forResource: "no-place-suite", withExtension: "tsv", subdirectory: "Resources")
                ?? Bundle.module.url(forResource: "no-place-suite", withExtension: "tsv")
        else {
            throw GeocodingError.invalidData("no-place-suite.tsv not found in Bundle.module")
        }
        return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let f = line.split(separator: "\t", maxSplits: 1).map(String.init)
            guard f.count == 2 else { throw GeocodingError.invalidData("bad no-place line: \(line)") }
            return (f[0], f[1])
        }
    }

    /// An answer the app may pre-select: the geocoder is at least this sure.
    public static let confident = 0.8

    /// Parses "category<TAB>query<TAB>lat<TAB>lon<TAB>radius_km" lines; "#" starts a comment.
    public static func parse(_ text: String) throws -> [AccuracyCase] {
        var cases: [AccuracyCase] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("#") { continue }
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 5, let radius = Double(f[4]) else {
                throw GeocodingError.invalidData("bad accuracy suite line: \(line)")
            }
            cases.append(AccuracyCase(category: f[0], query: f[1], latitude: Double(f[2]), longitude: Double(f[3]), radiusKm: radius))
        }
        return cases
    }
}
