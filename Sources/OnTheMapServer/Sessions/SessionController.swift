import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOPosix
import OnTheMapModels
import Storage

/// The Udacity-compatible session API (`POST/DELETE /session`, `GET /users/:key`), mounted
/// under `/api` and `/v1`. Every answer, errors included, starts with the 5-byte prefix.
struct SessionController: Sendable {
    /// Accounts and their sessions, identity links (a Facebook token's account) and the login
    /// throttle's counters.
    let store: any AccountRepository & SessionRepository & SignInRepository & LoginThrottleRepository
    let configuration: Configuration
    let accounts: AccountsService
    /// A hash of a random password, verified when the email is unknown so that both
    /// failures take as long and the response time does not reveal who has an account. Made
    /// in the background (bcrypt takes a tenth of a second or more), not on the server's start.
    let timingDecoyHash: Task<String, Never>
    /// Checks old clients' `facebook_mobile` tokens; nil when Facebook is not configured.
    let facebook: FacebookClient?

    init(
        accounts: AccountsService,
        store: any AccountRepository & SessionRepository & SignInRepository & LoginThrottleRepository,
        facebook: FacebookClient? = nil
    ) {
        self.store = store
        self.configuration = accounts.configuration
        self.accounts = accounts
        self.facebook = facebook
        let cost = configuration.bcryptCost
        self.timingDecoyHash = Task.detached(priority: .utility) { Passwords.hash(Tokens.randomHex(bytes: 16), cost: cost) }
    }

