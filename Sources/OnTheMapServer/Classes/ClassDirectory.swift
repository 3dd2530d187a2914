import Foundation
import Storage
import Synchronization

/// The server's classes by slug, read from the database and kept for a few seconds, so
/// resolving a request's class costs no query on a busy route. This server's own changes
/// (all through `ClassWrites`, the only caller of `remember` and `forget`) replace their entry
/// at once; another server's, and the host's commands', are seen within `freshness`.
final class ClassDirectory: Sendable {
    private struct Entry {
        let mapClass: MapClass?
        let readAt: Date
    }

    private let store: any ClassRepository
    private let clock: WallClock
    private let entries = Mutex<[String: Entry]>([:])
    /// The slug the unprefixed routes serve.
    let defaultSlug: String
    static let freshness: TimeInterval = 5
    static let maximumEntries = 10_000

    init(store: any ClassRepository, defaultSlug: String, clock: WallClock) {
        self.store = store
        self.defaultSlug = defaultSlug
        self.clock = clock
    }

    /// The class with this slug, or nil when there is none.
    func mapClass(slug: String) async throws -> MapClass? {
        let now = clock.now()
        if let entry = entries.withLock({ $0[slug] }), now.timeIntervalSince(entry.readAt) < Self.freshness {
            return entry.mapClass
        }
        let found = try await store.mapClass(slug: slug)
        entries.withLock { entries in
            if entries.count >= Self.maximumEntries { entries.removeAll(keepingCapacity: true) }
            entries[slug] = Entry(mapClass: found, readAt: now)
        }
        return found
    }

    /// The class with this id (read from the database, then kept by its slug).
    func mapClass(id: String) async throws -> MapClass? {
        guard let found = try await store.mapClass(id: id) else { return nil }
        remember(found)
        return found
    }

    /// The class the unprefixed routes serve (made at start when missing).
    func defaultClass() async throws -> MapClass {
        guard let found = try await mapClass(slug: defaultSlug) else { throw DefaultClassMissing(slug: defaultSlug) }
        return found
    }

    /// Records a class this server just created or changed (`ClassWrites`).
    fileprivate func remember(_ mapClass: MapClass) {
        entries.withLock { $0[mapClass.slug] = Entry(mapClass: mapClass, readAt: clock.now()) }
    }

    /// Records that a class is gone (`ClassWrites`).
    fileprivate func forget(slug: String) {
        entries.withLock { $0[slug] = Entry(mapClass: nil, readAt: clock.now()) }
    }

    /// Makes sure the default class exists: a database older than classes has it from its
    /// migration; a host who named another slug gets a members-only, open class of that name.
    func ensureDefaultClass(now: Date) async throws -> MapClass {
        if let found = try await store.mapClass(slug: defaultSlug) { return found }
        let made = MapClass(
            id: Identifiers.objectId(), slug: defaultSlug, name: defaultSlug, visibility: .members, joinRule: .open,
            precision: .exact, createdAt: now)
        do {
            try await store.createClass(made, teacherKey: nil, now: now)
        } catch StorageError.slugTaken {
            // Another server made it at the same moment.
        }
        guard let found = try await store.mapClass(slug: defaultSlug) else { throw DefaultClassMissing(slug: defaultSlug) }
        remember(found)
        return found
    }
}

/// Every write of a class itself (creating it, changing its settings or invite link, deleting
/// it) goes through here: the store is written, then `ClassDirectory` learns the class as it
/// now is, so no route reads this server's old copy and none updates the directory itself.
/// What a class write does to its map (a coarser precision moves its posts; deleting it
/// empties it) goes through `LocationWrites`. Memberships do not change the class: they are
/// written through the store (leaving and removals, which take posts, through `LocationWrites`).
/// (`ensureDefaultClass`, at start, is the directory's own write.)
struct ClassWrites: Sendable {
    let store: any ClassRepository
    let directory: ClassDirectory
    let locations: LocationWrites

    /// Creates the class, with `teacherKey` (if any) as its first teacher; throws
    /// `StorageError.slugTaken` when the slug is in use.
    func create(_ mapClass: MapClass, teacherKey: String?, now: Date) async throws {
        try await store.createClass(mapClass, teacherKey: teacherKey, now: now)
        directory.remember(mapClass)
    }

    /// Changes the settings `changes` names (`LocationWrites.changeClass`); the class as it now
    /// is, or nil when it is gone.
    func change(_ classId: String, _ changes: ClassChanges) async throws -> MapClass? {
        guard let changed = try await locations.changeClass(classId, changes) else { return nil }
        directory.remember(changed)
        return changed
    }

    /// Deletes the class with its map, roster and invite link; false when it was gone.
    func delete(_ mapClass: MapClass) async throws -> Bool {
        let deleted = try await locations.deleteClass(mapClass)
        if deleted { directory.forget(slug: mapClass.slug) }
        return deleted
    }
}

/// The default class vanished from the database (someone deleted it by hand).
struct DefaultClassMissing: Error, CustomStringConvertible {
    let slug: String
    var description: String { "The default class '\(slug)' is missing from the database; restart the server to make it again." }
}
