import Foundation

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
