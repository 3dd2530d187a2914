import Foundation
import OnTheMapModels

/// A class: one private map of a server, with its own members (migration 11). Every student
/// location belongs to exactly one class; the server's unprefixed routes serve its default
/// class, and `/c/<slug>/…` any other.
public struct MapClass: Sendable, Equatable {
    /// Who may read the class's map.
    public enum Visibility: String, Sendable, CaseIterable, Codable {
        /// Its members only (the default for a new class).
        case members
        /// Anyone signed in on this server.
        case server
        /// Anyone at all, with no session (every map before classes existed).
        case `public`
    }

    /// How precisely the map shows where its students are. Below `exact`, the server replaces
    /// a posted point by a place of the gazetteer before storing it: the point, and the text
    /// typed with it, are never kept.
    public enum Precision: String, Sendable, CaseIterable, Codable, Comparable {
        case exact, city, region, country

        private var rank: Int {
            switch self {
            case .exact: 0
            case .city: 1
            case .region: 2
            case .country: 3
            }
        }

        /// Coarser levels compare greater (`.country > .city`).
        public static func < (lhs: Precision, rhs: Precision) -> Bool { lhs.rank < rhs.rank }
    }

    /// Which posts wait for a moderator's approval before anyone else sees them.
    public enum Approval: String, Sendable, CaseIterable, Codable {
        /// None (the default).
        case off
        /// A member's first post in the class.
        case newMembers = "new-members"
        /// Every post and every change to one.
        case all
    }

    /// How an account becomes a member.
    public enum JoinRule: String, Sendable, CaseIterable, Codable {
        /// With the class's invite link (revocable; the default).
        case invite
        /// Every account of the server counts as a member (a student unless given another role).
        case open
        /// Only a teacher or an administrator adds members.
        case closed
    }

    public var id: String
    public var slug: String
    public var name: String
    public var visibility: Visibility
    public var joinRule: JoinRule
    /// A new class shows cities; the default class keeps exact points unless the host changes it.
    public var precision: Precision
    public var approval: Approval
    /// When the class was archived (end of term): its map is read-only for everyone, its posts kept.
    public var archivedAt: Date?
    /// The code of the class's invite link; nil when there is none (revoked, or never made).
    public var inviteCode: String?
    public var createdAt: Date

    public init(
        id: String, slug: String, name: String, visibility: Visibility = NewClass.visibility,
        joinRule: JoinRule = NewClass.joinRule, precision: Precision = NewClass.precision,
        approval: Approval = NewClass.approval, inviteCode: String? = nil, createdAt: Date
    ) {
        self.id = id
        self.slug = slug
        self.name = name
        self.visibility = visibility
        self.joinRule = joinRule
        self.precision = precision
        self.approval = approval
        self.archivedAt = nil
        self.inviteCode = inviteCode
        self.createdAt = createdAt
    }

    /// The id migration 11 gives the class today's map moved into.
    public static let migratedDefaultID = "default"
}

/// What a member may do in a class; server administrators may do everything everywhere.
public enum ClassRole: String, Sendable, CaseIterable, Codable, Comparable {
    /// Posts their own location.
    case student
    /// Also hides, shows and deletes posts, and reads reports.
    case moderator
    /// Also changes the class's settings, invite link, roster and roles.
    case teacher

    private var rank: Int {
        switch self {
        case .student: 0
        case .moderator: 1
        case .teacher: 2
        }
    }

    public static func < (lhs: ClassRole, rhs: ClassRole) -> Bool { lhs.rank < rhs.rank }
}

/// A member as the roster shows it.
public struct ClassMember: Sendable, Equatable {
    public var accountKey: String
    public var email: String
    public var firstName: String
    public var lastName: String
    public var role: ClassRole
    public var joinedAt: Date
    /// Where they are with the class's map (`VisiblePost.onMap` says what "on the map" is).
    public var mapStatus: ClassMapStatus
    /// When they last posted or moved a post there that is still there (visible or waiting).
    public var lastPostAt: Date?
    /// An administrator disabled the account: it gets no email, its posts are hidden.
    public var disabled: Bool

    public init(
        accountKey: String, email: String, firstName: String, lastName: String, role: ClassRole, joinedAt: Date,
        mapStatus: ClassMapStatus = .notYet, lastPostAt: Date? = nil, disabled: Bool = false
    ) {
        self.accountKey = accountKey
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.role = role
        self.joinedAt = joinedAt
        self.mapStatus = mapStatus
        self.lastPostAt = lastPostAt
        self.disabled = disabled
    }
}

/// A member's place on their class's map.
public enum ClassMapStatus: String, Sendable, Equatable, Codable {
    /// A visible post in the class.
    case onMap = "on_map"
    /// None visible, but one waiting for a moderator's approval.
    case waiting
    /// No post there (or only hidden ones).
    case notYet = "not_yet"
}

/// A class with how many members and locations it has, for the host's list.
public struct ClassSummary: Sendable, Equatable {
    public var mapClass: MapClass
    public var memberCount: Int
    public var locationCount: Int
}

