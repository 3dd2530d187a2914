import Foundation
import OnTheMapModels
import Storage

/// Every change to the map goes through here, whoever makes it (a student's post, update or
/// delete; a moderator hiding, showing or deleting a post; an administrator disabling an
/// account): the store is written, then the list-answer cache is dropped and the live map
/// reads the change log before the answer goes, so the writer's next list or snapshot from
/// this server shows the write. No route does either itself.
struct LocationWrites: Sendable {
    let store: any OnTheMapStore
    /// Shared by every mount of the StudentLocation class.
    let cache: ListResponseCache?
    let live: LiveLocations?

    func insert(_ location: StoredLocation) async throws {
        try await store.insertLocation(location)
        await changed()
    }

    func update(objectId: String, patch: LocationPatch, updatedAt: Date) async throws -> StudentInformation? {
        let updated = try await store.updateLocation(objectId: objectId, patch: patch, updatedAt: updatedAt)
        if updated != nil { await changed() }
        return updated
    }

    func delete(objectId: String) async throws -> Bool {
        let deleted = try await store.deleteLocation(objectId: objectId)
        if deleted { await changed() }
        return deleted
    }

    func setHidden(objectId: String, _ hidden: Bool, reason: String, moderatorKey: String?, now: Date) async throws -> Bool {
        let changedRow = try await store.setHidden(objectId: objectId, hidden, reason: reason, moderatorKey: moderatorKey, now: now)
        if changedRow { await changed() }
        return changedRow
    }

    func moderatorDelete(objectId: String, reason: String, moderatorKey: String?, now: Date) async throws -> Bool {
        let deleted = try await store.moderatorDelete(objectId: objectId, reason: reason, moderatorKey: moderatorKey, now: now)
        if deleted { await changed() }
        return deleted
    }

    /// Disabling hides the account's posts for everyone; enabling shows them again.
    func setDisabled(accountKey: String, _ disabled: Bool, now: Date) async throws -> AccountChange {
        let outcome = try await store.setDisabled(accountKey: accountKey, disabled, now: now)
        if case .done = outcome { await changed() }
        return outcome
    }

    private func changed() async {
        cache?.invalidate()
        await live?.poll()
    }
}
