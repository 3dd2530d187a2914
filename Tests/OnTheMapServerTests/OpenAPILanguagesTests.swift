import Foundation
import Testing

@testable import OnTheMapServer

/// The document's account languages are the web app's `languages.json`, the one list of them.
@Suite("OpenAPI document: languages")
struct OpenAPILanguagesTests {
    struct Entry: Decodable { let tag: String }

    @Test("every language enum of the document is languages.json's tags, then null")
    func languageEnumsAreTheList() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/WebApp/Public/languages.json")
        let tags = try JSONDecoder().decode([Entry].self, from: Data(contentsOf: url)).map(\.tag)
        let document = try OpenAPIDocumentTests.document()
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let choice = try #require(schemas["LanguageChoice"] as? [String: Any])
        var enums = [try #require(Self.languageEnum(choice))]
        for (_, schema) in schemas {
            if let properties = (schema as? [String: Any])?["properties"] as? [String: Any],
                let account = properties["account"] as? [String: Any], let found = Self.languageEnum(account)
            {
                enums.append(found)
            }
        }
        #expect(enums.count >= 2)
        for values in enums {
            #expect(values.compactMap { $0 as? String } == tags)
            #expect(values.last is NSNull)
        }
    }

    /// The enum of a schema's `language` property.
    static func languageEnum(_ schema: [String: Any]) -> [Any]? {
        ((schema["properties"] as? [String: Any])?["language"] as? [String: Any])?["enum"] as? [Any]
    }
}
