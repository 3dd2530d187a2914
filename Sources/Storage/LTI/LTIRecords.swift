import Foundation

/// A learning platform (Moodle, Canvas, …) registered with this LTI 1.3 tool: how its
/// launches are checked (`issuer`, `clientID`, its keys at `jwksURL`), where a login is sent
/// (`authURL`) and where the tool asks for tokens (`tokenURL`).
public struct LTIPlatform: Sendable, Equatable {
    public var id: String
    public var issuer: String
    public var clientID: String
    public var name: String
    public var authURL: String
    public var tokenURL: String
    public var jwksURL: String
    /// The `aud` of the tool's signed token request, when the platform wants something other
    /// than its token URL (Brightspace names one; a platform's configuration may too).
    public var tokenAudience: String?
    /// Origins of the platform's course pages, where they differ from its issuer's and login
    /// URL's (Canvas and Blackboard serve courses on each school's own address): the pages
    /// allowed to frame a launch. The host names them, and verified launches add theirs.
    public var frameOrigins: [String]
    /// The platform vouches for its users' email addresses: a launch may sign in to an
    /// existing account with the same email. Off unless the host says so.
    public var trustEmail: Bool
    public var deploymentIDs: [String]
    public var createdAt: Date

    public init(
        id: String, issuer: String, clientID: String, name: String, authURL: String, tokenURL: String, jwksURL: String,
        tokenAudience: String? = nil, frameOrigins: [String] = [], trustEmail: Bool, deploymentIDs: [String], createdAt: Date
    ) {
        self.id = id
        self.issuer = issuer
        self.clientID = clientID
        self.name = name
        self.authURL = authURL
        self.tokenURL = tokenURL
        self.jwksURL = jwksURL
        self.tokenAudience = tokenAudience
        self.frameOrigins = frameOrigins
        self.trustEmail = trustEmail
        self.deploymentIDs = deploymentIDs
        self.createdAt = createdAt
    }
}

/// One of the tool's own RSA signing keys, as PEM. The newest unretired key signs; a retired
/// one is still published (platforms may hold tokens it signed) until it is deleted.
public struct LTIToolKey: Sendable, Equatable {
    public var kid: String
    public var privateKeyPEM: String
    public var createdAt: Date
    public var retiredAt: Date?

    public init(kid: String, privateKeyPEM: String, createdAt: Date, retiredAt: Date? = nil) {
        self.kid = kid
        self.privateKeyPEM = privateKeyPEM
        self.createdAt = createdAt
        self.retiredAt = retiredAt
    }
}

/// A login under way: the platform was sent the state and nonce, and the browser holds the
/// secret whose digest is `browserDigest`.
public struct LTIPendingLogin: Sendable, Equatable {
    public var stateDigest: String
    public var platformID: String
    public var nonce: String
    public var browserDigest: String
    public var targetLinkURI: String
    public var expiresAt: Date

    public init(stateDigest: String, platformID: String, nonce: String, browserDigest: String, targetLinkURI: String, expiresAt: Date) {
        self.stateDigest = stateDigest
        self.platformID = platformID
        self.nonce = nonce
        self.browserDigest = browserDigest
        self.targetLinkURI = targetLinkURI
        self.expiresAt = expiresAt
    }
}

/// A class a course opens: the course's own class (`courseClass`, one per platform,
/// deployment and context) or one made for the course by deep linking.
public struct LTICourseLink: Sendable, Equatable {
    public var platformID: String
    public var deploymentID: String
    public var contextID: String
    public var classID: String
    public var courseClass: Bool
    /// The course's Names and Role Provisioning Services endpoint, from a teacher's launch.
    public var membershipsURL: String?
    public var syncedAt: Date?

    public init(
        platformID: String, deploymentID: String, contextID: String, classID: String, courseClass: Bool,
        membershipsURL: String? = nil, syncedAt: Date? = nil
    ) {
        self.platformID = platformID
        self.deploymentID = deploymentID
        self.contextID = contextID
        self.classID = classID
        self.courseClass = courseClass
        self.membershipsURL = membershipsURL
        self.syncedAt = syncedAt
    }
}

