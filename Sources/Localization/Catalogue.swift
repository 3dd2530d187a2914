import Foundation

/// The server's and the command line's messages (Catalogues/<tag>.json: flat keys to
/// ICU-style messages, the web app's format, checked by the same test), read once.
public struct Catalogue: Sendable {
    /// Every language's catalogue, loaded from the module's resources.
    public static let shared = Catalogue(bundle: .module)

    private let messages: [Language: [String: MessageFormat]]
    /// Messages that did not parse, by "tag key" (a test requires none).
    public let problems: [String]

    init(bundle: Bundle) {
        var messages: [Language: [String: MessageFormat]] = [:]
        var problems: [String] = []
        for language in Language.allCases {
            guard let url = bundle.url(forResource: language.tag, withExtension: "json", subdirectory: "Catalogues"),
                let data = try? Data(contentsOf: url),
                let raw = try? JSONDecoder().decode([String: String].self, from: data)
            else {
                problems.append("\(language.tag): catalogue missing or not flat JSON")
                continue
            }
            var parsed: [String: MessageFormat] = [:]
            for (key, text) in raw {
                do { parsed[key] = try MessageFormat(text) } catch { problems.append("\(language.tag) \(key): \(error)") }
            }
            messages[language] = parsed
        }
        self.messages = messages
        self.problems = problems
    }

    /// The keys of `language`'s catalogue.
    public func keys(_ language: Language) -> Set<String> {
        Set(messages[language]?.keys.map { $0 } ?? [])
    }

    /// `key`'s message in `language`, else in English, else the key itself.
    public func message(_ key: String, _ arguments: [String: MessageArgument] = [:], in language: Language) -> String {
        if let message = messages[language]?[key] { return message.format(arguments, language: language) }
        if let message = messages[.english]?[key] { return message.format(arguments, language: .english) }
        return key
    }

    /// Whether `language` itself has `key` (not through English).
    public func has(_ key: String, in language: Language) -> Bool {
        messages[language]?[key] != nil
    }
}

/// Messages in one language: `translate("cli.login.done", ["name": "Ana"])`.
public struct Translator: Sendable {
    public let language: Language
    private let catalogue: Catalogue

    public init(_ language: Language, catalogue: Catalogue = .shared) {
        self.language = language
        self.catalogue = catalogue
    }

    public func callAsFunction(_ key: String, _ arguments: [String: MessageArgument] = [:]) -> String {
        catalogue.message(key, arguments, in: language)
    }

    /// Whether this language has its own message for `key`.
    public func has(_ key: String) -> Bool { catalogue.has(key, in: language) }
}
