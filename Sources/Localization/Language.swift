import Foundation

/// A language OnTheMap speaks: those of the web app's `languages.json` (the one list of them),
/// by the same tags, in its order (LanguageListTests keeps them in step).
public enum Language: String, CaseIterable, Sendable, Codable {
    case english = "en"
    case spanish = "es"
    case french = "fr"
    case portugueseBrazil = "pt-BR"
    case german = "de"
    case chineseSimplified = "zh-Hans"
    case hindi = "hi"
    case arabic = "ar"

    /// Its BCP 47 tag ("pt-BR").
    public var tag: String { rawValue }

    public var isRightToLeft: Bool { self == .arabic }

    /// The language a tag asks for: the tag itself ("pt-BR", any case), else its primary subtag
    /// ("de-AT" → de, "pt-PT" → pt-BR, "zh-TW" → zh-Hans), else nil.
    public init?(bestFor tag: String) {
        let lower = tag.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "-").lowercased()
        if let exact = Language.allCases.first(where: { $0.rawValue.lowercased() == lower }) {
            self = exact
            return
        }
        switch lower.split(separator: "-").first.map(String.init) {
        case "en": self = .english
        case "es": self = .spanish
        case "fr": self = .french
        case "pt": self = .portugueseBrazil
        case "de": self = .german
        case "zh": self = .chineseSimplified
        case "hi": self = .hindi
        case "ar": self = .arabic
        default: return nil
        }
    }

    /// The language an HTTP `Accept-Language` header prefers among ours (by quality, then
    /// order; `q=0` refuses one), or English when it names none of them.
    public static func preferred(acceptLanguage header: String?) -> Language {
        guard let header, !header.isEmpty else { return .english }
        var ranked: [(language: Language, quality: Double, index: Int)] = []
        for (index, item) in header.split(separator: ",").prefix(32).enumerated() {
            let fields = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let range = fields.first, let language = Language(bestFor: range) else { continue }
            var quality = 1.0
            for field in fields.dropFirst() where field.lowercased().hasPrefix("q=") {
                quality = Double(field.dropFirst(2)) ?? 0
            }
            if quality > 0 { ranked.append((language, quality, index)) }
        }
        return ranked.sorted { $0.quality != $1.quality ? $0.quality > $1.quality : $0.index < $1.index }.first?.language ?? .english
    }

    /// The language of a command line's messages, as POSIX and GNU gettext pick it: `LANGUAGE`
    /// (a colon-separated list) unless the locale is C, then `LC_ALL`, `LC_MESSAGES`, `LANG`
    /// ("de_DE.UTF-8" → German); English for C, POSIX or a language we do not have.
    public static func preferred(environment: [String: String]) -> Language {
        let locale = [environment["LC_ALL"], environment["LC_MESSAGES"], environment["LANG"]]
            .compactMap { $0 }.first { !$0.isEmpty }
        let name = locale.map(Self.localeName) ?? ""
        if name == "C" || name == "POSIX" { return .english }
        if let list = environment["LANGUAGE"], !list.isEmpty {
            for item in list.split(separator: ":") {
                if let language = Language(bestFor: Self.localeName(String(item))) { return language }
            }
        }
        return Language(bestFor: name) ?? .english
    }

    /// "de_DE.UTF-8@euro" → "de_DE".
    private static func localeName(_ value: String) -> String {
        String(value.split(separator: ".", maxSplits: 1).first?.split(separator: "@", maxSplits: 1).first ?? "")
    }

    /// CLDR's plural category of a whole number in this language ("one", "few", …), as
    /// `Intl.PluralRules` gives it in the browser.
    public func pluralCategory(_ number: Int) -> String {
        let n = abs(number)
        let million = n != 0 && n % 1_000_000 == 0
        switch self {
        case .english, .german: return n == 1 ? "one" : "other"
        case .spanish: return n == 1 ? "one" : million ? "many" : "other"
        case .french, .portugueseBrazil: return n <= 1 ? "one" : million ? "many" : "other"
        case .hindi: return n <= 1 ? "one" : "other"
        case .chineseSimplified: return "other"
        case .arabic:
            switch n {
            case 0: return "zero"
            case 1: return "one"
            case 2: return "two"
            default:
                switch n % 100 {
                case 3...10: return "few"
                case 11...99: return "many"
                default: return "other"
                }
            }
        }
    }

    /// 12345 as this language writes it ("12,345"; "12.345"; "12 345").
    public func formatNumber(_ number: Int) -> String {
        number.formatted(.number.locale(Locale(identifier: rawValue)))
    }
}
