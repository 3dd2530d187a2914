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
        await changed([location.classId])
    }

    func update(objectId: String, in classId: String, patch: LocationPatch, updatedAt: Date) async throws -> StudentInformation? {
        let updated = try await store.updateLocation(objectId: objectId, in: classId, patch: patch, updatedAt: updatedAt)
        if updated != nil { await changed([classId]) }
        return updated
    }

    func delete(objectId: String, in classId: String) async throws -> Bool {
        let deleted = try await store.deleteLocation(objectId: objectId, in: classId)
        if deleted { await changed([classId]) }
        return deleted
    }

    func setHidden(objectId: String, in classId: String, _ hidden: Bool, reason: String, moderatorKey: String?, now: Date) async throws
        -> Bool
    {
        let changedRow = try await store.setHidden(
            objectId: objectId, in: classId, hidden, reason: reason, moderatorKey: moderatorKey, now: now)
        if changedRow { await changed([classId]) }
        return changedRow
    }

    func moderatorDelete(objectId: String, in classId: String, reason: String, moderatorKey: String?, now: Date) async throws -> Bool {
        let deleted = try await store.moderatorDelete(objectId: objectId, in: classId, reason: reason, moderatorKey: moderatorKey, now: now)
        if deleted { await changed([classId]) }
        return deleted
    }

    func approve(objectId: String, in classId: String, moderatorKey: String?, now: Date) async throws -> Bool {
        let approved = try await store.approve(objectId: objectId, in: classId, moderatorKey: moderatorKey, now: now)
        if approved { await changed([classId]) }
        return approved
    }

    func reject(objectId: String, in classId: String, reason: String, moderatorKey: String?, now: Date) async throws -> Bool {
        try await store.reject(objectId: objectId, in: classId, reason: reason, moderatorKey: moderatorKey, now: now)
    }

    /// A class deleted at the end of term: its map goes for every viewer. (`ClassWrites.delete`
    /// calls it, and updates the class directory.)
    func deleteClass(_ mapClass: MapClass) async throws -> Bool {
        let deleted = try await store.deleteClass(id: mapClass.id)
        if deleted { await changed([mapClass.id]) }
        return deleted
    }

    /// A member leaving, or removed by a teacher: their locations in the class go too.
    func removeMember(classId: String, accountKey: String) async throws -> MembershipChange {
        let outcome = try await store.removeMember(classId: classId, accountKey: accountKey)
        if outcome == .done { await changed([classId]) }
        return outcome
    }

    /// A change of a class's settings (only those named); a coarser precision coarsens the
    /// class's posts at once. The class as it now is, or nil when it is gone.
    /// (`ClassWrites.change` calls it, and updates the class directory.)
    func changeClass(_ classId: String, _ changes: ClassChanges) async throws -> MapClass? {
        let (changedClass, moved) = try await ClassPlacement.change(classId, changes, store: store)
        if moved > 0 { await changed([classId]) }
        return changedClass
    }

    /// After a post was placed at `placedAt`: when the class became coarser meanwhile (a
    /// teacher or the host changed it while the post was on its way), the post is placed
    /// again. Either the class's change was written before this check reads it, or the
    /// coarsening pass that follows it starts after the post was stored and rewrites it.
    func placeAgainIfCoarsened(objectId: String, in classId: String, placedAt: MapClass.Precision) async throws {
        // Nothing is coarser than a country: no need to ask.
        guard placedAt != .country, let precision = try await store.mapClass(id: classId)?.precision, precision > placedAt else { return }
        let moved = try await store.rewritePlaces(in: classId, only: objectId) { ClassPlacement.rewrite($0, precision: precision) }
        if moved > 0 { await changed([classId]) }
    }

    /// An account deleted by its owner: its posts leave every class's map.
    func deleteAccount(key: String, now: Date) async throws -> AccountDeletion? {
        let deletion = try await store.deleteAccount(key: key, now: now)
        if deletion != nil { await changed([""]) }
        return deletion
    }

    /// An account's new names, on every post of theirs in every class at once; nil when there
    /// is no such account.
    func renameAccount(key: String, firstName: String, lastName: String) async throws -> Set<String>? {
        let classes = try await store.renameAccount(accountKey: key, firstName: firstName, lastName: lastName)
        if let classes, !classes.isEmpty { await changed(classes) }
        return classes
    }

    /// Disabling hides the account's posts for everyone; enabling shows them again.
    func setDisabled(accountKey: String, _ disabled: Bool, now: Date) async throws -> AccountChange {
        let outcome = try await store.setDisabled(accountKey: accountKey, disabled, now: now)
        if case .done = outcome { await changed([""]) }
        return outcome
    }

    /// `classes`: the ids written to ("" for any class).
    private func changed(_ classes: Set<String>) async {
        cache?.invalidate(classes: classes)
        await live?.poll()
    }
}
