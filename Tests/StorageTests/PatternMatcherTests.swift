import Foundation
import Testing

@testable import Storage

/// The `$regex` matcher SQLite uses: the usual meaning on the patterns clients send, no
/// explosion on the patterns attackers send, and a clear refusal of what it cannot bound.
struct PatternMatcherTests {
    private func matches(_ pattern: String, _ text: String, _ options: String = "") throws -> Bool {
        try PatternMatcher(pattern: pattern, options: options).matches(text)
    }

    @Test("literals, dot, anchors and escapes mean what they mean in ICU")
    func basics() throws {
        #expect(try matches("Bos", "Boston, MA"))
        #expect(try matches("ton", "Boston, MA"))
        #expect(try !matches("bos", "Boston, MA"))
        #expect(try matches("^Bos", "Boston, MA"))
        #expect(try !matches("^ton", "Boston, MA"))
        #expect(try matches("MA$", "Boston, MA"))
        #expect(try matches("MA$", "Boston, MA\n"))
        #expect(try !matches("Boston$", "Boston, MA"))
        #expect(try matches("^$", ""))
        #expect(try matches("", "anything"))
        #expect(try matches("B.s", "Bos"))
        #expect(try !matches("a.b", "a\nb"))
        #expect(try matches("a.b", "a\nb", "s"))
        #expect(try matches("\\.com$", "https://example.com"))
        #expect(try !matches("\\.com$", "https://examplecom"))
        #expect(try matches("https?://", "http://x"))
        #expect(try matches("\\Qa.b\\E", "xa.by"))
        #expect(try !matches("\\Qa.b\\E", "xaxby"))
        #expect(try matches("\\x41\\u00e9", "Aé"))
        #expect(try matches("a\\/b", "a/b"))
    }

    @Test("classes, shorthands, word boundaries and POSIX classes")
    func classes() throws {
        #expect(try matches("^\\d{3}-\\d{4}$", "555-1234"))
        #expect(try !matches("^\\d{3}-\\d{4}$", "55-51234"))
        #expect(try matches("^[A-Z][a-z]+$", "Lyon"))
        #expect(try !matches("^[A-Z][a-z]+$", "lyon"))
        #expect(try matches("^[^0-9]+$", "Lyon"))
        #expect(try !matches("^[^0-9]+$", "Lyon 2"))
        #expect(try matches("\\w+\\s\\w+", "New York"))
        #expect(try matches("^\\S+$", "NewYork"))
        #expect(try matches("[\\d.]+", "4.5"))
        #expect(try matches("^[a-]+$", "a-a"))
        #expect(try matches("[]x]", "]"))
        #expect(try matches("\\bYork\\b", "New York, NY"))
        #expect(try !matches("\\bYor\\b", "New York, NY"))
        #expect(try matches("^[[:alpha:]]+$", "Zürich"))
        #expect(try matches("^\\w+$", "Zürich"))
        #expect(try !matches("\\W", "Zürich"))
    }

    @Test("repetition, greedy or lazy, alternation and groups")
    func repetition() throws {
        #expect(try matches("^a{2,3}$", "aaa"))
        #expect(try !matches("^a{2,3}$", "aaaa"))
        #expect(try matches("^a{2,}$", "aaaaa"))
        #expect(try matches("^a{2}$", "aa"))
        #expect(try matches("^(ab)+$", "ababab"))
        #expect(try !matches("^(ab)+$", "ababa"))
        #expect(try matches("^a.*?b$", "axxb"))
        #expect(try matches("^a+?$", "aaa"))
        #expect(try matches("^(?:Paris|Lyon|Nice), France$", "Lyon, France"))
        #expect(try !matches("^(?:Paris|Lyon|Nice), France$", "Lille, France"))
        #expect(try matches("^(?<city>\\w+)$", "Lyon"))
        #expect(try matches("^(a|)+$", "aaa"))
        #expect(try matches("^(a*)*$", "aaa"))
        #expect(try matches("colou?r", "color"))
    }

