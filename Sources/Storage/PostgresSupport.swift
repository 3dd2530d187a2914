import PostgresKit
import SQLKit

/// What PostgreSQL needs that SQLite does not, in one place.
enum PostgresSupport {
    /// `$regex` as PostgreSQL's `~` operator. Parse follows MongoDB (and ICU): `.` stops at
    /// a newline unless `s`, and `^`/`$` match at line breaks only with `m`; PostgreSQL's
    /// defaults differ, so the flags are spelled out as embedded options every time.
    @Sendable static func regexCondition(column: String, pattern: String, options: String) -> SQLQueryString {
        let multiline = options.contains("m"), dotAll = options.contains("s")
        var flags = multiline ? (dotAll ? "w" : "n") : (dotAll ? "" : "p")
        if options.contains("i") { flags += "i" }
        if options.contains("x") { flags += "x" }
        let embedded = flags.isEmpty ? pattern : "(?\(flags))" + pattern
        return "\(ident: column) ~ \(bind: embedded)"
    }

    /// Errors caused by the input rather than the server, as storage errors callers can
    /// answer with a 400; nil for everything else.
    static func storageError(for error: PSQLError) -> StorageError? {
        switch error.serverInfo?[.sqlState].map(PostgresError.Code.init(raw:)) {
        case .characterNotInRepertoire?, .untranslatableCharacter?:
            return .unstorableText
        case .invalidRegularExpression?:
            return .unsupportedPattern(error.serverInfo?[.message] ?? "rejected by PostgreSQL")
        default:
            return nil
        }
    }

    /// Why a connection or a statement failed, in words an operator can act on. PSQLError's
    /// own description is deliberately vague (it may hold data); these parts do not.
    static func reason(for error: PSQLError) -> String {
        if let message = error.serverInfo?[.message] {
            return "PostgreSQL says: \(message)"
        }
        if let underlying = error.underlying {
            return "\(error.code): \(underlying)"
        }
        return "\(error.code)"
    }
}
