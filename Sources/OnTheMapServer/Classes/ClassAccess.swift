import Hummingbird
import Storage

/// Every rule of who may do what in a class, in one place. Routes ask it; none decides
/// membership, visibility or roles itself.
///
/// - Reading: a `public` class, anyone; a `server` class, anyone signed in; a `members`
///   class, its members and the server's administrators.
/// - Membership: the roster's role, or, in an `open` class, student for every account.
/// - Posting one's own location: members and administrators (anyone, under legacy open
///   writes, in a public class); a post in an open class puts its author on the roster.
/// - Approval: who waits before their post shows.
/// - Moderating: moderators, teachers and administrators.
/// - Settings, invite link, roster and roles: teachers and administrators.
struct ClassAccess: Sendable {
    let mapClass: MapClass
    let caller: Caller

    /// The caller's role in the class, or nil for a non-member (and for administrators who
    /// are not on the roster: they act by `isAdministrator`).
    var role: ClassRole? {
        guard let signedIn = caller.signedIn else { return nil }
        return signedIn.role ?? (mapClass.joinRule == .open ? .student : nil)
    }

    /// The class a route names by slug, with the caller's role in it (an unknown slug is
    /// `ClassController.unknown`).
    static func named(_ slug: String, for caller: Caller, directory: ClassDirectory, store: any ClassRepository) async throws -> (
        MapClass, ClassAccess
    ) {
        guard ClassSlug.isWellFormed(slug), let found = try await directory.mapClass(slug: slug) else { throw ClassController.unknown }
        var caller = caller
        if let signedIn = caller.signedIn {
            let role = try await store.role(classId: found.id, accountKey: signedIn.accountKey)
            caller = .signedIn(SignedIn(session: signedIn.session, account: signedIn.account, role: role))
        }
        return (found, ClassAccess(mapClass: found, caller: caller))
    }

    var isAdministrator: Bool { caller.signedIn?.isAdministrator == true }
    var isMember: Bool { role != nil }

    var canRead: Bool {
        switch mapClass.visibility {
        case .public: true
        case .server: caller.signedIn != nil
        case .members: isAdministrator || isMember
        }
    }

    /// Nobody posts in an archived class (its map is read-only until it is unarchived).
    var canPost: Bool { mapClass.archivedAt == nil && (isAdministrator || isMember) }
    var canModerate: Bool { isAdministrator || (role.map { $0 >= .moderator } ?? false) }
    var canManage: Bool { isAdministrator || role == .teacher }

    /// Legacy open writes (`Configuration.legacyOpenWrites`: posting without a session, and
    /// changing any post) apply only where anyone may read: a public class.
    func allowsOpenWrites(legacy: Bool) -> Bool {
        legacy && mapClass.visibility == .public
    }

    /// A post by a member the roster does not name (anyone, in an open class) puts them on it.
    var joinsByPosting: Bool { caller.signedIn?.role == nil && isMember }

    /// Whether a post waits for a moderator's approval under `approval` (the class's setting
    /// as the database has it now); nil leaves an existing post's wait as it is. Moderators,
    /// teachers and administrators never wait; under `newMembers` an author's first post waits,
    /// and none once one of theirs was approved (`approvedPosts` counts them).
    func waitsForApproval(
        _ approval: MapClass.Approval, creating: Bool, author: String?, approvedPosts: (String) async throws -> Int
    ) async throws -> Bool? {
        switch approval {
        case .off: return creating ? false : nil
        case _ where canModerate: return false
        case .all: return true
        case .newMembers:
            guard creating else { return nil }
            guard let author else { return true }
            return try await approvedPosts(author) == 0
        }
    }

    /// Refuses, in the route family's format, a caller who may not read the class.
    func requireReader(_ refusal: ClassRefusal) throws {
        guard !canRead else { return }
        try requireSignedIn(refusal)
        throw refusal.notMember
    }

    /// A member (or administrator) who may post, or the family's refusal.
    @discardableResult
    func requireMember(_ refusal: ClassRefusal) throws -> SignedIn {
        let signedIn = try requireSignedIn(refusal)
        guard isAdministrator || isMember else { throw refusal.notMember }
        try requireNotArchived(refusal)
        return signedIn
    }

    /// An archived class's map is read-only for everyone, legacy open writes included.
    func requireNotArchived(_ refusal: ClassRefusal) throws {
        guard mapClass.archivedAt == nil else { throw refusal.forbidden("This class is archived: its map is read-only.") }
    }

    @discardableResult
    func requireModerator(_ refusal: ClassRefusal) throws -> SignedIn {
        let signedIn = try requireSignedIn(refusal)
        guard canModerate else {
            throw canRead ? refusal.forbidden("Only this class's moderators and teachers may do this.") : refusal.notMember
        }
        return signedIn
    }

    @discardableResult
    func requireTeacher(_ refusal: ClassRefusal) throws -> SignedIn {
        let signedIn = try requireSignedIn(refusal)
        guard canManage else { throw canRead ? refusal.forbidden("Only this class's teachers may do this.") : refusal.notMember }
        return signedIn
    }

    @discardableResult
    private func requireSignedIn(_ refusal: ClassRefusal) throws -> SignedIn {
        switch caller {
        case .signedIn(let signedIn): return signedIn
        case .anonymous: throw refusal.signIn.missing
        case .invalidSession: throw refusal.signIn.invalid
        }
    }
}

/// How a route family refuses a caller in a class: not signed in (its own 401), signed in but
/// not a member (403), or a member without the role (403).
struct ClassRefusal: Sendable {
    let signIn: SignInRequired
    let notMember: any Error
    let forbidden: @Sendable (String) -> any Error

    /// Our own API: `not_logged_in`, `not_a_member`, `forbidden`.
    static let api = ClassRefusal(
        signIn: .api("Log in to use this class's map."),
        notMember: APIError(.forbidden, "not_a_member", "Only members of this class can do this; join it first."),
        forbidden: { APIError(.forbidden, "forbidden", $0) }
    )

    /// The Parse protocol: 209 (with 401) as for writes without a session, 119 with 403.
    static let parse = ClassRefusal(
        signIn: SignInRequired(
            missing: ParseError(
                209, "Log in to see this class's map: send the session cookie or X-Parse-Session-Token.", status: .unauthorized),
            invalid: ParseError.invalidSession),
        notMember: ParseError(119, "Only members of this class can see and change its map.", status: .forbidden),
        forbidden: { ParseError(119, $0, status: .forbidden) }
    )

    /// Writes keep today's message for a missing session.
    static let parseWrite = ClassRefusal(
        signIn: SignInRequired(missing: ParseError.loginRequired, invalid: ParseError.invalidSession),
        notMember: parse.notMember, forbidden: parse.forbidden
    )
}
