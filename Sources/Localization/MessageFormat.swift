import Foundation

/// One message of a catalogue in the ICU subset the web app's `js/i18n.js` reads, so both read
/// the same files alike: `{name}`, `{count, number}`, `{count, plural, =0 {…} one {# …} other
/// {…}}`, `{kind, select, a {…} other {…}}`; an apostrophe before a brace (or `#` in a plural)
/// quotes it, `''` is one apostrophe, any other apostrophe is itself.
struct MessageFormat: Sendable {
    indirect enum Part: Sendable {
        case text(String)
        case pound
        case argument(String)
        case plural(String, [String: [Part]])
        case select(String, [String: [Part]])
    }

    struct SyntaxError: Error, CustomStringConvertible {
        let description: String
    }

    let parts: [Part]

    init(_ message: String) throws {
        var parser = Parser(characters: Array(message))
        parts = try parser.parts(inPlural: false)
        guard parser.position == parser.characters.count else {
            throw SyntaxError(description: "unexpected \"}\" at \(parser.position) in \(message)")
        }
    }

    /// The message with `arguments` in it; numbers written as `language` writes them.
    func format(_ arguments: [String: MessageArgument], language: Language) -> String {
        Self.render(parts, arguments, language, count: nil)
    }

    private static func render(_ parts: [Part], _ arguments: [String: MessageArgument], _ language: Language, count: Int?) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .pound: out += count.map { language.formatNumber($0) } ?? "#"
            case .argument(let name):
                switch arguments[name] {
                case .text(let text)?: out += text
                case .number(let number)?: out += language.formatNumber(number)
                case nil: out += "{\(name)}"
                }
            case .plural(let name, let options):
                let number: Int
                if case .number(let value)? = arguments[name] { number = value } else { number = Int(arguments[name]?.text ?? "") ?? 0 }
                let chosen = options["=\(number)"] ?? options[language.pluralCategory(number)] ?? options["other"] ?? []
                out += render(chosen, arguments, language, count: number)
            case .select(let name, let options):
                let chosen = options[arguments[name]?.text ?? ""] ?? options["other"] ?? []
                out += render(chosen, arguments, language, count: count)
            }
        }
        return out
    }

    private struct Parser {
        let characters: [Character]
        var position = 0

        mutating func parts(inPlural: Bool) throws -> [Part] {
            var list: [Part] = []
            while position < characters.count, characters[position] != "}" {
                let literal = self.literal(inPlural: inPlural)
                if !literal.isEmpty { list.append(.text(literal)) }
                if position >= characters.count || characters[position] == "}" { break }
                if characters[position] == "#" {
                    list.append(.pound)
                    position += 1
                    continue
                }
                position += 1  // "{"
                list.append(try argument())
            }
            return list
        }

        mutating func literal(inPlural: Bool) -> String {
            var out = ""
            while position < characters.count {
                let character = characters[position]
                if character == "'" {
                    let next: Character? = position + 1 < characters.count ? characters[position + 1] : nil
                    if next == "'" {
                        out.append("'")
                        position += 2
                        continue
                    }
                    if next == "{" || next == "}" || (inPlural && next == "#") {
                        var end = position + 1
                        while end < characters.count, characters[end] != "'" { end += 1 }
                        out += String(characters[(position + 1)..<end])
                        position = min(end + 1, characters.count)
                        continue
                    }
                }
                if character == "{" || character == "}" || (inPlural && character == "#") { break }
                out.append(character)
                position += 1
            }
            return out
        }

        mutating func skipSpace() {
            while position < characters.count, characters[position].isWhitespace { position += 1 }
        }

        mutating func word() -> String {
            skipSpace()
            let start = position
            while position < characters.count, !characters[position].isWhitespace, !",{}".contains(characters[position]) { position += 1 }
            return String(characters[start..<position])
        }

        mutating func expect(_ character: Character) throws {
            skipSpace()
            guard position < characters.count, characters[position] == character else {
                throw SyntaxError(description: "expected \"\(character)\" at \(position) in \(String(characters))")
            }
            position += 1
        }

        mutating func argument() throws -> Part {
            let name = word()
            skipSpace()
            if position < characters.count, characters[position] == "}" {
                position += 1
                return .argument(name)
            }
            try expect(",")
            let kind = word()
            skipSpace()
            if position < characters.count, characters[position] == "}" {
                position += 1
                return .argument(name)
            }
            try expect(",")
            guard kind == "plural" || kind == "select" else {
                throw SyntaxError(description: "unknown argument type \(kind) in \(String(characters))")
            }
            var options: [String: [Part]] = [:]
            while true {
                skipSpace()
                if position < characters.count, characters[position] == "}" {
                    position += 1
                    break
                }
                let selector = word()
                guard !selector.isEmpty else { throw SyntaxError(description: "unfinished \(kind) in \(String(characters))") }
                try expect("{")
                options[selector] = try parts(inPlural: kind == "plural")
                try expect("}")
            }
            guard options["other"] != nil else { throw SyntaxError(description: "\(kind) without other in \(String(characters))") }
            return kind == "plural" ? .plural(name, options) : .select(name, options)
        }
    }
}

/// A value put into a message: text as it is, or a number written in the message's language.
public enum MessageArgument: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case text(String)
    case number(Int)

    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int) { self = .number(value) }

    var text: String {
        switch self {
        case .text(let text): text
        case .number(let number): String(number)
        }
    }
}
