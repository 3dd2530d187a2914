import Foundation
import OnTheMapModels
import Storage

/// The host's class commands (`onthemap admin class …`), on the database directly, with the
/// same rules as the API: a valid slug, a name people can read, a class that keeps a teacher.
public enum ClassHostTools {
    public struct Refused: Error, CustomStringConvertible {
        public let description: String
    }

    /// Makes a class with a fresh invite link.
    public static func create(
        slug: String, name: String?, visibility: MapClass.Visibility, join: MapClass.JoinRule,
        precision: MapClass.Precision = MapClass.NewClass.precision, approval: MapClass.Approval = MapClass.NewClass.approval,
        store: any OnTheMapStore,
        now: Date = Date()
    ) async throws -> MapClass {
        if let problem = ClassSlug.problem(slug) { throw Refused(description: problem) }
        let made = MapClass(
            id: Identifiers.objectId(), slug: slug, name: try checkedName(name ?? slug), visibility: visibility,
            joinRule: join, precision: precision, approval: approval, inviteCode: Tokens.randomHex(bytes: 12), createdAt: now)
        do {
            try await store.createClass(made, teacherKey: nil, now: now)
        } catch StorageError.slugTaken {
            throw Refused(description: "A class with the slug '\(slug)' exists.")
        }
        return made
    }

    /// The class with this slug, or a refusal that says how to list them.
    public static func find(_ slug: String, store: any OnTheMapStore) async throws -> MapClass {
        guard ClassSlug.isWellFormed(slug), let found = try await store.mapClass(slug: slug) else {
            throw Refused(description: "There is no class '\(slug)'. `onthemap admin class list` lists them.")
        }
        return found
    }

    public static func checkedName(_ text: String) throws -> String {
        do {
            return try ClassController.name(text)
        } catch let error as APIError {
            throw Refused(description: error.message)
        }
    }

    /// Gives the account the role in the class (adding it when it is not a member).
    public static func setRole(_ role: ClassRole, accountKey: String, in mapClass: MapClass, store: any OnTheMapStore) async throws {
        switch try await store.setMember(classId: mapClass.id, accountKey: accountKey, role: role, now: Date()) {
        case .done: return
        case .lastTeacher: throw Refused(description: "That is the class's last teacher: make another member a teacher first.")
        case .notFound: throw Refused(description: "No such account or class.")
        }
    }

    /// A new invite code for the class (`revoke`: none), saved.
    public static func newInvite(for mapClass: MapClass, revoke: Bool, store: any OnTheMapStore) async throws -> MapClass {
        var changes = ClassChanges(now: Date())
        changes.inviteCode = .some(revoke ? nil : Tokens.randomHex(bytes: 12))
        return try await change(mapClass, changes, store: store).mapClass
    }

    /// Changes only the settings named (a teacher's change made meanwhile to another one
    /// stands), coarsening the class's posts when the precision became coarser; answers the
    /// class as it now is and how many posts moved. Running servers see the rewritten posts
    /// through the change log, like any write.
    public static func change(_ mapClass: MapClass, _ changes: ClassChanges, store: any OnTheMapStore) async throws -> (
        mapClass: MapClass, moved: Int
    ) {
        let (changed, moved) = try await ClassPlacement.change(mapClass.id, changes, store: store)
        guard let changed else { throw Refused(description: "No class with the slug '\(mapClass.slug)'.") }
        return (changed, moved)
    }

    /// The link a student opens to join: `origin/#/join/<slug>/<code>`.
    public static func inviteLink(_ mapClass: MapClass, origin: String) -> String? {
        mapClass.inviteCode.map { "\(origin)/#/join/\(mapClass.slug)/\($0)" }
    }
}
