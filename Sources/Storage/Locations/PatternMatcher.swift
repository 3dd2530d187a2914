import Foundation

/// The `$regex` dialect real clients send (literals, escapes, `.`, classes with `\d \w \s`,
/// anchors, `* + ? {m,n}` greedy or lazy, alternation, groups, `$options` `imsx`), matched by
/// simulating the pattern's Thompson NFA over the text: every state advances in lock step, so
/// a match costs at most (program size x text length) steps whatever the pattern, and
/// `(a+)+b` or `(.*.){6}!` cannot backtrack for minutes the way ICU's engine does.
///
/// Only "does it match somewhere" is answered, which is all a filter needs: greedy and lazy
/// quantifiers then mean the same. Constructs whose cost a lock-step simulation cannot bound
/// (backreferences, lookaround, atomic groups, possessive quantifiers) are refused with a
/// reason at compile time, so callers can answer 400 before touching a database.
public struct PatternMatcher: Sendable {
    /// Longer patterns are refused: nobody types one, and length bounds the program size.
    public static let maximumPatternLength = 256
    /// Counted repetition expands the program (`(a{50}){50}`); past this it is refused.
    static let maximumProgramSize = 4_096
    /// Largest `{m,n}` bound accepted.
    static let maximumRepeat = 1_000

    /// Why a pattern cannot be used.
    public struct Unsupported: Error, CustomStringConvertible, Equatable {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// Thrown when the deadline given to `matches` passes mid-match.
    public struct DeadlinePassed: Error, CustomStringConvertible {
        public var description: String { PatternMatcher.deadlineMessage }
    }

    /// How a deadline failure shows in a database error message (SQLite reports the text).
    public static let deadlineMessage = "onthemap: query deadline passed"

    let program: [Instruction]
    let caseInsensitive: Bool
    /// The pattern can only match at the start of the text (`^Bos` without `m`).
    let anchoredAtStart: Bool

    public init(pattern: String, options: String = "") throws {
        guard pattern.unicodeScalars.count <= Self.maximumPatternLength else {
            throw Unsupported("the pattern is longer than \(Self.maximumPatternLength) characters")
        }
        for flag in options where !"imsx".contains(flag) {
            throw Unsupported("unknown option '\(flag)' (use i, m, s, x)")
        }
        var parser = Parser(
            pattern: Array(pattern.unicodeScalars),
            multiline: options.contains("m"), dotAll: options.contains("s"), extended: options.contains("x"),
            caseInsensitive: options.contains("i")
        )
        let tree = try parser.parseWhole()
        var compiler = Compiler()
        try compiler.emit(tree)
        compiler.code.append(.match)
        program = compiler.code
        caseInsensitive = options.contains("i")
        anchoredAtStart = tree.startsWithTextStart
        // No jump backwards means no unbounded repetition.
        let code = compiler.code
        isSimple =
            code.count <= 64
            && !code.indices.contains { index in
                if case .jump(let target) = code[index] { return target < index }
                return false
            }
    }

    /// Short and free of unbounded repetition (`Lyon`, `^bos`, the web app's escaped search
    /// text): such a pattern costs little more than a LIKE, so its queries need not take turns.
    public let isSimple: Bool

    /// Whether the pattern matches anywhere in `text`. `deadline` is a
    /// `DispatchTime.uptimeNanoseconds` value (0: none); past it, `DeadlinePassed` is thrown.
    public func matches(_ text: String, deadline: UInt64 = 0) throws -> Bool {
        var input = Array(text.unicodeScalars)
        if caseInsensitive { input = input.map(CaseFolding.fold) }
        let count = input.count
        var current = ThreadList(size: program.count)
        var next = ThreadList(size: program.count)
        var stack: [Int] = []
        var work = 0
        for position in 0...count {
            if position == 0 || !anchoredAtStart {
                if add(0, at: position, to: &current, input: input, stack: &stack) { return true }
            } else if current.pcs.isEmpty {
                return false
            }
            if position == count { break }
            let scalar = input[position]
            for pc in current.pcs {
                guard case .test(let test) = program[pc], test.accepts(scalar, caseInsensitive: caseInsensitive) else { continue }
                if add(pc + 1, at: position + 1, to: &next, input: input, stack: &stack) { return true }
            }
            // Reading the clock costs more than a step; look every few thousand steps.
            work += current.pcs.count + 1
            if deadline != 0, work > 4_096 {
                work = 0
                if DispatchTime.now().uptimeNanoseconds > deadline { throw DeadlinePassed() }
            }
            swap(&current, &next)
            next.clear()
        }
        return false
    }

