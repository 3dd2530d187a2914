import Foundation
import OnTheMapModels
import SQLKit
import SQLiteKit
import SQLiteNIO

/// What SQLite needs that SQLKit would make slow, in one place (`PostgresSupport` is the same
/// for PostgreSQL).
enum SQLiteSupport {
    /// Runs a student-location SELECT (columns as `SQLStore.locationColumns`, in that order)
    /// straight on SQLiteNIO. Each row becomes a record on the SQLite thread, read by column
    /// position: SQLKit's row adapter looks every cell up by name and decodes it through a
    /// generic `Decoder`, which costs more than the query on a 100-row page. The conversions
    /// are SQLiteNIO's own, the ones SQLKit's decoder uses, so every value reads as before.
    static func locations(_ query: SQLQueryString, on connection: SQLiteConnection) async throws -> [StudentInformation] {
        let (sql, binds) = connection.sql(encoder: encoder, decoder: decoder).serialize(query)
        let records = LocationRows()
        try await connection.query(sql, try binds.map(data(for:))) { records.add($0) }
        return try records.result()
    }

    /// A value bound to a statement, as SQLKit's encoder would send it (it keeps `String`,
    /// `Double` and `Int` as they are, and a filter value as the text or number it holds).
    static func data(for bind: any Encodable & Sendable) throws -> SQLiteData {
        switch bind {
        case let text as String: .text(text)
        case let number as Double: .float(number)
        case let number as Int: .integer(number)
        case FilterValue.text(let text) as FilterValue: .text(text)
        case FilterValue.number(let number) as FilterValue: .float(number)
        default: try encoder.encode(bind)
        }
    }

    private static let encoder = SQLiteDataEncoder()
    private static let decoder = SQLiteDataDecoder()

    /// Columns of a student-location row, by position.
    private static let columnNames = SQLStore.locationColumns.split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespaces)
    }

    /// One row as a record, or why it cannot be one (a value SQLKit's decoder would refuse too).
    static func location(from row: SQLiteRow) throws -> StudentInformation {
        let columns = row.columns
        guard columns.count == columnNames.count else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "A location row has \(columns.count) columns, not \(columnNames.count)"))
        }
        func text(_ index: Int) throws -> String {
            guard let value = String(sqliteData: columns[index].data) else { throw mismatch(String.self, columns[index]) }
            return value
        }
        func number(_ index: Int) throws -> Double {
            guard let value = Double(sqliteData: columns[index].data) else { throw mismatch(Double.self, columns[index]) }
            return value
        }
        return StudentInformation(
            objectId: try text(0), uniqueKey: try text(1), firstName: try text(2), lastName: try text(3), mapString: try text(4),
            mediaURL: try text(5), latitude: try number(6), longitude: try number(7), createdAt: try text(8), updatedAt: try text(9))
    }

    private static func mismatch(_ type: Any.Type, _ column: SQLiteColumn) -> DecodingError {
        .typeMismatch(type, .init(codingPath: [], debugDescription: "Could not convert SQLite data in column \(column.name) to \(type)"))
    }
}

/// The records of one statement, built as SQLiteNIO hands over its rows.
/// `@unchecked Sendable`: SQLiteNIO calls `add` on one thread, one row after another, and
/// `SQLiteConnection.query` returns only after the last call; `result` is read after that.
private final class LocationRows: @unchecked Sendable {
    private var records: [StudentInformation] = []
    private var failure: (any Error)?

    func add(_ row: SQLiteRow) {
        guard failure == nil else { return }
        do {
            records.append(try SQLiteSupport.location(from: row))
        } catch {
            failure = error
        }
    }

    func result() throws -> [StudentInformation] {
        if let failure { throw failure }
        return records
    }
}
