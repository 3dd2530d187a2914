import Foundation
import Testing

@testable import OnTheMapServer

/// Field names in `order`, `keys` and `where` are told valid without a regex when they are
/// plainly so, and `order`'s entries trimmed without Foundation when there is nothing to
/// trim: both must answer exactly as the pattern and `trimmingCharacters` do.
@Suite("Parse query names")
struct ParseQueryNamesTests {
    static let fieldPattern = try! NSRegularExpression(pattern: #"^[a-zA-Z][a-zA-Z0-9_]*$"#)
    static let keyPattern = try! NSRegularExpression(pattern: #"^[a-zA-Z][a-zA-Z0-9_\.]*$"#)

    static let samples: [String] = {
        var samples = [
            "", "a", "Z", "updatedAt", "-updatedAt", "created_at", "a1", "1a", "_a", "a_", "a.b", ".a", "a.", "a..b", "a b", " a", "a ",
            "a\t", "\ta", "a\n", "a\r\n", "a\r", "a\u{2028}", "a\u{85}", "a\u{A0}", "\u{A0}a", "é", "aé", "a-b", "a$", "$a", "a\u{0}",
            "Ａ", "a\u{3000}", "\u{3000}a", "  ", "\t", "a\u{200B}", "ab\u{301}",
        ]
        let alphabet = Array("aZ09_.-$ \t\n\u{A0}é\u{2028}")
        var generator = SystemRandomNumberGenerator()
        for length in 0..<600 {
            samples.append(String((0..<(length % 7)).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        return samples
    }()

    @Test("a name is valid exactly when the pattern says so")
    func namesAsThePatternSays() {
        for sample in Self.samples {
            #expect(ParseQuery.isFieldName(sample) == ParseQuery.matches(Self.fieldPattern, sample), "\(sample.debugDescription)")
            #expect(ParseQuery.isKeyName(sample) == ParseQuery.matches(Self.keyPattern, sample), "\(sample.debugDescription)")
        }
    }

    @Test("trimming is Foundation's")
    func trimmingAsFoundation() {
        for sample in Self.samples {
            #expect(
                ParseQuery.trimmingWhitespace(Substring(sample)) == sample.trimmingCharacters(in: .whitespaces),
                "\(sample.debugDescription)")
        }
    }
}