    /// Adds the thread at `pc` and every state reachable from it without reading a character.
    /// Returns true as soon as one of them is the final state.
    private func add(_ start: Int, at position: Int, to list: inout ThreadList, input: [Unicode.Scalar], stack: inout [Int]) -> Bool {
        stack.append(start)
        while let pc = stack.popLast() {
            guard list.insert(pc) else { continue }
            switch program[pc] {
            case .match:
                stack.removeAll(keepingCapacity: true)
                return true
            case .jump(let target):
                stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .assert(let assertion):
                if assertion.holds(at: position, in: input) { stack.append(pc + 1) }
            case .test:
                break
            }
        }
        return false
    }

    /// A set of program counters with insertion order, cleared in O(1).
    struct ThreadList {
        var pcs: [Int] = []
        var member: [Bool]

        init(size: Int) { member = Array(repeating: false, count: size) }

        mutating func insert(_ pc: Int) -> Bool {
            if member[pc] { return false }
            member[pc] = true
            pcs.append(pc)
            return true
        }

        mutating func clear() {
            for pc in pcs { member[pc] = false }
            pcs.removeAll(keepingCapacity: true)
        }
    }
}

// MARK: - Program

extension PatternMatcher {
    enum Instruction: Sendable {
        case test(CharacterTest)
        case split(Int, Int)
        case jump(Int)
        case assert(Assertion)
        case match
    }

    enum Assertion: Sendable {
        case textStart, textEnd, textEndOrFinalNewline, lineStart, lineEnd, wordBoundary, notWordBoundary

        func holds(at position: Int, in input: [Unicode.Scalar]) -> Bool {
            let count = input.count
            switch self {
            case .textStart:
                return position == 0
            case .textEnd:
                return position == count
            case .textEndOrFinalNewline:
                // ICU's `$`: the end, or just before a line terminator that ends the text.
                if position == count { return true }
                if position == count - 1 { return CharacterClass.isLineTerminator(input[position]) }
                return position == count - 2 && input[position] == "\r" && input[position + 1] == "\n"
            case .lineStart:
                return position == 0 || CharacterClass.isLineTerminator(input[position - 1])
            case .lineEnd:
                return position == count || CharacterClass.isLineTerminator(input[position])
            case .wordBoundary, .notWordBoundary:
                let before = position > 0 && CharacterClass.word.contains(input[position - 1])
                let after = position < count && CharacterClass.word.contains(input[position])
                return (before != after) == (self == .wordBoundary)
            }
        }
    }

    /// What one step of the text must be.
    enum CharacterTest: Sendable {
        /// Already case-folded when the pattern is case-insensitive (so is the text).
        case scalar(Unicode.Scalar)
        case any(dotAll: Bool)
        case set(ScalarSet)

        func accepts(_ scalar: Unicode.Scalar, caseInsensitive: Bool) -> Bool {
            switch self {
            case .scalar(let expected): return scalar == expected
            case .any(let dotAll): return dotAll || !CharacterClass.isLineTerminator(scalar)
            case .set(let set):
                if set.contains(scalar) { return true }
                // The text is folded to lower case; `[A-Z]` must still take it.
                guard caseInsensitive else { return false }
                return CaseFolding.variants(of: scalar).contains(where: set.contains)
            }
        }
    }

    struct ScalarSet: Sendable {
        var negated = false
        var ranges: [ClosedRange<UInt32>] = []
        var classes: [(CharacterClass, negated: Bool)] = []

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            let value = scalar.value
            var found = ranges.contains { $0.contains(value) }
            if !found { found = classes.contains { $0.0.contains(scalar) != $0.negated } }
            return found != negated
        }
    }

