import Foundation
import Testing

@testable import Localization

/// The server's and command line's catalogues and how a language is chosen.
@Suite struct CatalogueTests {
    @Test func everyCatalogueLoadsAndParses() {
        #expect(Catalogue.shared.problems.isEmpty, "\(Catalogue.shared.problems)")
        for language in Language.allCases {
            #expect(!Catalogue.shared.keys(language).isEmpty, "\(language.tag) is empty")
        }
    }

    @Test func everyLanguageHasEveryEnglishKey() {
        let english = Catalogue.shared.keys(.english)
        for language in Language.allCases where language != .english {
            let missing = english.subtracting(Catalogue.shared.keys(language))
            #expect(missing.isEmpty, "\(language.tag) lacks \(missing.sorted())")
        }
    }

    @Test func aMissingKeyFallsBackToEnglishThenToTheKey() throws {
        let catalogue = Catalogue(bundle: .module)
        #expect(catalogue.message("no.such.key", in: .german) == "no.such.key")
        let key = try #require(catalogue.keys(.english).first)
        #expect(catalogue.message(key, in: .english) != key)
    }
}

@Suite struct MessageFormatTests {
    @Test func placeholdersPluralsAndSelects() throws {
        let message = try MessageFormat("{name} has {count, plural, =0 {no pins} one {# pin} other {# pins}}")
        #expect(message.format(["name": "Ana", "count": 0], language: .english) == "Ana has no pins")
        #expect(message.format(["name": "Ana", "count": 1], language: .english) == "Ana has 1 pin")
        #expect(message.format(["name": "Ana", "count": 12345], language: .english) == "Ana has 12,345 pins")
        #expect(message.format(["name": "Ana", "count": 12345], language: .german) == "Ana has 12.345 pins")
        let select = try MessageFormat("{side, select, north {N} other {S}}")
        #expect(select.format(["side": "north"], language: .english) == "N")
        #expect(select.format(["side": "x"], language: .english) == "S")
    }

    @Test func quotingAsICUDoes() throws {
        #expect(try MessageFormat("Don't '{'braces'}' {x}").format(["x": "here"], language: .english) == "Don't {braces} here")
        #expect(try MessageFormat("it''s").format([:], language: .english) == "it's")
    }

    @Test func brokenMessagesAreRefused() {
        #expect(throws: MessageFormat.SyntaxError.self) { try MessageFormat("{count, plural, one {# pin}}") }
        #expect(throws: MessageFormat.SyntaxError.self) { try MessageFormat("a } b") }
        #expect(throws: MessageFormat.SyntaxError.self) { try MessageFormat("{count, ordinal, other {x}}") }
    }

    /// The cases every reader of the catalogues shares (the web app's tier runs the same file).
    @Test func sharedCases() throws {
        struct Cases: Decodable {
            struct Format: Decodable {
                let message: String
                let arguments: [String: Argument]
                let language: String
                let expected: String
            }
            enum Argument: Decodable {
                case text(String)
                case number(Int)
                init(from decoder: any Decoder) throws {
                    let value = try decoder.singleValueContainer()
                    if let number = try? value.decode(Int.self) {
                        self = .number(number)
                    } else {
                        self = .text(try value.decode(String.self))
                    }
                }
                var argument: MessageArgument {
                    switch self {
                    case .text(let text): .text(text)
                    case .number(let number): .number(number)
                    }
                }
            }
            let format: [Format]
            let refused: [String]
        }
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("MessageFormat/cases.json")
        let cases = try JSONDecoder().decode(Cases.self, from: Data(contentsOf: file))
        #expect(cases.format.count > 20)
        for item in cases.format {
            let language = try #require(Language(rawValue: item.language))
            let formatted = try MessageFormat(item.message).format(item.arguments.mapValues(\.argument), language: language)
            #expect(formatted == item.expected, "\(item.message) in \(item.language)")
        }
        for message in cases.refused {
            #expect(throws: MessageFormat.SyntaxError.self, "\(message)") { try MessageFormat(message) }
        }
    }

    @Test func pluralCategoriesAreCLDRs() {
        #expect(
            [0, 1, 2, 3, 11, 100, 102, 103].map(Language.arabic.pluralCategory) == [
                "zero", "one", "two", "few", "many", "other", "other", "few",
            ])
        #expect(Language.french.pluralCategory(0) == "one")
        #expect(Language.english.pluralCategory(0) == "other")
        #expect(Language.spanish.pluralCategory(1_000_000) == "many")
        #expect(Language.chineseSimplified.pluralCategory(1) == "other")
        #expect(Language.hindi.pluralCategory(0) == "one")
    }
}

@Suite struct LanguageChoiceTests {
    @Test func acceptLanguageByQualityThenOrder() {
        #expect(Language.preferred(acceptLanguage: nil) == .english)
        #expect(Language.preferred(acceptLanguage: "de-DE,de;q=0.9,en;q=0.8") == .german)
        #expect(Language.preferred(acceptLanguage: "sv, ar;q=0.5, fr;q=0.7") == .french)
        #expect(Language.preferred(acceptLanguage: "pt-PT") == .portugueseBrazil)
        #expect(Language.preferred(acceptLanguage: "zh-CN,zh;q=0.9") == .chineseSimplified)
        #expect(Language.preferred(acceptLanguage: "es;q=0, hi") == .hindi)
        #expect(Language.preferred(acceptLanguage: "sv, nb") == .english)
    }

    @Test func environmentAsGettextReadsIt() {
        #expect(Language.preferred(environment: [:]) == .english)
        #expect(Language.preferred(environment: ["LANG": "de_DE.UTF-8"]) == .german)
        #expect(Language.preferred(environment: ["LANG": "de_DE.UTF-8", "LC_MESSAGES": "es_MX.UTF-8"]) == .spanish)
        #expect(Language.preferred(environment: ["LANG": "de_DE.UTF-8", "LC_ALL": "fr_FR.UTF-8@euro"]) == .french)
        #expect(Language.preferred(environment: ["LANG": "C.UTF-8", "LANGUAGE": "es"]) == .english)
        #expect(Language.preferred(environment: ["LANG": "en_US.UTF-8", "LANGUAGE": "sv:pt_BR:en"]) == .portugueseBrazil)
        #expect(Language.preferred(environment: ["LANG": "POSIX"]) == .english)
        #expect(Language.preferred(environment: ["LANG": "ar_EG.UTF-8"]) == .arabic)
    }
}