/// A person of a course as the platform names them, for the class's teachers.
public struct LTIRosterEntry: Sendable, Equatable {
    public var subject: String
    public var name: String
    public var roles: [String]

    public init(subject: String, name: String, roles: [String]) {
        self.subject = subject
        self.name = name
        self.roles = roles
    }
}

/// A roster line with what the class knows of that person.
public struct LTIRosterLine: Sendable, Equatable {
    public var entry: LTIRosterEntry
    /// Their role in the class, when they are a member.
    public var role: ClassRole?
    /// They are on the class's map (`VisiblePost.onMap`: a visible post there).
    public var onMap: Bool
}

/// A one-time code's kind: opening a launched class in a window of its own, a deep-linking
/// request waiting for the teacher's choice, or an invitation for a platform to register.
public enum LTITicketKind: String, Sendable {
    case window
    case deepLink = "deep-link"
    case registration
}

public struct LTITicket: Sendable, Equatable {
    public var kind: LTITicketKind
    public var accountKey: String?
    /// What the ticket carries, as the server wrote it (JSON).
    public var payload: String
    public var expiresAt: Date

    public init(kind: LTITicketKind, accountKey: String?, payload: String, expiresAt: Date) {
        self.kind = kind
        self.accountKey = accountKey
        self.payload = payload
        self.expiresAt = expiresAt
    }
}

public protocol LTIRepository: Sendable {
    /// Throws `StorageError.platformExists` when the issuer and client id are registered.
    func addPlatform(_ platform: LTIPlatform) async throws
    func ltiPlatforms() async throws -> [LTIPlatform]
    func ltiPlatform(id: String) async throws -> LTIPlatform?
    /// The platform, its deployments, its courses' links and rosters go; the classes stay.
    func removePlatform(id: String) async throws -> Bool
    func addDeployment(platformID: String, deploymentID: String) async throws
    /// Saves the platform's trust in emails, token audience and frame origins; false when it is gone.
    @discardableResult func updatePlatform(_ platform: LTIPlatform) async throws -> Bool
    /// Adds a course-page origin to the platform's, in one statement (nothing else of the
    /// registration is written); false when it was there already or the platform is gone.
    @discardableResult func addFrameOrigin(_ origin: String, platformID: String) async throws -> Bool

    func ltiToolKeys() async throws -> [LTIToolKey]
    /// Adds the key and retires every other unretired key, in one transaction.
    func addToolKey(_ key: LTIToolKey, retiringOthersAt now: Date) async throws
    /// Forgets keys retired before `before`; returns how many.
    @discardableResult func deleteToolKeys(retiredBefore before: Date) async throws -> Int

    func saveLTILogin(_ login: LTIPendingLogin) async throws
    /// Finds and spends the login in one step: a state is good for one launch.
    func takeLTILogin(stateDigest: String) async throws -> LTIPendingLogin?
    @discardableResult func deleteExpiredLTILogins(now: Date) async throws -> Int

    func courseLinks(platformID: String, deploymentID: String, contextID: String) async throws -> [LTICourseLink]
    func courseLinks(classID: String) async throws -> [LTICourseLink]
    /// Records the link; false when the course already has a class of its own (`courseClass`).
    func addCourseLink(_ link: LTICourseLink) async throws -> Bool
    func setMembershipsURL(_ url: String?, platformID: String, deploymentID: String, contextID: String) async throws

    /// Records that this person launched into the class as this account.
    func recordLaunch(classID: String, platformID: String, entry: LTIRosterEntry, accountKey: String) async throws
    /// Replaces the class's roster from this platform with what the platform gave, and marks
    /// the course synced; returns the accounts that launched before but are no longer in the course.
    func replaceRoster(classID: String, platformID: String, entries: [LTIRosterEntry], now: Date) async throws -> [String]
    func roster(classID: String) async throws -> (syncedAt: Date?, lines: [LTIRosterLine])

    func saveTicket(digest: String, _ ticket: LTITicket) async throws
    /// A live ticket of this kind, left unspent.
    func peekTicket(digest: String, kind: LTITicketKind, now: Date) async throws -> LTITicket?
    /// Finds and spends a live ticket of this kind.
    func takeTicket(digest: String, kind: LTITicketKind, now: Date) async throws -> LTITicket?
}
