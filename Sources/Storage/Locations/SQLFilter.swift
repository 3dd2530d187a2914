import SQLKit

/// Renders a `LocationFilter` as a SQL condition with bound values. Written once for every
/// dialect: only the regex operator differs between SQLite and PostgreSQL.
struct SQLFilterRenderer: Sendable {
    var regexOperator: @Sendable (_ column: String, _ pattern: String, _ options: String, _ deadline: UInt64) -> SQLQueryString

    /// `deadline` (`DispatchTime.uptimeNanoseconds`, 0 for none) reaches SQLite's regex function.
    func render(_ filter: LocationFilter, deadline: UInt64 = 0) -> SQLQueryString {
        func render(_ filter: LocationFilter) -> SQLQueryString { self.render(filter, deadline: deadline) }
        switch filter {
        case .always:
            return "1 = 1"
        case .never:
            return "1 = 0"
        case .and(let parts):
            return parts.isEmpty ? "1 = 1" : "(" + parts.map(render).joined(separator: " AND ") + ")"
        case .or(let parts):
            return parts.isEmpty ? "1 = 0" : "(" + parts.map(render).joined(separator: " OR ") + ")"
        case .not(let inner):
            return "NOT (" + render(inner) + ")"
        case .compare(let field, let comparison, let value):
            return "\(ident: field.column) \(unsafeRaw: comparison.rawValue) \(bind: value)"
        case .oneOf(let field, let values):
            guard !values.isEmpty else { return "1 = 0" }
            return "\(ident: field.column) IN (\(binds: values.map { $0 as any Encodable & Sendable }))"
        case .regex(let field, let pattern, let options):
            return regexOperator(field.column, pattern, options, deadline)
        }
    }
}

extension FilterValue: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .number(let number): try container.encode(number)
        }
    }
}
