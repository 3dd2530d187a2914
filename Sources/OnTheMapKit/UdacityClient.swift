import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A Udacity user's public data (`GET /users/<key>`).
public struct UdacityUser: Sendable, Hashable, Codable {
    public var key: String
    public var firstName: String
    public var lastName: String
    public var nickname: String?

    public init(key: String, firstName: String, lastName: String, nickname: String? = nil) {
        self.key = key
        self.firstName = firstName
        self.lastName = lastName
        self.nickname = nickname
    }

    public var fullName: String {
        [firstName, lastName].filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// Accepts the v1 shape (fields at top level) and the old one (`{"user":{…}}`).
    init?(json: [String: Any], requestedKey: String) {
        let fields: [String: Any]
        if json["first_name"] != nil || json["last_name"] != nil {
            fields = json
        } else if let user = json["user"] as? [String: Any] {
            fields = user
        } else {
            return nil
        }
        let first = fields["first_name"] as? String
        let last = fields["last_name"] as? String
        guard first != nil || last != nil else { return nil }
        let key = (fields["key"] as? String) ?? (fields["key"] as? NSNumber)?.stringValue ?? requestedKey
        self.init(
            key: key, firstName: first ?? "", lastName: last ?? "",
            nickname: fields["nickname"] as? String)
    }
}

/// The Udacity session API: log in, log out, read a user's public data; and sign-up on this
/// project's server. Every call has a completion-handler form and an `async` twin.
public final class UdacityClient: Sendable {
    public let configuration: OnTheMapConfiguration
    /// Shared with a `StudentLocationClient` so its writes carry the session.
    public let sessionStore: SessionStore
    let transport: HTTPTransport

    /// - Parameters:
    ///   - configuration: the server, and the timeout of each request.
    ///   - sessionStore: where the session is kept, shared with a `StudentLocationClient`.
    ///   - urlSession: defaults to `configuration.makeURLSession()`.
    ///   - callbackQueue: where completion handlers run (`.main` for UI code); nil runs them on
    ///     URLSession's delegate queue.
    public init(
        configuration: OnTheMapConfiguration = .local, sessionStore: SessionStore = SessionStore(),
        urlSession: URLSession? = nil, callbackQueue: DispatchQueue? = nil
    ) {
        self.configuration = configuration
        self.sessionStore = sessionStore
        self.transport = HTTPTransport(
            configuration: configuration, urlSession: urlSession,
            callbackQueue: callbackQueue)
    }

    /// The session of the last successful login, if any.
    public var session: UdacitySession? { sessionStore.session }

    // MARK: Login

    /// `POST /session`. On success the session is kept in `sessionStore`.
    /// Fails with `.badCredentials` for a wrong email or password.
    @discardableResult
    public func login(
        email: String, password: String,
        completion: @escaping @Sendable (Result<UdacitySession, OnTheMapError>) -> Void
    ) -> RequestHandle {
        transport.send(loginRequest(email: email, password: password), dialect: .udacity) { [self] result in
            completion(Self.badCredentialsOn403(result).flatMap(handleLogin))
        }
    }

    public func login(email: String, password: String) async throws(OnTheMapError) -> UdacitySession {
        try await Self.badCredentialsOn403(
            transport.send(
                loginRequest(email: email, password: password),
                dialect: .udacity)
        )
        .flatMap(handleLogin).get()
    }

    /// `POST /session` with `{"facebook_mobile":{"access_token":…}}`: logs in the account
    /// linked to the Facebook user whose token this is (from the Facebook SDK on the device).
    /// Fails with `.badCredentials` when the token is refused or no account is linked to that
    /// Facebook user, with `.server` when the server could not reach Facebook.
    @discardableResult
    public func login(
        facebookAccessToken token: String,
        completion: @escaping @Sendable (Result<UdacitySession, OnTheMapError>) -> Void
    ) -> RequestHandle {
        transport.send(facebookLoginRequest(token), dialect: .udacity) { [self] result in
            completion(Self.badCredentialsOn403(result).flatMap(handleLogin))
        }
    }

    public func login(facebookAccessToken token: String) async throws(OnTheMapError) -> UdacitySession {
        try await Self.badCredentialsOn403(transport.send(facebookLoginRequest(token), dialect: .udacity))
            .flatMap(handleLogin).get()
    }

    private func facebookLoginRequest(_ token: String) -> URLRequest {
        let body = JSONBody.encode(["facebook_mobile": ["access_token": token]])
        return transport.request(
            configuration.sessionBaseURL.appendingPathComponent("session"),
            method: "POST", json: body)
    }

    /// On the session API a 401/403 means the email or password is wrong.
    private static func badCredentialsOn403(_ result: Result<HTTPAnswer, OnTheMapError>) -> Result<HTTPAnswer, OnTheMapError> {
        result.mapError { error in
            if case .unauthorized(_, let message) = error { return .badCredentials(message: message) }
            return error
        }
    }