    @Test("options: i folds case (also in classes), m anchors per line, s dot-all, x extended")
    func options() throws {
        #expect(try matches("lyon", "LYON, France", "i"))
        #expect(try matches("^bos", "Boston", "i"))
        #expect(try matches("^[a-z]+$", "LYON", "i"))
        #expect(try matches("^[A-Z]+$", "lyon", "i"))
        #expect(try matches("zürich", "ZÜRICH", "i"))
        #expect(try !matches("^second", "first\nsecond"))
        #expect(try matches("^second", "first\nsecond", "m"))
        #expect(try matches("first$", "first\nsecond", "m"))
        #expect(try !matches("first$", "first\nsecond"))
        #expect(try matches("F irst \\s line  # a comment", "First line", "x"))
    }

    @Test("catastrophic patterns finish at once: time is bounded by pattern x text")
    func catastrophicPatterns() throws {
        let sixtyAs = String(repeating: "a", count: 60) + "!"
        #expect(try !matches("^(a+)+b?$", sixtyAs))
        #expect(try !matches("^(a|a)*$", sixtyAs))
        #expect(try !matches("^(a|aa)+$", sixtyAs))
        #expect(try !matches("(.*.){6}!", "https://example.com/" + String(repeating: "x", count: 200)))
        #expect(try matches("(.*.){6}!", "https://example.com/!"))
        #expect(try !matches("^(\\w+\\s?)*$", String(repeating: "word ", count: 50) + "!"))
        let long = String(repeating: "a", count: 100_000)
        #expect(try !matches("(a*)*b", long))
        // A deadline already past stops a long match instead of finishing it.
        let matcher = try PatternMatcher(pattern: "(a*)*b", options: "")
        #expect(throws: PatternMatcher.DeadlinePassed.self) {
            try matcher.matches(long, deadline: 1)
        }
    }

    @Test("plain searches are simple (they skip the turn-taking); repetition is not")
    func simplePatterns() throws {
        for pattern in ["lyon", "^Bos", "New York", "a\\.b", "^(Paris|Lyon)$", "colou?r", "\\d{3}"] {
            #expect(try PatternMatcher(pattern: pattern, options: "i").isSimple, "\(pattern)")
        }
        for pattern in ["^(a+)+b?$", "(.*.){6}!", "a*", "x{2,}", String(repeating: "ab", count: 60)] {
            #expect(try !PatternMatcher(pattern: pattern, options: "").isSimple, "\(pattern)")
        }
    }

    @Test("what cannot be bounded, or is not supported, is refused with a reason")
    func refusals() throws {
        func reason(_ pattern: String, _ options: String = "") -> String? {
            do {
                _ = try PatternMatcher(pattern: pattern, options: options)
                return nil
            } catch {
                return (error as? PatternMatcher.Unsupported)?.description
            }
        }
        #expect(reason("(a)\\1")?.contains("backreferences") == true)
        #expect(reason("a(?=b)")?.contains("lookahead") == true)
        #expect(reason("(?<!a)b")?.contains("lookbehind") == true)
        #expect(reason("(?i)a")?.contains("$options") == true)
        #expect(reason("a*+")?.contains("possessive") == true)
        #expect(reason("\\p{L}")?.contains("\\p") == true)
        #expect(reason(String(repeating: "a", count: 257))?.contains("256") == true)
        #expect(reason("((a{30}){30}){30}")?.contains("too complex") == true)
        #expect(reason("(") != nil)
        #expect(reason(")") != nil)
        #expect(reason("[a-") != nil)
        #expect(reason("*a") != nil)
        #expect(reason("a{2,1}") != nil)
        #expect(reason("a", "q") != nil)
        #expect(reason("^(?:[a-z]+|\\d{1,3})$", "imsx") == nil)
    }
}
