import Foundation
import Testing

@testable import OnTheMapServer

@Suite("Optionals written as null")
struct ExplicitNullTests {
    struct Answer: Codable {
        let name: String
        @ExplicitNull var lastPostAt: String?
        var note: String?
    }

    func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test("a nil is written as null where a plain optional is left out; a value as itself")
    func encodes() throws {
        #expect(try json(Answer(name: "a", lastPostAt: nil, note: nil)) == #"{"lastPostAt":null,"name":"a"}"#)
        #expect(try json(Answer(name: "a", lastPostAt: "2026-01-01", note: "n")) == #"{"lastPostAt":"2026-01-01","name":"a","note":"n"}"#)
        // The answers that carry it: the course roster before its first sync, a class with no teacher.
        #expect(try json(LTIController.RosterView(synced_at: nil, members: [])) == #"{"members":[],"synced_at":null}"#)
        #expect(try json(InviteView(slug: "s", name: "n", teacher: nil, archived: false)).contains(#""teacher":null"#))
    }

    @Test("read back, null and a missing key are nil; a wrong type is refused")
    func decodes() throws {
        let decoder = JSONDecoder()
        #expect(try decoder.decode(Answer.self, from: Data(#"{"name":"a","lastPostAt":null}"#.utf8)).lastPostAt == nil)
        #expect(try decoder.decode(Answer.self, from: Data(#"{"name":"a"}"#.utf8)).lastPostAt == nil)
        #expect(try decoder.decode(Answer.self, from: Data(#"{"name":"a","lastPostAt":"x"}"#.utf8)).lastPostAt == "x")
        #expect(throws: DecodingError.self) { try decoder.decode(Answer.self, from: Data(#"{"name":"a","lastPostAt":5}"#.utf8)) }
    }
}
