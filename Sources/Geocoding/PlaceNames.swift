import Foundation

/// Country names and the names of large cities in many languages (Resources/place-names.tsv,
/// from the Unicode CLDR by Scripts/build-place-names.py). They let the geocoder read
/// "القاهرة، مصر", "北京，中国" or "Múnich, Alemania" as it reads "Cairo, Egypt", and name a
/// place in the reader's language when it answers. Empty if the file is missing: names then
/// stay in the gazetteer's spelling.
struct PlaceNames: Sendable {
    /// Normalized name -> entry ids (countries and cities), for reading queries.
    var entriesByKey: [String: [Int]] = [:]
    /// Normalized country name -> country indices, for reading qualifiers ("…، مصر").
    var countriesByKey: [String: [Int32]] = [:]
    /// Entry id -> language tag -> display name.
    var labels: [Int: [String: String]] = [:]

    static let empty = PlaceNames()

    static var bundledURL: URL? {
        Bundle.module.url(forResource: "place-names", withExtension: "tsv", subdirectory: "Resources")
            ?? Bundle.module.url(forResource: "place-names", withExtension: "tsv")
    }

    /// Reads the file; `country(code)` gives a country's index, `city(country, key)` the
    /// place a city line stands for (nil when the gazetteer has no such place).
    static func load(
        from url: URL?, country: (String) -> Int?, countryEntry: (Int) -> Int,
        city: (_ country: Int, _ englishKey: String) -> Int?
    ) -> PlaceNames {
        guard let url, let text = try? String(contentsOf: url, encoding: .utf8) else { return .empty }
        var names = PlaceNames()
        var cityCache: [String: Int?] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            switch fields.first {
            case "country" where fields.count == 4:
                guard let index = country(fields[1]) else { continue }
                let entry = countryEntry(index)
                names.add(entry: entry, language: fields[2], name: fields[3])
                let key = Normalizer.key(fields[3])
                if !key.isEmpty, !(names.countriesByKey[key]?.contains(Int32(index)) ?? false) {
                    names.countriesByKey[key, default: []].append(Int32(index))
                }
            case "city" where fields.count == 5:
                guard let index = country(fields[1]) else { continue }
                let cacheKey = fields[1] + "\t" + fields[2]
                let place: Int?
                if let cached = cityCache[cacheKey] {
                    place = cached
                } else {
                    place = city(index, Normalizer.key(fields[2]))
                    cityCache[cacheKey] = place
                }
                guard let place else { continue }
                names.add(entry: place, language: fields[3], name: fields[4])
            default:
                continue
            }
        }
        return names
    }

    private mutating func add(entry: Int, language: String, name: String) {
        labels[entry, default: [:]][language] = name
        let key = Normalizer.key(name)
        guard !key.isEmpty else { return }
        if !(entriesByKey[key]?.contains(entry) ?? false) {
            entriesByKey[key, default: []].append(entry)
        }
    }

    /// The entry's name in `language` ("pt-BR" falls back to "pt"), if the data has one.
    func label(_ entry: Int, language: String?) -> String? {
        guard let language, let names = labels[entry] else { return nil }
        if let exact = names[language] { return exact }
        guard let base = language.split(separator: "-").first.map(String.init), base != language else { return nil }
        return names[base]
    }
}

/// How the names of an answer are written for a reader.
struct DisplayLanguage: Sendable {
    let tag: String

    /// Languages not written in Latin letters: a region's Latin transliteration is left out
    /// of a name shown in them ("القاهرة، مصر", not "القاهرة، Muhafazat al Qahirah، مصر").
    static let nonLatin: Set<String> = [
        "ar", "fa", "ur", "he", "hi", "mr", "bn", "ta", "te", "zh", "ja", "ko", "ru", "uk", "el", "th",
    ]

    var base: String { String(tag.split(separator: "-").first ?? "") }
    var isLatin: Bool { !Self.nonLatin.contains(base) }

    /// The list separator a name's parts are joined with.
    var separator: String {
        switch base {
        case "ar", "fa", "ur": return "، "
        case "zh", "ja": return "，"
        default: return ", "
        }
    }
}
