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
    /// PostgresNIO, reading each row's cells one by one with their concrete types. PostgresKit's
    /// `SQLRow` adapter builds a coding path and goes through dynamic casts for every cell, and
    /// PostgresNIO's tuple decoding (`rows.decode((String, …).self)`) is generic over a
    /// parameter pack that is not specialised outside PostgresNIO: it looks up tuple and type
    /// metadata at run time for every cell. Either costs more than the query on a 100-row page.
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
        let context = PostgresDecodingContext.default  // once: it holds a JSON decoder, retained at each use
        for try await row in rows {
            locations.append(try location(from: row, context: context))
        }
        return locations
    }

    /// One row of `SQLStore.locationColumns` as a record; a row of other columns, or a value of
    /// another type, is an error, as it was for the tuple decoding.
    static func location(from row: PostgresRow, context: PostgresDecodingContext<JSONDecoder>) throws -> StudentInformation {
        guard row.count == columnCount else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "A location row has \(row.count) columns, not \(columnCount)"))
        }
        var cells = row.makeIterator()
        // `next()` cannot be nil here: the row has as many cells as columns, checked above.
        func text() throws -> String { try cells.next()!.decode(String.self, context: context) }
        func number() throws -> Double { try cells.next()!.decode(Double.self, context: context) }
        return StudentInformation(
            objectId: try text(), uniqueKey: try text(), firstName: try text(), lastName: try text(), mapString: try text(),
            mediaURL: try text(), latitude: try number(), longitude: try number(), createdAt: try text(), updatedAt: try text())
    }

    private static let columnCount = SQLStore.locationColumns.split(separator: ",").count
}

/// A list query bound a value of a type `PostgresSupport.locations` does not encode: a
/// programming error, caught by the test suites that run on PostgreSQL.
struct UnsupportedBind: Error {
    let type: String
}
