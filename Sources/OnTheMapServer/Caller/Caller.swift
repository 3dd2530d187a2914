import Hummingbird
import Storage

/// Who is asking, resolved once per request from its credential by `CallerMiddleware` and
/// kept in the request context; no route reads a session cookie or header itself.
public enum Caller: Sendable {
    /// No credential at all.
    case anonymous
    /// A credential that is not a live session: ended, expired, malformed, or of a disabled account.
    case invalidSession
    case signedIn(SignedIn)

    public var signedIn: SignedIn? {
        if case .signedIn(let signedIn) = self { return signedIn }
        return nil
    }
}

/// A caller with a live session, and its recorded role in the class the request is for
/// (nil when it is not on the class's roster; `ClassAccess` says what that allows).
public struct SignedIn: Sendable {
    public let session: Session
    public let account: Account
    public let role: ClassRole?
    /// It has a post waiting for approval in that class (its own lists then include it).
    public var hasWaitingPost: Bool = false

    public var accountKey: String { account.key }
    public var isAdministrator: Bool { account.isAdmin }
}

/// What a route family answers a caller that is not signed in, in its own protocol's format:
/// one for no credential, one for a credential that is no longer (or never was) a session.
struct SignInRequired: Sendable {
    let missing: any Error
    let invalid: any Error

    init(missing: any Error, invalid: any Error) {
        self.missing = missing
        self.invalid = invalid
    }

    /// The same answer for both.
    init(_ error: any Error) {
        self.init(missing: error, invalid: error)
    }

    /// Our own API's `not_logged_in`.
    static func api(_ message: String) -> Self {
        Self(APIError(.unauthorized, "not_logged_in", message))
    }
}

/// A request context that knows its caller (`AppRequestContext` once `CallerMiddleware` ran,
/// `ClassRequestContext`).
protocol CallerContext {
    var caller: Caller { get throws }
}

extension CallerContext {
    /// The signed-in caller, or `refusal`'s error.
    func requireSignedIn(_ refusal: SignInRequired) throws -> SignedIn {
        switch try caller {
        case .signedIn(let signedIn): return signedIn
        case .anonymous: throw refusal.missing
        case .invalidSession: throw refusal.invalid
        }
    }
}

extension AppRequestContext: CallerContext {}