    enum CharacterClass: Sendable {
        case digit, word, space, alpha, alnum, upper, lower, punct

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            let properties = scalar.properties
            switch self {
            case .digit: return properties.generalCategory == .decimalNumber
            case .space: return properties.isWhitespace
            case .alpha: return properties.isAlphabetic
            case .alnum: return properties.isAlphabetic || properties.generalCategory == .decimalNumber
            case .upper: return properties.isUppercase
            case .lower: return properties.isLowercase
            case .punct:
                switch properties.generalCategory {
                case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
                    .initialPunctuation, .finalPunctuation, .otherPunctuation:
                    return true
                default: return false
                }
            case .word:
                if scalar.isASCII {
                    let v = scalar.value
                    return (0x30...0x39).contains(v) || (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v) || v == 0x5F
                }
                // ICU's \w: letters, marks, decimal digits, connector punctuation, ZWJ/ZWNJ.
                switch properties.generalCategory {
                case .decimalNumber, .nonspacingMark, .spacingMark, .enclosingMark, .connectorPunctuation: return true
                default: return properties.isAlphabetic || scalar.value == 0x200C || scalar.value == 0x200D
                }
            }
        }

        static func isLineTerminator(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029: return true
            default: return false
            }
        }
    }

    enum CaseFolding {
        static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
            if scalar.isASCII {
                return (0x41...0x5A).contains(scalar.value) ? Unicode.Scalar(scalar.value + 0x20)! : scalar
            }
            let lower = scalar.properties.lowercaseMapping.unicodeScalars
            return lower.count == 1 ? lower.first! : scalar
        }

        /// Other spellings of an already folded scalar: its upper and title case.
        static func variants(of scalar: Unicode.Scalar) -> [Unicode.Scalar] {
            if scalar.isASCII {
                return (0x61...0x7A).contains(scalar.value) ? [Unicode.Scalar(scalar.value - 0x20)!] : []
            }
            let properties = scalar.properties
            return [properties.uppercaseMapping, properties.titlecaseMapping].compactMap { mapping in
                let scalars = mapping.unicodeScalars
                return scalars.count == 1 ? scalars.first : nil
            }
        }
    }
}

// MARK: - Syntax tree and parser

extension PatternMatcher {
    indirect enum Node {
        case empty
        case test(CharacterTest)
        case assert(Assertion)
        case concat([Node])
        case alternate([Node])
        case repetition(Node, min: Int, max: Int?)

        var startsWithTextStart: Bool {
            switch self {
            case .assert(.textStart): return true
            case .concat(let parts): return parts.first?.startsWithTextStart ?? false
            case .alternate(let branches): return !branches.isEmpty && branches.allSatisfy(\.startsWithTextStart)
            default: return false
            }
        }
    }

    struct Parser {
        let pattern: [Unicode.Scalar]
        let multiline: Bool
        let dotAll: Bool
        let extended: Bool
        /// Literals are folded like the text they meet.
        let caseInsensitive: Bool
        var index = 0

        init(pattern: [Unicode.Scalar], multiline: Bool, dotAll: Bool, extended: Bool, caseInsensitive: Bool) {
            self.pattern = pattern
            self.multiline = multiline
            self.dotAll = dotAll
            self.extended = extended
            self.caseInsensitive = caseInsensitive
        }

        mutating func parseWhole() throws -> Node {
            let node = try parseAlternation(depth: 0)
            if index < pattern.count { throw Unsupported("unbalanced ')' at position \(index + 1)") }
            return node
        }

        private var atEnd: Bool { index >= pattern.count }
        private var peek: Unicode.Scalar? { atEnd ? nil : pattern[index] }

        private mutating func parseAlternation(depth: Int) throws -> Node {
            guard depth < 32 else { throw Unsupported("groups are nested too deeply") }
            var branches = [try parseConcatenation(depth: depth)]
            while peek == "|" {
                index += 1
                branches.append(try parseConcatenation(depth: depth))
            }
            return branches.count == 1 ? branches[0] : .alternate(branches)
        }

