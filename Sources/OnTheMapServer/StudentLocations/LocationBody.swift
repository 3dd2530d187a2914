import Foundation
import Storage

/// Validates a POST or PUT body field by field, with Parse's codes: 105 for a bad field
/// name, 111 for a wrong type, 142 for a value we refuse. Nothing is stored on any error.
enum LocationBody {
    static let textFields: [(field: LocationField, maxLength: Int)] = [
        (.uniqueKey, 128), (.firstName, 100), (.lastName, 100), (.mapString, 200), (.mediaURL, 2048),
    ]
    /// Sent back by clients that post their whole decoded record; the server owns them.
    static let ignoredFields: Set<String> = ["createdAt", "updatedAt", "ACL"]

    static func patch(from body: Data, creating: Bool) throws -> LocationPatch {
        guard case .object(let object) = JSONValue.parse(body) else { throw ParseError.invalidJSON }
        if creating, object["objectId"] != nil || object["id"] != nil {
            throw ParseError(105, "objectId is an invalid field name.")
        }
        var patch = LocationPatch()
        for (key, value) in object {
            if ignoredFields.contains(key) || key == "objectId" { continue }
            guard ParseQuery.matches(keyPattern, key) else { throw ParseError(105, "Invalid field name: \(key).") }
            guard let field = LocationField(rawValue: key) else { continue }  // unknown fields are not stored
            switch field.kind {
            case .number:
                guard case .number(let number) = value else { throw typeMismatch(field, expected: "Number", got: value) }
                let range: ClosedRange<Double> = field == .latitude ? -90...90 : -180...180
                guard range.contains(number) else {
                    throw ParseError(142, "\(key) must be between \(Int(range.lowerBound)) and \(Int(range.upperBound)).")
                }
                if field == .latitude { patch.latitude = number } else { patch.longitude = number }
            case .text:
                guard case .string(let text) = value else { throw typeMismatch(field, expected: "String", got: value) }
                let maxLength = textFields.first { $0.field == field }!.maxLength
                guard text.count <= maxLength else { throw ParseError(142, "\(key) is too long (at most \(maxLength) characters).") }
                guard TextRules.isDisplaySafe(text) else {
                    throw ParseError(142, "\(key) must not contain control or text-direction characters.")
                }
                if field == .mediaURL, !isAcceptableLink(text) {
                    throw ParseError(142, "mediaURL must be an http or https link.")
                }
                switch field {
                case .uniqueKey: patch.uniqueKey = text
                case .firstName: patch.firstName = text
                case .lastName: patch.lastName = text
                case .mapString: patch.mapString = text
                default: patch.mediaURL = text
                }
            case .date:
                continue  // createdAt/updatedAt are handled above
            }
        }
        if creating {
            if patch.latitude == nil { throw ParseError(142, "latitude is required.") }
            if patch.longitude == nil { throw ParseError(142, "longitude is required.") }
        }
        return patch
    }

    private static let keyPattern = try! NSRegularExpression(pattern: #"^[a-zA-Z][a-zA-Z0-9_]*$"#)
    private static let schemePattern = try! NSRegularExpression(pattern: #"^([a-zA-Z][a-zA-Z0-9+.\-]*):(?!\d)"#)

    /// http(s) links, an empty link, or a bare host as the original apps stored
    /// (`www.linkedin.com/in/x`, `example.com:8080/x`). Any other scheme is refused.
    static func isAcceptableLink(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let match = schemePattern.firstMatch(in: trimmed, range: NSRange(trimmed.startIndex..., in: trimmed)),
            let schemeRange = Range(match.range(at: 1), in: trimmed)
        else { return !trimmed.hasPrefix("//") || trimmed.isEmpty }
        let scheme = trimmed[schemeRange].lowercased()
        guard scheme == "http" || scheme == "https" else { return false }
        return URL(string: trimmed)?.host?.isEmpty == false
    }

    private static func typeMismatch(_ field: LocationField, expected: String, got value: JSONValue) -> ParseError {
        ParseError(111, "schema mismatch for StudentLocation.\(field.rawValue); expected \(expected) but got \(value.typeName)")
    }
}
