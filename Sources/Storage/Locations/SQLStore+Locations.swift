import Foundation
import OnTheMapModels
import PostgresKit
import SQLKit

// (`SQLStore` conforms to `StudentLocationRepository` through `OnTheMapStore`.)
extension SQLStore {
    public func locations(_ query: LocationQuery, in classId: String, author: String?) async throws -> [StudentInformation] {
        try await read(query.filter) { deadline in try await self.locations(query, in: classId, author: author, deadline: deadline) }
    }

    private func locations(_ query: LocationQuery, in classId: String, author: String?, deadline: UInt64) async throws
        -> [StudentInformation]
    {
        var sql: SQLQueryString =
            "SELECT \(unsafeRaw: Self.locationColumns) FROM student_locations WHERE class_id = \(bind: classId) AND "
            + VisiblePost.readable(by: author) + " AND " + filters.render(query.filter, deadline: deadline)
        var orderTerms: [SQLQueryString] = query.sort.map { "\(ident: $0.field.column) \(unsafeRaw: $0.descending ? "DESC" : "ASC")" }
        // A stable tie-breaker keeps limit/skip pages from overlapping or skipping rows.
        let tieBreakDescending = query.sort.first?.descending ?? false
        orderTerms.append("object_id \(unsafeRaw: tieBreakDescending ? "DESC" : "ASC")")
        sql += " ORDER BY " + orderTerms.joined(separator: ", ")
        sql += " LIMIT \(literal: max(0, query.limit)) OFFSET \(literal: max(0, query.skip))"
        return try await readLocations(sql)
    }

    /// Runs a SELECT of `locationColumns` with each database's typed row reader
    /// (`PostgresSupport`, `SQLiteSupport`), not SQLKit's by-name decoding.
    func readLocations(_ statement: SQLQueryString) async throws -> [StudentInformation] {
        if case .postgres = pool {
            let logger = logger
            return try await withPostgresConnection { try await PostgresSupport.locations(statement, on: $0, logger: logger) }
        }
        return try await withSQLiteConnection { try await SQLiteSupport.locations(statement, on: $0) }
    }

    /// What a list query selects, in the order `PostgresSupport.locations` and `SQLiteSupport.locations` read it.
    static let locationColumns =
        "object_id, unique_key, first_name, last_name, map_string, media_url, latitude, longitude, created_at, updated_at"

    public func countLocations(_ filter: LocationFilter, in classId: String, author: String?) async throws -> Int {
        try await read(filter) { deadline in
            let statement: SQLQueryString =
                "SELECT COUNT(*) AS n FROM student_locations WHERE class_id = \(bind: classId) AND "
                + VisiblePost.readable(by: author) + " AND " + self.filters.render(filter, deadline: deadline)
            return try await self.withDatabase { db in
                try await db.raw(statement).first()?.decode(column: "n", as: Int.self) ?? 0
            }
        }
    }

    public func location(objectId: String, in classId: String, author: String?) async throws -> StoredLocation? {
        let statement: SQLQueryString =
            "SELECT * FROM student_locations WHERE object_id = \(bind: objectId) AND class_id = \(bind: classId) AND "
            + VisiblePost.readable(by: author)
        return try await withDatabase { db in
            guard let row = try await db.raw(statement).first() else { return nil }
            return StoredLocation(
                record: try Self.location(from: row), ownerKey: try row.decode(column: "owner_key", as: String?.self),
                classId: classId, waiting: try row.decode(column: "waiting", as: Int.self) != 0)
        }
    }

    public func insertLocation(_ location: StoredLocation) async throws {
        let r = location.record
        try await withTransaction { db in
            try await db.raw(
                """
                INSERT INTO student_locations (object_id, owner_key, unique_key, first_name, last_name, map_string,
                                               media_url, latitude, longitude, created_at, updated_at, class_id, waiting)
                VALUES (\(bind: r.objectId), \(bind: location.ownerKey), \(bind: r.uniqueKey), \(bind: r.firstName),
                        \(bind: r.lastName), \(bind: r.mapString), \(bind: r.mediaURL), \(bind: r.latitude),
                        \(bind: r.longitude), \(bind: r.createdAt), \(bind: r.updatedAt), \(bind: location.classId),
                        \(bind: location.waiting ? 1 : 0))
                """
            ).run()
            try await Self.writeSearchTerms(of: r, classId: location.classId, on: db)
        }
    }

    public func updateLocation(objectId: String, in classId: String, patch: LocationPatch, updatedAt: Date) async throws
        -> StudentInformation?
    {
        var assignments: [SQLQueryString] = ["updated_at = \(bind: ParseDate.string(from: updatedAt))"]
        func set(_ field: LocationField, _ value: (any Encodable & Sendable)?) {
            if let value { assignments.append("\(ident: field.column) = \(bind: value)") }
        }
        set(.uniqueKey, patch.uniqueKey)
        set(.firstName, patch.firstName)
        set(.lastName, patch.lastName)
        set(.mapString, patch.mapString)
        set(.mediaURL, patch.mediaURL)
        set(.latitude, patch.latitude)
        set(.longitude, patch.longitude)
        if let waiting = patch.waiting { assignments.append("waiting = \(bind: waiting ? 1 : 0)") }
        // A waiting post is its author's to change (the caller checked whose it is).
        let statement: SQLQueryString =
            "UPDATE student_locations SET " + assignments.joined(separator: ", ")
            + " WHERE object_id = \(bind: objectId) AND class_id = \(bind: classId) AND \(unsafeRaw: VisiblePost.present) RETURNING *"
        let renamesOrMoves = patch.firstName != nil || patch.lastName != nil || patch.mapString != nil
        return try await withTransaction { db in
            guard let updated = try await db.raw(statement).first().map(Self.location(from:)) else { return nil }
            if renamesOrMoves { try await Self.writeSearchTerms(of: updated, classId: classId, on: db) }
            return updated
        }
    }

    @discardableResult
    public func deleteLocation(objectId: String, in classId: String) async throws -> Bool {
        try await withTransaction { db in
            guard
                try await !db.raw(
                    """
                    DELETE FROM student_locations WHERE object_id = \(bind: objectId) AND class_id = \(bind: classId) RETURNING object_id
                    """
                ).all().isEmpty
            else { return false }
            // The post's reports go with it (the foreign key would cascade them too).
            try await db.raw("DELETE FROM location_reports WHERE object_id = \(bind: objectId)").run()
            return true
        }
    }

    static func location(from row: any SQLRow) throws -> StudentInformation {
        StudentInformation(
            objectId: try row.decode(column: "object_id", as: String.self),
            uniqueKey: try row.decode(column: "unique_key", as: String.self),
            firstName: try row.decode(column: "first_name", as: String.self),
            lastName: try row.decode(column: "last_name", as: String.self),
            mapString: try row.decode(column: "map_string", as: String.self),
            mediaURL: try row.decode(column: "media_url", as: String.self),
            latitude: try row.decode(column: "latitude", as: Double.self),
            longitude: try row.decode(column: "longitude", as: Double.self),
            createdAt: try row.decode(column: "created_at", as: String.self),
            updatedAt: try row.decode(column: "updated_at", as: String.self)
        )
    }
}