        private mutating func parseConcatenation(depth: Int) throws -> Node {
            var parts: [Node] = []
            while true {
                skipExtendedWhitespace()
                guard let scalar = peek, scalar != "|", scalar != ")" else { break }
                var atom = try parseAtom(depth: depth)
                atom = try parseQuantifiers(on: atom)
                parts.append(atom)
            }
            return parts.count == 1 ? parts[0] : parts.isEmpty ? .empty : .concat(parts)
        }

        /// With the `x` option, whitespace and `#` comments outside classes are not part of the pattern.
        private mutating func skipExtendedWhitespace() {
            guard extended else { return }
            while let scalar = peek {
                if scalar.properties.isWhitespace {
                    index += 1
                } else if scalar == "#" {
                    while let next = peek, next != "\n" { index += 1 }
                } else {
                    return
                }
            }
        }

        private mutating func parseQuantifiers(on atom: Node) throws -> Node {
            skipExtendedWhitespace()
            guard let scalar = peek else { return atom }
            let bounds: (Int, Int?)
            switch scalar {
            case "*":
                index += 1
                bounds = (0, nil)
            case "+":
                index += 1
                bounds = (1, nil)
            case "?":
                index += 1
                bounds = (0, 1)
            case "{": bounds = try parseInterval()
            default: return atom
            }
            if case .assert = atom { throw Unsupported("nothing to repeat before '\(scalar)'") }
            if case .empty = atom { throw Unsupported("nothing to repeat before '\(scalar)'") }
            // Lazy only changes which match is reported; a filter asks only whether one exists.
            if peek == "?" {
                index += 1
            } else if peek == "+" {
                throw Unsupported("possessive quantifiers (like a*+) are not supported")
            }
            skipExtendedWhitespace()
            if let next = peek, "*+?{".unicodeScalars.contains(next) {
                throw Unsupported("a quantifier cannot follow another quantifier at position \(index + 1)")
            }
            return .repetition(atom, min: bounds.0, max: bounds.1)
        }

        private mutating func parseInterval() throws -> (Int, Int?) {
            let start = index
            index += 1
            func number() -> Int? {
                var digits = ""
                while let scalar = peek, ("0"..."9").contains(scalar), digits.count < 6 {
                    digits.unicodeScalars.append(scalar)
                    index += 1
                }
                return Int(digits)
            }
            let invalid = Unsupported("bad repetition at position \(start + 1): use {n}, {n,} or {n,m}, or \\{ for the character")
            guard let minimum = number() else { throw invalid }
            var maximum: Int? = minimum
            if peek == "," {
                index += 1
                maximum = number()
            }
            guard peek == "}" else { throw invalid }
            index += 1
            if let maximum, maximum < minimum { throw invalid }
            guard max(minimum, maximum ?? 0) <= PatternMatcher.maximumRepeat else {
                throw Unsupported("repetition counts above \(PatternMatcher.maximumRepeat) are not supported")
            }
            return (minimum, maximum)
        }

        private mutating func parseAtom(depth: Int) throws -> Node {
            let scalar = pattern[index]
            index += 1
            switch scalar {
            case "(":
                if peek == "?" {
                    index += 1
                    switch peek {
                    case ":": index += 1
                    case "<" where index + 1 < pattern.count && !["=", "!"].contains(pattern[index + 1]):
                        // A named group matches like a plain one.
                        while let next = peek, next != ">" { index += 1 }
                        guard peek == ">" else { throw Unsupported("unterminated group name") }
                        index += 1
                    case "=", "!", "<": throw Unsupported("lookahead and lookbehind are not supported")
                    case ">": throw Unsupported("atomic groups are not supported")
                    default: throw Unsupported("inline options like (?i) are not supported: use $options")
                    }
                }
                let inner = try parseAlternation(depth: depth + 1)
                guard peek == ")" else { throw Unsupported("missing ')'") }
                index += 1
                return inner
            case "[":
                return .test(.set(try parseSet()))
            case ".":
                return .test(.any(dotAll: dotAll))
            case "^":
                return .assert(multiline ? .lineStart : .textStart)
            case "$":
                return .assert(multiline ? .lineEnd : .textEndOrFinalNewline)
            case "\\":
                return try parseEscape()
            case "*", "+", "?":
                throw Unsupported("nothing to repeat before '\(scalar)' at position \(index)")
            case "{":
                throw Unsupported("a '{' must follow something to repeat; write \\{ for the character")
            case ")":
                throw Unsupported("unbalanced ')' at position \(index)")
            default:
                return literal(scalar)
            }
        }