/// The outcome of a roster change.
public enum MembershipChange: Sendable, Equatable {
    case done
    /// Nothing changed: the class would be left without a teacher.
    case lastTeacher
    /// Nothing changed: no such member (or class).
    case notFound
}

public protocol ClassRepository: Sendable {
    /// Creates the class, with `teacherKey` (if any) as its first teacher, in one transaction.
    /// Throws `StorageError.slugTaken` when the slug is in use.
    func createClass(_ mapClass: MapClass, teacherKey: String?, now: Date) async throws
    func mapClass(slug: String) async throws -> MapClass?
    func mapClass(id: String) async throws -> MapClass?
    /// Every class, by slug, with its counts.
    func classSummaries() async throws -> [ClassSummary]
    /// Changes only the settings `changes` names, in one statement, so a change made
    /// meanwhile by someone else (the host, another teacher) to another setting stands;
    /// answers the class as it now is, or nil when it is gone.
    func changeClass(id: String, _ changes: ClassChanges) async throws -> MapClass?
    /// The classes an account is a member of, with its role in each, by name.
    func classes(ofAccount accountKey: String) async throws -> [(mapClass: MapClass, role: ClassRole)]
    /// Open classes the account is not (yet) a recorded member of (archived ones take no one).
    func openClasses(notJoinedBy accountKey: String) async throws -> [MapClass]
    /// The class's members, teachers first, then by name.
    func members(classId: String) async throws -> [ClassMember]
    func role(classId: String, accountKey: String) async throws -> ClassRole?
    /// The account keys of the class's members who have `role` (the map marks its teachers' pins).
    func memberKeys(classId: String, role: ClassRole) async throws -> [String]
    /// Adds the account as a member with `role`, or gives a member that role; refuses (with
    /// nothing changed) to leave the class without a teacher.
    func setMember(classId: String, accountKey: String, role: ClassRole, now: Date) async throws -> MembershipChange
    /// Gives a member of the class another role; `.notFound` (nothing changed) when the account
    /// is not a member. Refuses to leave the class without a teacher.
    func changeRole(classId: String, accountKey: String, role: ClassRole) async throws -> MembershipChange
    /// Invites an email address to the class with a role (again: the new role), whether or not
    /// an account has it.
    func invite(classId: String, email: String, role: ClassRole, now: Date) async throws
    /// The class's invitations not yet accepted, by address.
    func invitations(classId: String) async throws -> [ClassInvitation]
    /// false when the class had no invitation for the address.
    @discardableResult func withdrawInvitation(classId: String, email: String) async throws -> Bool
    /// The classes that invited the address, whose invitation the account may take (its
    /// address proven, or already its own when invited), and that it is not a member of.
    func classesInviting(email: String, notJoinedBy accountKey: String) async throws -> [MapClass]
    /// Turns the address's invitation into the account's membership, in one transaction: the
    /// invited role, or the role the account already has there. nil (nothing changed) when the
    /// class has no invitation for the address that the account may take.
    func acceptInvitation(classId: String, email: String, accountKey: String, now: Date) async throws -> ClassRole?
    /// Adds the account as a student unless it is a member already (a join keeps a higher role).
    func join(classId: String, accountKey: String, now: Date) async throws
    /// Removes the member and their locations in this class, in one transaction; refuses to
    /// remove the last teacher.
    func removeMember(classId: String, accountKey: String) async throws -> MembershipChange
    /// Rewrites every location of the class (or the one `objectId` names), hidden ones
    /// included, a page at a time: each record `place` answers for gets that point and place
    /// name (its `updatedAt` is kept).
    /// Each rewrite's entry in the change log replaces the record's earlier ones, which held
    /// the old point (migration 18).
    /// Returns how many records changed.
    func rewritePlaces(in classId: String, only objectId: String?, _ place: @Sendable (StudentInformation) -> PlaceRewrite?) async throws
        -> Int
    /// Deletes the class with its locations (and their reports and logged changes), its roster
    /// and its invite link, in one transaction; false when there is no such class.
    func deleteClass(id: String) async throws -> Bool
}

/// An email address invited to a class, until the account with it joins (or the teacher
/// withdraws it).
public struct ClassInvitation: Sendable, Equatable {
    public var email: String
    public var role: ClassRole
    public var invitedAt: Date
}

/// The settings a change of a class sets; nil leaves a setting as the database has it.
public struct ClassChanges: Sendable, Equatable {
    public var name: String?
    public var visibility: MapClass.Visibility?
    public var joinRule: MapClass.JoinRule?
    public var precision: MapClass.Precision?
    public var approval: MapClass.Approval?
    /// A new invite code; `.some(nil)` revokes the current one.
    public var inviteCode: String??
    /// An invite code for a class that has none (turning invitations on).
    public var inviteCodeIfNone: String?
    /// Archived (since `now` unless it already was), or open again.
    public var archived: Bool?
    public var now: Date

    public init(now: Date) { self.now = now }
}

/// Where a record is shown instead of its point (see `MapClass.Precision`).
public struct PlaceRewrite: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    public var mapString: String

    public init(latitude: Double, longitude: Double, mapString: String) {
        self.latitude = latitude
        self.longitude = longitude
        self.mapString = mapString
    }
}
