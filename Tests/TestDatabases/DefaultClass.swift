import Foundation
import OnTheMapModels
import Storage

// The store as the tests written before classes use it: everything in the class migration 11
// made (`MapClass.migratedDefaultID`). Tests of classes name their class.

extension StoredLocation {
    public init(record: StudentInformation, ownerKey: String?) {
        self.init(record: record, ownerKey: ownerKey, classId: MapClass.migratedDefaultID)
    }
}

extension StudentLocationRepository {
    public func locations(_ query: LocationQuery, in classId: String) async throws -> [StudentInformation] {
        try await locations(query, in: classId, author: nil)
    }

    public func countLocations(_ filter: LocationFilter, in classId: String) async throws -> Int {
        try await countLocations(filter, in: classId, author: nil)
    }

    public func location(objectId: String, in classId: String) async throws -> StoredLocation? {
        try await location(objectId: objectId, in: classId, author: nil)
    }

    public func locations(_ query: LocationQuery) async throws -> [StudentInformation] {
        try await locations(query, in: MapClass.migratedDefaultID, author: nil)
    }

    public func countLocations(_ filter: LocationFilter) async throws -> Int {
        try await countLocations(filter, in: MapClass.migratedDefaultID, author: nil)
    }

    public func location(objectId: String) async throws -> StoredLocation? {
        try await location(objectId: objectId, in: MapClass.migratedDefaultID, author: nil)
    }

    public func updateLocation(objectId: String, patch: LocationPatch, updatedAt: Date) async throws -> StudentInformation? {
        try await updateLocation(objectId: objectId, in: MapClass.migratedDefaultID, patch: patch, updatedAt: updatedAt)
    }

    @discardableResult
    public func deleteLocation(objectId: String) async throws -> Bool {
        try await deleteLocation(objectId: objectId, in: MapClass.migratedDefaultID)
    }
}

extension ModerationRepository {
    public func moderatedLocation(objectId: String) async throws -> ModeratedLocation? {
        try await moderatedLocation(objectId: objectId, in: MapClass.migratedDefaultID)
    }

    public func moderationList(_ view: ModerationView, limit: Int) async throws -> [ModeratedLocation] {
        try await moderationList(view, in: MapClass.migratedDefaultID, limit: limit)
    }

    public func setHidden(objectId: String, _ hidden: Bool, reason: String, moderatorKey: String?, now: Date) async throws -> Bool {
        try await setHidden(
            objectId: objectId, in: MapClass.migratedDefaultID, hidden, reason: reason, moderatorKey: moderatorKey, now: now)
    }

    public func moderatorDelete(objectId: String, reason: String, moderatorKey: String?, now: Date) async throws -> Bool {
        try await moderatorDelete(objectId: objectId, in: MapClass.migratedDefaultID, reason: reason, moderatorKey: moderatorKey, now: now)
    }

    public func report(objectId: String, reporterKey: String, reason: String, now: Date) async throws -> ReportOutcome {
        try await report(objectId: objectId, in: MapClass.migratedDefaultID, reporterKey: reporterKey, reason: reason, now: now)
    }
}

extension LocationChangeRepository {
    public func locationsByObjectId(after objectId: String, limit: Int) async throws -> [StudentInformation] {
        try await locationsByObjectId(after: objectId, in: MapClass.migratedDefaultID, limit: limit)
    }
}
