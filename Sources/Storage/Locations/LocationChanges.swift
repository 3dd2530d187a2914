import OnTheMapModels
import SQLKit

/// One entry of the live map's change log (migration 6): what a write did to a student
/// location, numbered by the database, so every server tells every viewer the same story
/// in the same order.
public struct LocationChange: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case created, updated, deleted
        /// The table was emptied at once (PostgreSQL TRUNCATE): start again from a snapshot.
        case reset
        /// Someone's access ended (migration 18): `objectId` is an account's key or a session
        /// token's digest (empty for everyone), `classId` the class (empty for every class).
        /// Not a change of the map: the streams it names close, and their readers reconnect
        /// through the full check.
        case ended
    }

    public var version: Int64
    public var kind: Kind
    public var objectId: String
    /// The record after the change; nil for `deleted` and `reset`.
    public var record: StudentInformation?
    /// The class whose map changed; empty for a `reset`, which concerns every class.
    public var classId: String

    public init(version: Int64, kind: Kind, objectId: String, record: StudentInformation?, classId: String) {
        self.version = version
        self.kind = kind
        self.objectId = objectId
        self.record = record
        self.classId = classId
    }
}

/// The change log, read by each server's live map (writes append to it by trigger).
public protocol LocationChangeRepository: Sendable {
    /// Changes with a version above `version`, oldest first, at most `limit`.
    func locationChanges(after version: Int64, limit: Int) async throws -> [LocationChange]
    /// The newest `limit` changes of the map, oldest first (no `ended` entries).
    func latestLocationChanges(limit: Int) async throws -> [LocationChange]
    /// The highest version ever logged that is still kept (0 when none).
    func latestLocationVersion() async throws -> Int64
    /// The highest logged version of each class that has changes still kept (`ended` entries aside).
    func latestLocationVersionsByClass() async throws -> [String: Int64]
    /// Every visible location of a class in object-id order after `objectId`, a page at a
    /// time, so a full read of a big class is many short statements, each within the deadline.
    func locationsByObjectId(after objectId: String, in classId: String, limit: Int) async throws -> [StudentInformation]
    /// Whether `locationsByObjectId` orders objectIds by their bytes (SQLite's default
    /// collation; PostgreSQL's "C", which the migrations give every text column), so that a
    /// range of them can be read by bytes.
    var ordersObjectIdsByBytes: Bool { get }
    /// The highest version pruned from the log: every change above it is kept (as its record's
    /// newest change). 0 when the log was never pruned.
    func locationLogHorizon() async throws -> Int64
    /// Forgets all but the newest `keeping` changes; returns how many went.
    @discardableResult func pruneLocationChanges(keeping: Int) async throws -> Int
}

// (`SQLStore` conforms to `LocationChangeRepository` through `OnTheMapStore`.)
extension SQLStore {
    static let changeColumns =
        "version, kind, class_id, object_id, unique_key, first_name, last_name, map_string, media_url, latitude, longitude, created_at, updated_at"