    private func loginRequest(email: String, password: String) -> URLRequest {
        let body = JSONBody.encode(["udacity": ["username": email, "password": password]])
        return transport.request(
            configuration.sessionBaseURL.appendingPathComponent("session"),
            method: "POST", json: body)
    }

    private func handleLogin(_ answer: HTTPAnswer) -> Result<UdacitySession, OnTheMapError> {
        JSONBody.decode(SessionResponse.self, from: answer.body, what: "login answer").map { response in
            let session = UdacitySession(
                accountKey: response.account.key, sessionID: response.session.id,
                expiration: UdacitySession.parseExpiration(response.session.expiration),
                xsrfToken: answer.cookies["XSRF-TOKEN"]
            )
            sessionStore.session = session
            return session
        }
    }

    // MARK: Logout

    /// `DELETE /session`, then forgets the session. A session the server no longer knows is
    /// forgotten too (the user is logged out either way).
    @discardableResult
    public func logout(completion: @escaping @Sendable (Result<Void, OnTheMapError>) -> Void) -> RequestHandle {
        transport.send(logoutRequest(), dialect: .udacity) { [self] result in
            completion(handleLogout(result))
        }
    }

    public func logout() async throws(OnTheMapError) {
        try handleLogout(await transport.send(logoutRequest(), dialect: .udacity)).get()
    }

    private func logoutRequest() -> URLRequest {
        var headers = sessionStore.authenticationHeaders
        if let xsrf = sessionStore.session?.xsrfToken { headers["X-XSRF-TOKEN"] = xsrf }
        return transport.request(
            configuration.sessionBaseURL.appendingPathComponent("session"),
            method: "DELETE", headers: headers)
    }

    private func handleLogout(_ result: Result<HTTPAnswer, OnTheMapError>) -> Result<Void, OnTheMapError> {
        switch result {
        case .success:
            sessionStore.session = nil
            return .success(())
        case .failure(let error):
            if case .unauthorized = error {
                sessionStore.session = nil
                return .success(())
            }
            return .failure(error)
        }
    }

    // MARK: User data

    /// `GET /users/<key>`: first and last name to put on a StudentLocation.
    @discardableResult
    public func userData(
        accountKey: String,
        completion: @escaping @Sendable (Result<UdacityUser, OnTheMapError>) -> Void
    ) -> RequestHandle {
        transport.send(userRequest(accountKey), dialect: .udacity) { result in
            completion(result.flatMap { Self.decodeUser($0, key: accountKey) })
        }
    }

    public func userData(accountKey: String) async throws(OnTheMapError) -> UdacityUser {
        try await transport.send(userRequest(accountKey), dialect: .udacity)
            .flatMap { Self.decodeUser($0, key: accountKey) }.get()
    }

    private func userRequest(_ key: String) -> URLRequest {
        transport.request(
            configuration.sessionBaseURL.appendingPathComponent("users")
                .appendingPathComponent(key))
    }

    private static func decodeUser(_ answer: HTTPAnswer, key: String) -> Result<UdacityUser, OnTheMapError> {
        JSONBody.object(from: answer.body, what: "user data").flatMap { json in
            guard let user = UdacityUser(json: json, requestedKey: key) else {
                return .failure(.unreadableResponse(detail: "user data without a name"))
            }
            return .success(user)
        }
    }

    // MARK: Sign-up (this project's server only)

    /// `POST <service>/users`: creates an account and returns its key. Needs a server with
    /// the project's own API (`serviceBaseURL`).
    @discardableResult
    public func signUp(
        email: String, password: String, firstName: String, lastName: String,
        completion: @escaping @Sendable (Result<String, OnTheMapError>) -> Void
    ) -> RequestHandle {
        guard let request = signUpRequest(email, password, firstName, lastName) else {
            let handle = RequestHandle()
            transport.deliver(.failure(.unavailable(feature: "sign-up")), to: completion)
            return handle
        }
        return transport.send(request, dialect: .service) { result in
            completion(result.flatMap(Self.decodeSignUp))
        }
    }

    public func signUp(
        email: String, password: String, firstName: String,
        lastName: String
    ) async throws(OnTheMapError) -> String {
        guard let request = signUpRequest(email, password, firstName, lastName) else {
            throw .unavailable(feature: "sign-up")
        }
        return try await transport.send(request, dialect: .service).flatMap(Self.decodeSignUp).get()
    }

    private func signUpRequest(_ email: String, _ password: String, _ first: String, _ last: String) -> URLRequest? {
        guard let base = configuration.serviceBaseURL else { return nil }
        let body = JSONBody.encode(SignUpRequest(email: email, password: password, firstName: first, lastName: last))
        return transport.request(base.appendingPathComponent("users"), method: "POST", json: body)
    }

    private static func decodeSignUp(_ answer: HTTPAnswer) -> Result<String, OnTheMapError> {
        JSONBody.decode(SignUpResponse.self, from: answer.body, what: "sign-up answer").map(\.account.key)
    }
}
