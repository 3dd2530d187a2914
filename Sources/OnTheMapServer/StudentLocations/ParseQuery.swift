import Foundation
import OnTheMapModels
import Storage

/// A validated `GET StudentLocation` request.
struct ParseListRequest: Equatable {
    var query = LocationQuery()
    var includeCount = false
    /// Fields to return; nil means all.
    var keys: Set<String>?
}

/// Turns Parse query parameters into a `LocationQuery`, with Parse's error codes for bad
/// input (docs/api/parse-student-location.md §2.3–2.4, §2.8).
enum ParseQuery {
    static let defaultLimit = 100
    static let maximumLimit = 1000
    static let maximumNesting = 8
    static let maximumPatternLength = PatternMatcher.maximumPatternLength
    static let maximumListLength = 1000

    /// Parameters parse-server accepts on a find; the ones we do not act on are ignored.
    static let findParameters: Set<String> = [
        "skip", "limit", "order", "count", "keys", "excludeKeys", "include", "includeAll",
        "redirectClassNameForKey", "where", "readPreference", "includeReadPreference",
        "subqueryReadPreference", "hint", "explain", "comment",
    ]
    /// Parameters allowed on a get by id.
    static let getParameters: Set<String> = ["keys", "excludeKeys", "include", "includeAll", "readPreference"]

    // MARK: Raw query string

    /// Splits a raw query string into decoded name/value pairs. Lenient with a malformed
    /// form real clients send: `skip=400$order=-updatedAt` (`$` typed for `&`).
    static func parameters(rawQuery: String?) throws -> [(name: String, value: String)] {
        guard let rawQuery, !rawQuery.isEmpty else { return [] }
        var pairs: [(String, String)] = []
        for piece in rawQuery.split(separator: "&", omittingEmptySubsequences: true).flatMap(splitMistypedSeparators) {
            let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else {
                throw ParseError(102, "Improper encode of parameter")
            }
            pairs.append((name, value))
        }
        return pairs
    }

    private static let mistypedSeparator = try! NSRegularExpression(
        pattern: #"\$(?=(skip|limit|order|count|keys|where|uniqueKey)=)"#
    )

    private static func splitMistypedSeparators(_ piece: Substring) -> [Substring] {
        guard piece.contains("$") else { return [piece] }
        let text = String(piece)
        let matches = mistypedSeparator.matches(in: text, range: NSRange(text.startIndex..., in: text))
        guard !matches.isEmpty else { return [piece] }
        var result: [Substring] = []
        var start = text.startIndex
        for match in matches {
            let cut = Range(match.range, in: text)!
            result.append(Substring(text[start..<cut.lowerBound]))
            start = cut.upperBound
        }
        result.append(Substring(text[start...]))
        return result
    }