    public func locationChanges(after version: Int64, limit: Int) async throws -> [LocationChange] {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT \(unsafeRaw: Self.changeColumns) FROM location_changes
                WHERE version > \(bind: version) ORDER BY version LIMIT \(literal: max(0, limit))
                """
            ).all().map(Self.change(from:))
        }
    }

    public func latestLocationChanges(limit: Int) async throws -> [LocationChange] {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT \(unsafeRaw: Self.changeColumns) FROM location_changes WHERE kind <> 'ended' ORDER BY version DESC LIMIT \(literal: max(0, limit))
                """
            ).all().map(Self.change(from:)).reversed()
        }
    }

    public func latestLocationVersion() async throws -> Int64 {
        try await withDatabase { db in
            try await db.raw("SELECT MAX(version) AS v FROM location_changes").first()?.decode(column: "v", as: Int64?.self) ?? 0
        }
    }

    public func latestLocationVersionsByClass() async throws -> [String: Int64] {
        try await withDatabase { db in
            var versions: [String: Int64] = [:]
            for row in try await db.raw("SELECT class_id, MAX(version) AS v FROM location_changes WHERE kind <> 'ended' GROUP BY class_id")
                .all()
            {
                versions[try row.decode(column: "class_id", as: String.self)] = try row.decode(column: "v", as: Int64.self)
            }
            return versions
        }
    }

    public func locationsByObjectId(after objectId: String, in classId: String, limit: Int) async throws -> [StudentInformation] {
        let statement: SQLQueryString = """
            SELECT \(unsafeRaw: Self.locationColumns) FROM student_locations
            WHERE class_id = \(bind: classId) AND \(unsafeRaw: VisiblePost.condition) AND object_id > \(bind: objectId)
            ORDER BY object_id LIMIT \(literal: max(0, limit))
            """
        // A live map's snapshot reads its class in pages of these, with the list's row reader.
        return try await readLocations(statement)
    }

    public var ordersObjectIdsByBytes: Bool { objectIdsOrderedByBytes }

    public func locationLogHorizon() async throws -> Int64 {
        try await withDatabase { db in
            try await db.raw("SELECT pruned_through FROM location_log_horizon").first()?.decode(column: "pruned_through", as: Int64.self)
                ?? 0
        }
    }

    @discardableResult
    public func pruneLocationChanges(keeping: Int) async throws -> Int {
        try await withDatabase { db in
            // The horizon first: a crash between the two leaves it higher than needed, never lower.
            try await db.raw(
                """
                UPDATE location_log_horizon SET pruned_through = (SELECT COALESCE(MAX(version), 0) FROM location_changes) - \(literal: max(1, keeping))
                WHERE pruned_through < (SELECT COALESCE(MAX(version), 0) FROM location_changes) - \(literal: max(1, keeping))
                """
            ).run()
            // The newest change always stays, so the highest version is never forgotten. Ended
            // access is needed only until every server has read it (a second or so), and names
            // accounts: it goes sooner.
            return try await db.raw(
                """
                DELETE FROM location_changes
                WHERE version <= (SELECT MAX(version) FROM location_changes) - \(literal: max(1, keeping))
                   OR (kind = 'ended' AND version <= (SELECT MAX(version) FROM location_changes) - \(literal: max(1, min(keeping, Self.keptEndedAccess))))
                RETURNING version
                """
            ).all().count
        }
    }

    /// How many versions an `ended` entry outlives.
    static let keptEndedAccess = 1_000

    private static func change(from row: any SQLRow) throws -> LocationChange {
        let kindText = try row.decode(column: "kind", as: String.self)
        let kind = LocationChange.Kind(rawValue: kindText) ?? .reset
        let objectId = try row.decode(column: "object_id", as: String.self)
        var record: StudentInformation?
        if kind == .created || kind == .updated {
            record = StudentInformation(
                objectId: objectId,
                uniqueKey: try row.decode(column: "unique_key", as: String?.self) ?? "",
                firstName: try row.decode(column: "first_name", as: String?.self) ?? "",
                lastName: try row.decode(column: "last_name", as: String?.self) ?? "",
                mapString: try row.decode(column: "map_string", as: String?.self) ?? "",
                mediaURL: try row.decode(column: "media_url", as: String?.self) ?? "",
                latitude: try row.decode(column: "latitude", as: Double?.self) ?? 0,
                longitude: try row.decode(column: "longitude", as: Double?.self) ?? 0,
                createdAt: try row.decode(column: "created_at", as: String?.self) ?? "",
                updatedAt: try row.decode(column: "updated_at", as: String?.self) ?? ""
            )
        }
        return LocationChange(
            version: try row.decode(column: "version", as: Int64.self), kind: kind, objectId: objectId, record: record,
            classId: kind == .reset ? "" : try row.decode(column: "class_id", as: String.self))
    }
}