        private func literal(_ scalar: Unicode.Scalar) -> Node {
            .test(.scalar(caseInsensitive ? CaseFolding.fold(scalar) : scalar))
        }

        private mutating func parseEscape() throws -> Node {
            guard let scalar = peek else { throw Unsupported("the pattern ends with a lone backslash") }
            index += 1
            switch scalar {
            case "d": return .test(.set(ScalarSet(classes: [(.digit, false)])))
            case "D": return .test(.set(ScalarSet(classes: [(.digit, true)])))
            case "w": return .test(.set(ScalarSet(classes: [(.word, false)])))
            case "W": return .test(.set(ScalarSet(classes: [(.word, true)])))
            case "s": return .test(.set(ScalarSet(classes: [(.space, false)])))
            case "S": return .test(.set(ScalarSet(classes: [(.space, true)])))
            case "b": return .assert(.wordBoundary)
            case "B": return .assert(.notWordBoundary)
            case "A": return .assert(.textStart)
            case "z": return .assert(.textEnd)
            case "Z": return .assert(.textEndOrFinalNewline)
            case "Q":
                // \Q...\E: everything between is literal.
                var parts: [Node] = []
                while index < pattern.count {
                    if pattern[index] == "\\", index + 1 < pattern.count, pattern[index + 1] == "E" {
                        index += 2
                        break
                    }
                    parts.append(literal(pattern[index]))
                    index += 1
                }
                return parts.isEmpty ? .empty : .concat(parts)
            case "E": return .empty
            case "1"..."9", "k": throw Unsupported("backreferences are not supported")
            default:
                return literal(try escapedScalar(scalar))
            }
        }

        /// The character an escape outside `\d`-style classes stands for.
        private mutating func escapedScalar(_ scalar: Unicode.Scalar) throws -> Unicode.Scalar {
            switch scalar {
            case "n": return "\n"
            case "t": return "\t"
            case "r": return "\r"
            case "f": return "\u{0C}"
            case "v": return "\u{0B}"
            case "a": return "\u{07}"
            case "e": return "\u{1B}"
            case "0": return "\u{0}"
            case "x":
                if peek == "{" {
                    index += 1
                    let value = try hexDigits(max: 6)
                    guard peek == "}" else { throw Unsupported("bad \\x{...} escape") }
                    index += 1
                    return try scalarValue(value)
                }
                return try scalarValue(try hexDigits(max: 2))
            case "u": return try scalarValue(try hexDigits(max: 4))
            default:
                // Punctuation stands for itself; an unknown letter is more likely a feature we lack.
                if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                    throw Unsupported("the escape \\\(scalar) is not supported")
                }
                return scalar
            }
        }

        private mutating func hexDigits(max count: Int) throws -> UInt32 {
            var value: UInt32 = 0
            var read = 0
            while read < count, let scalar = peek, let digit = Int(String(scalar), radix: 16) {
                value = value * 16 + UInt32(digit)
                index += 1
                read += 1
            }
            guard read > 0 else { throw Unsupported("bad hexadecimal escape") }
            return value
        }

        private func scalarValue(_ value: UInt32) throws -> Unicode.Scalar {
            guard let scalar = Unicode.Scalar(value) else { throw Unsupported("bad character code in an escape") }
            return scalar
        }

