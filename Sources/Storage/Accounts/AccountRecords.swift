import Foundation
import OnTheMapModels

/// A registered person. `key` is the public account id ("3903878747"), used as `uniqueKey`.
public struct Account: Sendable, Equatable {
    public var key: String
    public var email: String
    public var passwordHash: String
    public var firstName: String
    public var lastName: String
    public var createdAt: Date
    /// May moderate posts and accounts (the first account, or one the host promotes).
    public var isAdmin: Bool
    /// Set while an administrator has disabled the account: it cannot log in, its posts are hidden.
    public var disabledAt: Date?
    /// Whether a sign-in provider has vouched that this email belongs to the account's owner.
    /// A password sign-up proves nothing about its email, so such an account stays unproven
    /// until a provider vouches for it, and then belongs to the person the provider vouched for
    /// (see `AccountRepository.claimAccount`).
    public var emailVerified: Bool

    public init(
        key: String, email: String, passwordHash: String, firstName: String, lastName: String, createdAt: Date,
        isAdmin: Bool = false, disabledAt: Date? = nil, emailVerified: Bool = false
    ) {
        self.key = key
        self.email = email
        self.passwordHash = passwordHash
        self.firstName = firstName
        self.lastName = lastName
        self.createdAt = createdAt
        self.isAdmin = isAdmin
        self.disabledAt = disabledAt
        self.emailVerified = emailVerified
    }
}

/// What changing an account's state (disabled, administrator) came to.
public enum AccountChange: Sendable, Equatable {
    /// Done; `endedSessions` sessions ended with it (disabling).
    case done(endedSessions: Int)
    case notFound
    /// Refused: it would leave no enabled administrator.
    case lastAdministrator
}

/// A provider vouched for the email of an account whose own email was never proven (made
/// with a password, by whoever typed the email): the account goes to the person the provider
/// vouched for, and every foothold of whoever made it goes (see `AccountRepository.claimAccount`).
public struct AccountClaim: Sendable, Equatable {
    public var accountKey: String
    /// The provider identity that vouched; linked (or kept) with origin `.email`.
    public var link: IdentityLink
    /// The names the provider gives, replacing the ones the account was made with; nil keeps them.
    public var firstName: String?
    public var lastName: String?

    public init(accountKey: String, link: IdentityLink, firstName: String?, lastName: String?) {
        self.accountKey = accountKey
        self.link = link
        self.firstName = firstName
        self.lastName = lastName
    }
}

/// A server-side login session; `id` is the token the cookie and `X-Parse-Session-Token`
/// carry (the database keeps only its digest).
public struct Session: Sendable, Equatable {
    public var id: String
    public var accountKey: String
    public var createdAt: Date
    public var expiresAt: Date

    public init(id: String, accountKey: String, createdAt: Date, expiresAt: Date) {
        self.id = id
        self.accountKey = accountKey
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// What a login-failure counter counts.
public struct ThrottleSubject: Sendable, Hashable {
    public enum Kind: String, Sendable {
        /// An account, by normalized email (known or not, so probing unknown emails counts too).
        case account
        /// A client address (the real one behind a trusted proxy).
        case address
        /// A device that has logged in to the account before (`onthemap_device` cookie digest).
        case device
        /// Sign-ups from a client address.
        case signUp = "signup"
        /// Wrong passwords given to delete an account, by account key: counted apart from
        /// logins, so guessing there cannot lock the owner out of logging in.
        case deletion
    }

    public var kind: Kind
    public var subject: String

    public init(_ kind: Kind, _ subject: String) {
        self.kind = kind
        self.subject = subject
    }
}

public struct LoginFailures: Sendable, Equatable {
    public var failures: Int
    public var lastFailureAt: Date
    public var lockedUntil: Date?

    public init(failures: Int, lastFailureAt: Date, lockedUntil: Date?) {
        self.failures = failures
        self.lastFailureAt = lastFailureAt
        self.lockedUntil = lockedUntil
    }
}

/// A stored StudentLocation and the account allowed to change it
/// (nil for records written with open writes, which nobody owns).
public struct StoredLocation: Sendable, Equatable {
    public var record: StudentInformation
    public var ownerKey: String?
    /// The class whose map it is on (`MapClass.id`).
    public var classId: String
    /// Waiting for a moderator's approval: seen by its author and the class's moderators only.
    public var waiting: Bool

    public init(record: StudentInformation, ownerKey: String?, classId: String, waiting: Bool = false) {
        self.record = record
        self.ownerKey = ownerKey
        self.classId = classId
        self.waiting = waiting
    }
}

/// The changes a PUT asks for; nil leaves a field as it is.
public struct LocationPatch: Sendable, Equatable {
    public var uniqueKey: String?
    public var firstName: String?
    public var lastName: String?
    public var mapString: String?
    public var mediaURL: String?
    public var latitude: Double?
    public var longitude: Double?
    /// Set (or clear) the wait for a moderator's approval; nil leaves it as it is.
    public var waiting: Bool?

    public init(
        uniqueKey: String? = nil, firstName: String? = nil, lastName: String? = nil, mapString: String? = nil,
        mediaURL: String? = nil, latitude: Double? = nil, longitude: Double? = nil
    ) {
        self.uniqueKey = uniqueKey
        self.firstName = firstName
        self.lastName = lastName
        self.mapString = mapString
        self.mediaURL = mediaURL
        self.latitude = latitude
        self.longitude = longitude
    }
}

public enum StorageError: Error, Equatable, CustomStringConvertible {
    case emailTaken
    /// A class with this slug exists.
    case slugTaken
    /// An LTI platform with this issuer and client id is registered.
    case platformExists
    /// Refused, nothing changed: the account is the last enabled administrator.
    case lastAdministrator
    case unsupportedDatabaseURL(String)
    case invalidDatabaseURL(String, String)
    case migrationFailed(String)
    /// The database could not be opened or reached: which one (password masked), and why.
    case databaseUnavailable(String, String)
    /// A copy's destination already holds data in this table.
    case destinationNotEmpty(String)
    /// Text the database cannot hold (PostgreSQL refuses NUL characters).
    case unstorableText
    /// A `$regex` the database's regular-expression engine refuses.
    case unsupportedPattern(String)
    /// The statement ran past `QueryLimits.timeout` and was cancelled, or no connection
    /// (or turn for a `$regex` query) came free within it.
    case queryTimeout

    /// Errors caused by what a client sent, not by the server: answer them with a 400.
    public var isCausedByInput: Bool {
        switch self {
        case .unstorableText, .unsupportedPattern: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .emailTaken: "An account with this email already exists."
        case .slugTaken: "A class with this slug already exists."
        case .platformExists: "A platform with this issuer and client id is already registered."
        case .lastAdministrator: "This is the last enabled administrator: promote another account first."
        case .unsupportedDatabaseURL(let url):
            "Unsupported database URL '\(url)': use sqlite:///path/to/file.sqlite or postgres://user:password@host:port/database"
        case .invalidDatabaseURL(let url, let reason): "Invalid database URL '\(url)': \(reason)."
        case .migrationFailed(let reason): "Database migration failed: \(reason)"
        case .databaseUnavailable(let url, let reason): "Cannot open the database \(url): \(reason)."
        case .destinationNotEmpty(let table):
            "The destination database is not empty (table \(table) has rows); copy into a new, empty database."
        case .unstorableText: "Text must not contain NUL characters."
        case .unsupportedPattern(let reason): "Unsupported regular expression: \(reason)"
        case .queryTimeout: "The query took longer than the server allows; simplify it or try again."
        }
    }
}
