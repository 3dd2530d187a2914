import Foundation
import Hummingbird
import OnTheMapModels
import Storage

/// Accounts and sessions, in one place for every feature: creating an account, starting a
/// session (whatever proved who the user is), setting a password, the disabled rule and the
/// address links are made for.
struct AccountsService: Sendable {
    let store: any OnTheMapStore
    let configuration: Configuration
    let publicOrigin: PublicOrigin
    /// bcrypt's threads of their own (see `PasswordHashing`).
    let hashing: PasswordHashing

    init(store: any OnTheMapStore, configuration: Configuration, hashing: PasswordHashing) {
        self.store = store
        self.configuration = configuration
        self.publicOrigin = PublicOrigin(configuration: configuration)
        self.hashing = hashing
    }

    /// The stored form of a new password, hashed on the hashing threads.
    func hashPassword(_ password: String) async throws -> String {
        let cost = configuration.bcryptCost
        return try await hashing.run { Passwords.hash(password, cost: cost) }
    }

    /// Whether `password` matches a stored hash, checked on the hashing threads.
    func verifyPassword(_ password: String, hash: String) async throws -> Bool {
        try await hashing.run { Passwords.verify(password, hash: hash) }
    }

    /// What a disabled account is told, by every way of signing in.
    static let disabledMessage = "This account has been disabled by the community's administrator."

    /// Creates an account under a fresh random key; throws `StorageError.emailTaken`.
    func createAccount(email: String, passwordHash: String, firstName: String, lastName: String, emailVerified: Bool) async throws
        -> Account
    {
        var account = Account(
            key: Identifiers.accountKey(), email: email, passwordHash: passwordHash, firstName: firstName,
            lastName: lastName, createdAt: configuration.clock.now(), emailVerified: emailVerified)
        // Keys are random; on the rare collision draw again.
        while try await store.account(key: account.key) != nil { account.key = Identifiers.accountKey() }
        try await store.createAccount(account)
        // Read back: the first account of a community is made its administrator.
        return try await store.account(key: account.key) ?? account
    }

    /// Sets a new password hash: open reset links are spent, and every session of the account
    /// but `keeping` ends (whoever knew the old password is logged out). Returns how many ended.
    func setPassword(accountKey: String, hash: String, keeping: String?) async throws -> Int {
        try await store.updatePasswordHash(accountKey: accountKey, to: hash, now: configuration.clock.now())
        return try await store.deleteSessions(accountKey: accountKey, keeping: keeping)
    }

    /// The origin of links in the answer to `request` (see `PublicOrigin`).
    func origin(for request: Request, isHTTPS: Bool) throws(PublicOrigin.UnknownHost) -> String {
        try publicOrigin.origin(for: request, isHTTPS: isHTTPS)
    }

    /// Creates a session for `account` and the cookies a password login sets with it (the
    /// session, `XSRF-TOKEN`, and the device marker on a first login from this browser).
    /// Every way of signing in ends here, so all of them give the same session.
    /// `rememberingDevice: false` (a launch inside a course's frame, whose cookies live in the
    /// platform's partition): no device marker is made or recorded.
    /// `sharedComputer` (the person said "This is a shared computer", or the host runs with
    /// `--shared-computers`): the session and `XSRF-TOKEN` cookies are browser-session cookies
    /// (no `Expires`, no `Max-Age`), so they end when the browser closes; the session itself
    /// still ends at its expiry on the server. No device marker is made or recorded either:
    /// a shared computer is nobody's own device.
    func startSession(
        for account: Account, request: Request, context: AppRequestContext,
        rememberingDevice: Bool = true, sharedComputer: Bool = false
    ) async throws -> (Session, [Cookie]) {
        let shared = sharedComputer || configuration.sharedComputers
        let rememberingDevice = rememberingDevice && !shared
        let now = configuration.clock.now()
        let session = Session(
            id: Identifiers.sessionId(now: now), accountKey: account.key, createdAt: now,
            expiresAt: now.addingTimeInterval(configuration.sessionLifetime)
        )
        try await store.createSession(session)
        let device = rememberingDevice ? Self.deviceDigest(request) : nil
        let deviceToken = device == nil && rememberingDevice ? Tokens.randomHex(bytes: 16) : nil
        if let digest = deviceToken.map(SessionToken.digest) ?? device {
            try await store.rememberDevice(digest: digest, accountKey: account.key, now: now)
        }
        let secure = context.isHTTPS
        var cookies = [
            Cookie(
                name: SessionCredential.cookieName, value: session.id, expires: shared ? nil : session.expiresAt,
                path: "/", secure: secure, httpOnly: true, sameSite: .lax
            ),
            // Old clients echo this as X-XSRF-TOKEN on logout; it must be readable by scripts.
            Cookie(
                name: "XSRF-TOKEN", value: Tokens.randomHex(bytes: 16), expires: shared ? nil : session.expiresAt,
                path: "/", secure: secure, httpOnly: false, sameSite: .lax
            ),
        ]
        if let deviceToken {
            cookies.append(
                Cookie(
                    name: Self.deviceCookie, value: deviceToken, expires: now.addingTimeInterval(365 * 86_400),
                    path: "/", secure: secure, httpOnly: true, sameSite: .lax
                ))
        }
        return (session, cookies)
    }

    /// What every login answers, whatever proved who the user is (a password, a Facebook
    /// token, an app's one-time code): the Udacity session body, behind `prefix`, with the
    /// session's cookies.
    func sessionAnswer(_ session: Session, account: Account, cookies: [Cookie], prefix: String = "") throws -> Response {
        var response = try JSONResponse.make(
            SessionResponse(
                account: .init(registered: true, key: account.key),
                session: .init(id: session.id, expiration: ParseDate.string(from: session.expiresAt))
            ),
            prefix: prefix
        )
        for cookie in cookies { response.setCookie(cookie) }
        return response
    }

    /// Marks a browser or app that has logged in before; never a credential by itself.
    static let deviceCookie = "onthemap_device"

    /// The digest of the device cookie the request carries, if it could be one.
    static func deviceDigest(_ request: Request) -> String? {
        (request.cookies[deviceCookie]?.value).flatMap { $0.count <= 64 ? SessionToken.digest(String($0)) : nil }
    }
}
