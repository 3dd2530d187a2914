import Foundation
import Storage
import Testing

@testable import OnTheMapServer

/// The web app's class options (`js/classOptions.js`: each option's choices and a new class's
/// choice) and the OpenAPI document's `ClassCreateRequest` defaults are the server's: the
/// enums' cases, in order, and `MapClass.NewClass`, what `POST /api/classes` makes without them.
@Suite("Class options: the web app and the document agree with the server")
struct ClassOptionsTests {
    /// Each option of classOptions.js's CLASS_OPTIONS: its `default` and its choices' values.
    static func webAppOptions() throws -> [String: (default: String, choices: [String])] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/WebApp/Public/js/classOptions.js")
        let source = try String(contentsOf: url, encoding: .utf8)
        let block = try #require(source.range(of: #"CLASS_OPTIONS = \{[\s\S]*?\n\};"#, options: .regularExpression))
        let options = String(source[block])
        var found: [String: (default: String, choices: [String])] = [:]
        let option = try NSRegularExpression(pattern: #"\n  (\w+): \{\n([\s\S]*?)\n  \},"#)
        let value = try NSRegularExpression(pattern: #"\{ value: '([^']+)'"#)
        let initial = try NSRegularExpression(pattern: #"\n    default: '([^']+)',"#)
        func text(_ range: NSRange, _ string: String) -> String { String(string[Range(range, in: string)!]) }
        for match in option.matches(in: options, range: NSRange(options.startIndex..., in: options)) {
            let name = text(match.range(at: 1), options)
            let body = text(match.range(at: 2), options)
            let whole = NSRange(body.startIndex..., in: body)
            let chosen = try #require(initial.firstMatch(in: body, range: whole), "\(name) has no default")
            found[name] = (
                text(chosen.range(at: 1), body), value.matches(in: body, range: whole).map { text($0.range(at: 1), body) }
            )
        }
        return found
    }

    @Test("classOptions.js's choices are the server's, in order, and a new class's are MapClass.NewClass")
    func webAppOptionsAreTheServers() throws {
        let options = try Self.webAppOptions()
        #expect(options.keys.sorted() == ["approval", "join", "precision", "visibility"])
        #expect(options["visibility"]?.choices == MapClass.Visibility.allCases.map(\.rawValue))
        #expect(options["join"]?.choices == MapClass.JoinRule.allCases.map(\.rawValue))
        #expect(options["precision"]?.choices == MapClass.Precision.allCases.map(\.rawValue))
        #expect(options["approval"]?.choices == MapClass.Approval.allCases.map(\.rawValue))
        #expect(options["visibility"]?.default == MapClass.NewClass.visibility.rawValue)
        #expect(options["join"]?.default == MapClass.NewClass.joinRule.rawValue)
        #expect(options["precision"]?.default == MapClass.NewClass.precision.rawValue)
        #expect(options["approval"]?.default == MapClass.NewClass.approval.rawValue)
    }

    @Test("the OpenAPI document's ClassCreateRequest defaults are MapClass.NewClass")
    func documentDefaultsAreTheServers() throws {
        let document = try OpenAPIDocumentTests.document()
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let create = try #require((schemas["ClassCreateRequest"] as? [String: Any])?["properties"] as? [String: Any])
        func initial(_ name: String) -> String? { (create[name] as? [String: Any])?["default"] as? String }
        #expect(initial("visibility") == MapClass.NewClass.visibility.rawValue)
        #expect(initial("join") == MapClass.NewClass.joinRule.rawValue)
        #expect(initial("precision") == MapClass.NewClass.precision.rawValue)
        #expect(initial("approval") == MapClass.NewClass.approval.rawValue)
    }

    @Test("a class made with no choices is MapClass.NewClass")
    func initDefaultsAreNewClass() {
        let made = MapClass(id: "x", slug: "x", name: "x", createdAt: Date(timeIntervalSince1970: 0))
        #expect(made.visibility == MapClass.NewClass.visibility)
        #expect(made.joinRule == MapClass.NewClass.joinRule)
        #expect(made.precision == MapClass.NewClass.precision)
        #expect(made.approval == MapClass.NewClass.approval)
    }
}