        private mutating func parseSet() throws -> ScalarSet {
            var set = ScalarSet()
            if peek == "^" {
                set.negated = true
                index += 1
            }
            var first = true
            while true {
                guard let scalar = peek else { throw Unsupported("missing ']'") }
                if scalar == "]" && !first {
                    index += 1
                    return set
                }
                first = false
                index += 1
                var low: Unicode.Scalar
                switch scalar {
                case "[":
                    guard peek == ":" else { throw Unsupported("nested sets like [[a-z]] are not supported") }
                    set.classes.append((try parsePOSIXClass(), false))
                    continue
                case "\\":
                    guard let escaped = peek else { throw Unsupported("missing ']'") }
                    index += 1
                    switch escaped {
                    case "d":
                        set.classes.append((.digit, false))
                        continue
                    case "D":
                        set.classes.append((.digit, true))
                        continue
                    case "w":
                        set.classes.append((.word, false))
                        continue
                    case "W":
                        set.classes.append((.word, true))
                        continue
                    case "s":
                        set.classes.append((.space, false))
                        continue
                    case "S":
                        set.classes.append((.space, true))
                        continue
                    case "b": low = "\u{08}"
                    default: low = try escapedScalar(escaped)
                    }
                default:
                    low = scalar
                }
                // A range, unless the '-' is the last character of the set.
                if peek == "-", index + 1 < pattern.count, pattern[index + 1] != "]" {
                    index += 1
                    var high = pattern[index]
                    index += 1
                    if high == "\\" {
                        guard let escaped = peek else { throw Unsupported("missing ']'") }
                        index += 1
                        high = try escapedScalar(escaped)
                    } else if high == "[" {
                        throw Unsupported("bad range in a set")
                    }
                    guard low.value <= high.value else { throw Unsupported("bad range \(low)-\(high) in a set") }
                    set.ranges.append(low.value...high.value)
                } else {
                    set.ranges.append(low.value...low.value)
                }
            }
        }

        private mutating func parsePOSIXClass() throws -> CharacterClass {
            index += 1  // ':'
            var name = ""
            while let scalar = peek, scalar != ":" {
                name.unicodeScalars.append(scalar)
                index += 1
                guard name.count < 10 else { break }
            }
            guard peek == ":", index + 1 < pattern.count, pattern[index + 1] == "]" else {
                throw Unsupported("bad [:class:] in a set")
            }
            index += 2
            switch name {
            case "alpha": return .alpha
            case "digit": return .digit
            case "alnum": return .alnum
            case "space": return .space
            case "upper": return .upper
            case "lower": return .lower
            case "punct": return .punct
            case "word": return .word
            default: throw Unsupported("the class [:\(name):] is not supported")
            }
        }
    }

    /// Turns the tree into instructions; counted repetition is written out, so the size is
    /// checked as it grows.
    struct Compiler {
        var code: [Instruction] = []

        private mutating func append(_ instruction: Instruction) throws -> Int {
            guard code.count < PatternMatcher.maximumProgramSize else {
                throw Unsupported("the pattern is too complex (its repetitions expand past \(PatternMatcher.maximumProgramSize) steps)")
            }
            code.append(instruction)
            return code.count - 1
        }

        mutating func emit(_ node: Node) throws {
            switch node {
            case .empty:
                break
            case .test(let test):
                _ = try append(.test(test))
            case .assert(let assertion):
                _ = try append(.assert(assertion))
            case .concat(let parts):
                for part in parts { try emit(part) }
            case .alternate(let branches):
                // split L1, next; L1: branch; jump end; next: split ... ; last branch
                var jumps: [Int] = []
                for (offset, branch) in branches.enumerated() {
                    if offset < branches.count - 1 {
                        let split = try append(.split(0, 0))
                        try emit(branch)
                        jumps.append(try append(.jump(0)))
                        code[split] = .split(split + 1, code.count)
                    } else {
                        try emit(branch)
                    }
                }
                for jump in jumps { code[jump] = .jump(code.count) }
            case .repetition(let inner, let minimum, let maximum):
                for _ in 0..<minimum { try emit(inner) }
                if let maximum {
                    // Each optional copy may be skipped straight to the end.
                    var splits: [Int] = []
                    for _ in minimum..<maximum {
                        splits.append(try append(.split(0, 0)))
                        try emit(inner)
                    }
                    for split in splits { code[split] = .split(split + 1, code.count) }
                } else {
                    let loop = try append(.split(0, 0))
                    try emit(inner)
                    _ = try append(.jump(loop))
                    code[loop] = .split(loop + 1, code.count)
                }
            }
        }
    }
}