    private static func decode(_ component: Substring) -> String? {
        guard component.contains(where: { $0 == "%" || $0 == "+" }) else { return String(component) }
        return component.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    // MARK: Find

    /// `allowUniqueKey` enables the v1 shortcut `?uniqueKey=<key>`.
    static func listRequest(_ parameters: [(name: String, value: String)], allowUniqueKey: Bool) throws -> ParseListRequest {
        var request = ParseListRequest()
        var filters: [LocationFilter] = []
        var limit = defaultLimit
        for (name, value) in parameters {
            // Stored text never holds NUL (bodies refuse control characters) and PostgreSQL
            // cannot even compare against it: refuse it the same way on every backend.
            guard !value.contains("\u{0}") else { throw ParseError(102, "Query values must not contain NUL characters.") }
            switch name {
            case "limit":
                guard let number = nonNegativeInteger(value) else {
                    throw ParseError(117, "Invalid limit '\(value)': use a whole number of 0 or more.")
                }
                limit = min(number, maximumLimit)
            case "skip":
                guard let number = nonNegativeInteger(value) else {
                    throw ParseError(118, "Invalid skip '\(value)': use a whole number of 0 or more.")
                }
                request.query.skip = number
            case "order":
                request.query.sort = try sort(value)
            case "count":
                request.includeCount = isTruthy(value)
            case "keys":
                request.keys = try fieldList(value)
            case "excludeKeys":
                let excluded = try fieldList(value)
                request.keys = (request.keys ?? Set(LocationField.allCases.map(\.rawValue))).subtracting(excluded)
            case "where":
                guard let json = JSONValue.parse(value) else {
                    throw ParseError(107, "Invalid JSON in where: it must be a URL-encoded JSON object.")
                }
                guard !json.containsNUL else { throw ParseError(102, "Query values must not contain NUL characters.") }
                filters.append(try filter(json))
            case "uniqueKey" where allowUniqueKey:
                filters.append(.compare(.uniqueKey, .equal, .text(strippingStrayParenthesis(value))))
            case _ where findParameters.contains(name):
                continue
            default:
                throw ParseError(102, "Invalid parameter for query: \(name)")
            }
        }
        request.query.limit = limit
        request.query.filter = filters.count == 1 ? filters[0] : .and(filters)
        if var keys = request.keys {
            keys.formUnion(["objectId", "createdAt", "updatedAt"])
            request.keys = keys
        }
        return request
    }

    /// Validates the parameters of a get by id; returns the projection.
    static func getKeys(_ parameters: [(name: String, value: String)]) throws -> Set<String>? {
        var request = ParseListRequest()
        for (name, value) in parameters {
            guard getParameters.contains(name) else { throw ParseError(102, "Improper encode of parameter") }
            switch name {
            case "keys": request.keys = try fieldList(value)
            case "excludeKeys":
                request.keys = (request.keys ?? Set(LocationField.allCases.map(\.rawValue))).subtracting(try fieldList(value))
            default: continue
            }
        }
        return request.keys.map { $0.union(["objectId", "createdAt", "updatedAt"]) }
    }

    /// A client once sent `?uniqueKey=1234)`; a lone trailing `)` is not part of a key.
    static func strippingStrayParenthesis(_ value: String) -> String {
        value.hasSuffix(")") && !value.contains("(") ? String(value.dropLast()) : value
    }

    static func nonNegativeInteger(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 9, trimmed.allSatisfy(\.isASCII), let number = Int(trimmed), number >= 0 else {
            return nil
        }
        return number
    }

    /// parse-server treats any truthy JSON value as true: `1`, `true`, a non-empty string.
    static func isTruthy(_ text: String) -> Bool {
        switch JSONValue.parse(text) {
        case .bool(let value): value
        case .number(let value): value != 0
        case .null: false
        case .string(let value): !value.isEmpty
        case .array, .object: true
        case nil: !text.isEmpty
        }
    }

    private static let fieldNamePattern = try! NSRegularExpression(pattern: #"^[a-zA-Z][a-zA-Z0-9_]*$"#)
    private static let keyNamePattern = try! NSRegularExpression(pattern: #"^[a-zA-Z][a-zA-Z0-9_\.]*$"#)

    static func matches(_ regex: NSRegularExpression, _ text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// Whether `text` is an ASCII letter followed by ASCII letters, digits and `_` (and `.`
    /// when `dots`): a name both name patterns accept, told without running a regex on every
    /// request. A name this refuses still goes to the pattern, which alone decides the rest
    /// (its `$` also matches before a final line break, for one).
    static func isPlainName(_ text: String, dots: Bool) -> Bool {
        var isFirst = true
        for byte in text.utf8 {
            let isLetter = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            let isOther =
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || (dots && byte == UInt8(ascii: "."))
            guard isLetter || (!isFirst && isOther) else { return false }
            isFirst = false
        }
        return !isFirst
    }

    static func isFieldName(_ text: String) -> Bool {
        isPlainName(text, dots: false) || matches(fieldNamePattern, text)
    }

    static func isKeyName(_ text: String) -> Bool {
        isPlainName(text, dots: true) || matches(keyNamePattern, text)
    }

    /// `text` without leading and trailing `.whitespaces`; text that starts and ends with an
    /// ASCII character other than a space or tab has none, and is kept without asking Foundation.
    static func trimmingWhitespace(_ text: Substring) -> String {
        guard let first = text.utf8.first, let last = text.utf8.last, first < 0x80, last < 0x80,
            first != UInt8(ascii: " "), first != UInt8(ascii: "\t"), last != UInt8(ascii: " "), last != UInt8(ascii: "\t")
        else { return text.trimmingCharacters(in: .whitespaces) }
        return String(text)
    }

    /// `order=-updatedAt,firstName`: invalid names are errors, unknown valid ones are ignored.
    static func sort(_ value: String) throws -> [LocationSort] {
        var sort: [LocationSort] = []
        for entry in value.split(separator: ",") {
            var name = trimmingWhitespace(entry)
            let descending = name.hasPrefix("-")
            if descending { name.removeFirst() }
            if name.isEmpty { continue }
            guard isFieldName(name) else { throw ParseError(105, "Invalid field name: \(name).") }
            if let field = LocationField(rawValue: name), !sort.contains(where: { $0.field == field }) {
                sort.append(LocationSort(field, descending: descending))
            }
        }
        return sort
    }

    /// `keys=firstName,lastName` or, as Parse Server 5+ accepts, a JSON array.
    static func fieldList(_ value: String) throws -> Set<String> {
        let names: [String]
        if case .array(let items) = JSONValue.parse(value) {
            names = items.compactMap(\.stringValue)
        } else {
            names = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        for name in names where !name.isEmpty && !isKeyName(name) {
            throw ParseError(105, "Invalid field name: \(name).")
        }
        return Set(names.filter { !$0.isEmpty })
    }

    // MARK: where

    static func filter(_ json: JSONValue, depth: Int = 0) throws -> LocationFilter {
        guard depth < maximumNesting else { throw ParseError(102, "The where clause is nested too deeply.") }
        guard case .object(let conditions) = json else {
            throw ParseError(107, "Invalid JSON in where: it must be a JSON object.")
        }
        var parts: [LocationFilter] = []
        for key in conditions.keys.sorted() {
            let value = conditions[key]!
            switch key {
            case "$or", "$and", "$nor":
                guard case .array(let items) = value, !items.isEmpty else {
                    throw ParseError(102, "Bad \(key) format - use an array value.")
                }
                let subfilters = try items.map { try filter($0, depth: depth + 1) }
                parts.append(key == "$and" ? .and(subfilters) : key == "$or" ? .or(subfilters) : .not(.or(subfilters)))
            case "ACL":
                throw ParseError(102, "Cannot query on ACL.")
            default:
                guard isKeyName(key) else { throw ParseError(105, "Invalid key name: \(key)") }
                parts.append(try constraint(on: key, value))
            }
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    /// The condition on one field. Our ten fields are never null; a field we do not have is
    /// treated as missing on every record, as Parse treats a field absent from the schema.
    static func constraint(on key: String, _ value: JSONValue) throws -> LocationFilter {
        let field = LocationField(rawValue: key)
        guard case .object(let operators) = value, operators.keys.contains(where: { $0.hasPrefix("$") }) else {
            return equality(field, value)
        }
        var parts: [LocationFilter] = []
        for op in operators.keys.sorted() {
            let operand = operators[op]!
            switch op {
            case "$eq":
                parts.append(equality(field, operand))
            case "$ne":
                parts.append(.not(equality(field, operand)))
            case "$lt", "$lte", "$gt", "$gte":
                let comparison: Comparison = ["$lt": .less, "$lte": .lessOrEqual, "$gt": .greater, "$gte": .greaterOrEqual][op]!
                if let field, let typed = typedValue(operand, for: field) {
                    parts.append(.compare(field, comparison, typed))
                } else {
                    parts.append(.never)
                }
            case "$in", "$nin":
                guard case .array(let items) = operand, items.count <= maximumListLength else {
                    throw ParseError(107, "bad \(op) value")
                }
                let anyOf: LocationFilter
                if let field {
                    anyOf = .oneOf(field, items.compactMap { typedValue($0, for: field) })
                } else {
                    anyOf = items.contains(.null) ? .always : .never
                }
                parts.append(op == "$in" ? anyOf : .not(anyOf))
            case "$exists":
                guard case .bool(let shouldExist) = operand else { throw ParseError(107, "bad $exists value") }
                parts.append((field != nil) == shouldExist ? .always : .never)
            case "$regex":
                guard case .string(let pattern) = operand, pattern.count <= maximumPatternLength else {
                    throw ParseError(102, "Bad $regex value: use a string of at most \(maximumPatternLength) characters.")
                }
                let options = try regexOptions(operators["$options"])
                // Checked here, before any database sees it, with the matcher SQLite runs: a
                // pattern it refuses (backreferences, lookaround) is refused on every backend.
                do {
                    _ = try PatternMatcher(pattern: pattern, options: options)
                } catch let error as PatternMatcher.Unsupported {
                    throw ParseError(102, "Invalid or unsupported regular expression: \(error.description).")
                }
                if let field, field.kind == .text {
                    parts.append(.regex(field, pattern: pattern, options: options))
                } else {
                    parts.append(.never)
                }
            case "$options":
                continue
            default:
                throw ParseError(107, "bad constraint: \(op)")
            }
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private static func regexOptions(_ value: JSONValue?) throws -> String {
        guard let value else { return "" }
        guard case .string(let options) = value, options.allSatisfy({ "imxs".contains($0) }) else {
            let shown = value.stringValue ?? value.typeName
            throw ParseError(102, "Bad $options value for query: \(shown)")
        }
        return options
    }

    private static func equality(_ field: LocationField?, _ value: JSONValue) -> LocationFilter {
        guard let field else { return value == .null ? .always : .never }
        guard let typed = typedValue(value, for: field) else { return .never }
        return .compare(field, .equal, typed)
    }

    /// The operand as the field's type, or nil when it can never equal that field.
    static func typedValue(_ value: JSONValue, for field: LocationField) -> FilterValue? {
        switch (field.kind, value) {
        case (.text, .string(let text)):
            return .text(text)
        case (.number, .number(let number)):
            return .number(number)
        case (.date, .string(let text)):
            return ParseDate.date(from: text).map { .text(ParseDate.string(from: $0)) }
        case (.date, .object(let object)):
            guard object["__type"] == .string("Date"), let iso = object["iso"]?.stringValue,
                let date = ParseDate.date(from: iso)
            else { return nil }
            return .text(ParseDate.string(from: date))
        default:
            return nil
        }
    }
}