    private var throttle: LoginThrottle { LoginThrottle(store: store, settings: configuration.loginThrottle, clock: configuration.clock) }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("session", use: login)
        group.delete("session", use: logout)
        group.get("users/:key", use: user)
    }

    // MARK: POST /session

    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.collectBody(limit: configuration.maxBodySize) {
            UdacityError(status: 413, "Request body too large.")
        }
        let credential = try LoginBody.credential(from: body)
        let sharedComputer = try LoginBody.sharedComputer(from: body)
        guard case .udacity(let username, let password) = credential else {
            if case .facebook(let token) = credential {
                return try await facebookLogin(token: token, sharedComputer: sharedComputer, request: request, context: context)
            }
            throw UdacityError.invalidCredentials
        }
        // Nothing that could not be an account's email or password reaches the database or bcrypt.
        guard TextRules.isDisplaySafe(username), username.utf8.count <= 254, password.utf8.count <= Passwords.maximumBytes else {
            throw UdacityError.invalidCredentials
        }
        let email = AccountController.normalizedEmail(username)
        let account = try await store.account(email: email)
        // A device that has logged in to this account before counts its own guesses, so the
        // owner is not locked out by someone else's (see `LoginThrottle`).
        let device = AccountsService.deviceDigest(request)
        var knownDevice = false
        if let account, let device { knownDevice = try await store.isKnownDevice(digest: device, accountKey: account.key) }
        let subjects = [
            knownDevice ? ThrottleSubject(.device, device!) : ThrottleSubject(.account, email),
            ThrottleSubject(.address, context.clientAddress),
        ]
        if let seconds = try await throttle.retryAfter(subjects) {
            context.logger.notice("login throttled", metadata: ["retry_after": "\(seconds)"])
            throw RetryLater(UdacityError(status: 429, LoginThrottle.message(retryAfter: seconds)), after: seconds)
        }
        // An account made through another provider may have no password yet: nothing matches it.
        let hasPassword = !(account?.passwordHash.isEmpty ?? true)
        let decoy = await timingDecoyHash.value
        let hash = hasPassword ? account?.passwordHash ?? decoy : decoy
        let matches = try await accounts.verifyPassword(password, hash: hash)
        guard let account, hasPassword, matches else {
            try await throttle.recordFailure(subjects)
            context.logger.info("login failed", metadata: ["email_known": "\(account != nil)"])
            throw UdacityError.invalidCredentials
        }
        // Told only to someone who knows the password, so it reveals nothing to a guesser.
        guard account.disabledAt == nil else {
            throw UdacityError(status: 403, AccountsService.disabledMessage)
        }
        try await throttle.recordSuccess(subjects)
        return try await loginAnswer(
            for: account, provider: nil, sharedComputer: sharedComputer, request: request, context: context)
    }

    /// An old client's Facebook login: the token is checked with Facebook (for this app, and
    /// who it belongs to), and the account linked to that Facebook user gets the same answer
    /// a password login gets. Facebook unreachable is a 502 so clients can tell it apart.
    func facebookLogin(token: String, sharedComputer: Bool, request: Request, context: AppRequestContext) async throws -> Response {
        guard let facebook else { throw UdacityError.invalidCredentials }
        let subjects = [ThrottleSubject(.address, context.clientAddress)]
        if let seconds = try await throttle.retryAfter(subjects) {
            throw RetryLater(UdacityError(status: 429, LoginThrottle.message(retryAfter: seconds)), after: seconds)
        }
        let profile: FacebookClient.Profile
        do {
            profile = try await facebook.profile(token: token)
        } catch FacebookClient.Failure.invalidToken {
            try await throttle.recordFailure(subjects)
            context.logger.info("login failed", metadata: ["provider": "facebook", "reason": "token refused"])
            throw UdacityError.invalidCredentials
        } catch let error as ProviderUnavailable {
            context.logger.warning("facebook unavailable", metadata: ["reason": "\(error)"])
            throw UdacityError(status: 502, "Facebook could not be reached to check this login; try again later.")
        }
        guard let key = try await store.identityAccountKey(provider: FacebookClient.provider, subject: profile.id),
            let account = try await store.account(key: key)
        else {
            try await throttle.recordFailure(subjects)
            context.logger.info("login failed", metadata: ["provider": "facebook", "reason": "not linked"])
            throw UdacityError.invalidCredentials
        }
        guard account.disabledAt == nil else {
            throw UdacityError(status: 403, AccountsService.disabledMessage)
        }
        return try await loginAnswer(
            for: account, provider: "facebook", sharedComputer: sharedComputer, request: request, context: context)
    }

    /// What every login answers, whatever proved who the user is: a new session, its
    /// cookies (browser-session cookies on a shared computer), and the Udacity body with the
    /// 5-byte prefix.
    private func loginAnswer(
        for account: Account, provider: String?, sharedComputer: Bool, request: Request, context: AppRequestContext
    ) async throws -> Response {
        let (session, cookies) = try await accounts.startSession(
            for: account, request: request, context: context, sharedComputer: sharedComputer)
        var metadata: Logger.Metadata = ["account": "\(account.key)"]
        if let provider { metadata["provider"] = "\(provider)" }
        if sharedComputer { metadata["shared_computer"] = "true" }
        context.logger.info("login", metadata: metadata)
        return try accounts.sessionAnswer(session, account: account, cookies: cookies, prefix: udacityResponsePrefix)
    }

    // MARK: DELETE /session

    /// Ends the session the request carries, or with `?all=1` every session of its account
    /// ("log out everywhere"). The XSRF header is never required (docs/api/udacity-session.md §1.5): a
    /// logout from another site is refused by `CrossSiteRequestGuard` instead. A request
    /// with no live session answers 401 in the Udacity format, so a client can tell that
    /// nothing was ended; the cookies are cleared in every case.
    @Sendable func logout(_ request: Request, context: AppRequestContext) async throws -> Response {
        let response: Response
        switch try context.caller {
        case .signedIn(let caller):
            let session = caller.session
            let everywhere = ["1", "true", "yes"].contains(request.uri.queryParameters.get("all")?.lowercased() ?? "")
            if everywhere {
                let ended = try await store.deleteSessions(accountKey: session.accountKey, keeping: nil)
                context.logger.info("logout everywhere", metadata: ["account": "\(session.accountKey)", "sessions": "\(ended)"])
            } else {
                try await store.deleteSession(id: session.id)
                context.logger.info("logout", metadata: ["account": "\(session.accountKey)"])
            }
            response = try JSONResponse.make(
                LogoutResponse(session: .init(id: session.id, expiration: ParseDate.string(from: configuration.clock.now()))),
                prefix: udacityResponsePrefix
            )
        case .invalidSession:
            response = try Self.logoutRefusal("This session has already ended (logged out or expired); nothing to log out.")
        case .anonymous:
            response = try Self.logoutRefusal("No session to end: send the session cookie or X-Parse-Session-Token.")
        }
        return Self.clearingSessionCookies(response)
    }

    private static func logoutRefusal(_ message: String) throws -> Response {
        try JSONResponse.make(
            UdacityErrorBody(status: 401, parameter: nil, error: message), status: .unauthorized, prefix: udacityResponsePrefix)
    }

    static func clearingSessionCookies(_ response: Response) -> Response {
        var response = response
        for name in [SessionCredential.cookieName, "XSRF-TOKEN"] {
            response.setCookie(
                Cookie(name: name, value: "", maxAge: 0, path: "/", httpOnly: name == SessionCredential.cookieName, sameSite: .lax))
        }
        return response
    }

    // MARK: GET /users/:key

    @Sendable func user(_ request: Request, context: AppRequestContext) async throws -> Response {
        let key = context.parameters.get("key") ?? ""
        guard key.count <= 64, let account = try await store.account(key: key) else {
            throw UdacityError(status: 404, "User not found.")
        }
        // The email address is shown only to its owner; others get an empty string, since
        // strict clients require the field to be present.
        let isOwner = try context.caller.signedIn?.accountKey == account.key
        let user = UdacityUserBody(
            key: account.key, firstName: account.firstName, lastName: account.lastName, email: isOwner ? account.email : "")
        return try JSONResponse.make(UdacityUserAnswer(user), prefix: udacityResponsePrefix)
    }
}
