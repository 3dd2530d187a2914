import Foundation
import OnTheMapModels

/// Every read and write names its class (`MapClass.id`): a record of another class is not
/// found, whatever its objectId.
///
/// A post waiting for approval is read only by its author: the calls taking `author` include
/// that account's waiting posts with the visible ones.
public protocol StudentLocationRepository: Sendable {
    func locations(_ query: LocationQuery, in classId: String, author: String?) async throws -> [StudentInformation]
    func countLocations(_ filter: LocationFilter, in classId: String, author: String?) async throws -> Int
    /// The posts a search finds (`SearchTerms`), newest first.
    func searchLocations(_ search: LocationSearch, in classId: String, author: String?) async throws -> [StudentInformation]
    func location(objectId: String, in classId: String, author: String?) async throws -> StoredLocation?
    func insertLocation(_ location: StoredLocation) async throws
    /// Applies `patch` and stamps `updatedAt` (a waiting post too); returns the updated record,
    /// nil if it does not exist or a moderator hid it.
    func updateLocation(objectId: String, in classId: String, patch: LocationPatch, updatedAt: Date) async throws -> StudentInformation?
    /// Returns whether a record was deleted.
    @discardableResult func deleteLocation(objectId: String, in classId: String) async throws -> Bool
}
