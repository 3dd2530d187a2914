import Foundation

/// A decoded JSON value that keeps types apart (a Bool is never a number), so requests can
/// be validated field by field with Parse's type errors.
enum JSONValue: Decodable, Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// True when a string anywhere inside, key or value, holds U+0000.
    var containsNUL: Bool {
        switch self {
        case .null, .bool, .number: false
        case .string(let text): text.contains("\u{0}")
        case .array(let items): items.contains { $0.containsNUL }
        case .object(let members): members.contains { $0.key.contains("\u{0}") || $0.value.containsNUL }
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    static func parse(_ data: Data) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: data)
    }

    static func parse(_ text: String) -> JSONValue? {
        parse(Data(text.utf8))
    }

    /// Parse's name for the type, used in "expected Number but got String" messages.
    var typeName: String {
        switch self {
        case .null: "Null"
        case .bool: "Boolean"
        case .number: "Number"
        case .string: "String"
        case .array: "Array"
        case .object: "Object"
        }
    }

    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }
}
