import Foundation
import Logging
import OnTheMapModels
import PostgresKit
import SQLKit

/// What PostgreSQL needs that SQLite does not, in one place.
enum PostgresSupport {
    /// `$regex` as PostgreSQL's `~` operator. Parse follows MongoDB (and ICU): `.` stops at
    /// a newline unless `s`, and `^`/`$` match at line breaks only with `m`; PostgreSQL's
    /// defaults differ, so the flags are spelled out as embedded options every time.
    /// The deadline is PostgreSQL's own `statement_timeout` (see `withStatementTimeout`).
    @Sendable static func regexCondition(column: String, pattern: String, options: String, deadline _: UInt64) -> SQLQueryString {
        let multiline = options.contains("m")
        let dotAll = options.contains("s")
        var flags = multiline ? (dotAll ? "w" : "n") : (dotAll ? "" : "p")
        if options.contains("i") { flags += "i" }
        if options.contains("x") { flags += "x" }
        let embedded = flags.isEmpty ? pattern : "(?\(flags))" + pattern
        return "\(ident: column) ~ \(bind: embedded)"
    }

    /// `configuration` with every statement on its connections cancelled by the server past
    /// `timeout` (a startup parameter, so it costs no round trip and `RESET` restores it).
    static func withStatementTimeout(_ configuration: SQLPostgresConfiguration, _ timeout: TimeInterval?) -> SQLPostgresConfiguration {
        guard let timeout else { return configuration }
        var configuration = configuration
        let milliseconds = max(1, Int((timeout * 1000).rounded()))
        configuration.coreConfiguration.options.additionalStartupParameters.append(("statement_timeout", "\(milliseconds)"))
        return configuration
    }

    /// Errors caused by the input rather than the server, as storage errors callers can
    /// answer with a 400; nil for everything else.
    static func storageError(for error: PSQLError) -> StorageError? {
        switch error.serverInfo?[.sqlState].map(PostgresError.Code.init(raw:)) {
        case .characterNotInRepertoire?, .untranslatableCharacter?:
            return .unstorableText
        case .invalidRegularExpression?:
            return .unsupportedPattern(error.serverInfo?[.message] ?? "rejected by PostgreSQL")
        case .queryCanceled?:
            // 57014: `statement_timeout` cancelled it.
            return .queryTimeout
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

    /// Runs a student-location SELECT (columns as `SQLStore.locationColumns`) straight on
    /// PostgresNIO, decoding each row as one typed tuple: PostgresKit's `SQLRow` adapter
    /// builds a coding path and goes through dynamic casts for every cell, which costs more
    /// than the query on a 100-row page.
    static func locations(_ query: SQLQueryString, on connection: PostgresConnection, logger: Logger) async throws -> [StudentInformation] {
        let (sql, binds) = connection.sql().serialize(query)
        var bindings = PostgresBindings()
        for bind in binds {
            switch bind {
            case let text as String: bindings.append(text)
            case let number as Double: bindings.append(number)
            case let number as Int: bindings.append(number)
            case FilterValue.text(let text) as FilterValue: bindings.append(text)
            case FilterValue.number(let number) as FilterValue: bindings.append(number)
            default: throw UnsupportedBind(type: "\(type(of: bind))")
            }
        }
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
        var locations: [StudentInformation] = []
        for try await (objectId, uniqueKey, firstName, lastName, mapString, mediaURL, latitude, longitude, createdAt, updatedAt)
            in rows.decode((String, String, String, String, String, String, Double, Double, String, String).self)
        {
            locations.append(
                StudentInformation(
                    objectId: objectId, uniqueKey: uniqueKey, firstName: firstName, lastName: lastName, mapString: mapString,
                    mediaURL: mediaURL, latitude: latitude, longitude: longitude, createdAt: createdAt, updatedAt: updatedAt
                ))
        }
        return locations
    }
}

/// A list query bound a value of a type `PostgresSupport.locations` does not encode: a
/// programming error, caught by the test suites that run on PostgreSQL.
struct UnsupportedBind: Error {
    let type: String
}
