import Foundation
import Testing

@testable import Localization

/// `Language` against the web app's `languages.json`, the one list of the app's languages: the
/// same tags in the same order, the same direction, and the plural categories it names are
/// the ones `pluralCategory` gives.
@Suite struct LanguageListTests {
    struct Entry: Decodable {
        let tag: String
        let name: String
        let dir: String
        let plurals: [String]
    }

    static func entries() throws -> [Entry] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/WebApp/Public/languages.json")
        return try JSONDecoder().decode([Entry].self, from: Data(contentsOf: url))
    }

    @Test func languageHasLanguagesJSONsTagsInItsOrder() throws {
        let tags = try Self.entries().map(\.tag)
        #expect(Language.allCases.map(\.tag) == tags)
    }

    @Test func eachLanguageHasItsDirectionAndPluralCategories() throws {
        let numbers = Array(0...200) + [1_000, 1_001, 1_000_000, 2_000_000, 1_000_001]
        for entry in try Self.entries() {
            let language = try #require(Language(rawValue: entry.tag))
            #expect(language.isRightToLeft == (entry.dir == "rtl"), "\(entry.tag)")
            #expect(Set(numbers.map(language.pluralCategory)) == Set(entry.plurals), "\(entry.tag)")
            #expect(Language(bestFor: entry.tag) == language)
        }
    }
}
