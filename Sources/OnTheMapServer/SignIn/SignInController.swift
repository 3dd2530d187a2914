import Foundation
import HTTPTypes
import Hummingbird
import Localization
import OnTheMapModels
import Storage

/// Sign-in with other accounts: any OpenID Connect provider and Facebook.
///
/// Browser flow: `GET /auth/<id>/start?return=/path` stores a pending sign-in (state, nonce,
/// PKCE verifier, return path, a digest of a cookie set on this browser) and redirects to
/// the provider; the provider sends the browser back to `GET /auth/<id>/callback`, which
/// spends the pending sign-in (once), exchanges the code, verifies the identity, finds or
/// creates the account and starts the same session a password login does. Both are GETs,
/// which `CrossSiteRequestGuard` leaves alone: the provider's redirect is a cross-site
/// top-level navigation, and the state, bound to this browser's cookie, is what protects it.
///
/// API (JSON, same-origin writes as everywhere): `GET /api/auth/providers`,
/// `POST /api/auth/<id>/link`, `GET /api/account/identities`,
/// `DELETE /api/account/identities/<id>`, `POST /api/auth/logout`.
struct SignInController: Sendable {
    let accounts: AccountsService
    let providers: SignInProviders
    /// Pending sign-ins and hand-offs, identity links, sessions and their accounts.
    let store: any SignInRepository & AccountRepository & SessionRepository
    var configuration: Configuration { accounts.configuration }
    var policy: SignInPolicy { SignInPolicy(accounts: accounts, store: store) }

    /// The cookie binding a pending sign-in to the browser that started it: a fresh random
    /// value every time (never one the browser brought, which a sibling site or a plain-HTTP
    /// answer could have planted), `__Host-` prefixed over HTTPS so no other site can set it.
    static let browserCookie = "onthemap_signin"
    static let secureBrowserCookie = "__Host-onthemap_signin"

    static func browserCookieName(https: Bool) -> String { https ? secureBrowserCookie : browserCookie }

    /// Set by `start?shared=1` ("This is a shared computer" on the login card) until the
    /// callback: the session it starts gets browser-session cookies. Not a credential.
    static let sharedComputerCookie = "onthemap_signin_shared"

    /// `root` is the server's root (for `/auth/…`), `api` the `/api` group.
    func addRoutes(root: RouterGroup<AppRequestContext>, api: RouterGroup<AppRequestContext>) {
        root.get("auth/:provider/start", use: start)
        root.get("auth/:provider/callback", use: callback)
        api.post("auth/:provider/link", use: link)
        api.post("auth/logout", use: logout)
        api.post("auth/token", use: token)
    }

    // MARK: GET /auth/<id>/start

    @Sendable func start(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let provider = providers.provider(context.parameters.get("provider") ?? "") else {
            return Problem(.notFound, "noProvider").page(for: request)
        }
        let returnPath = Self.safeReturnPath(request.uri.queryParameters.get("return"))
        // A native app (the CLI) signing in through the browser: RFC 8252 loopback redirect.
        var client: (redirect: String, challenge: String)?
        if let redirect = request.uri.queryParameters.get("client_redirect") {
            guard let loopback = Self.loopbackRedirect(String(redirect)),
                let challenge = request.uri.queryParameters.get("client_challenge"), Self.isChallenge(String(challenge))
            else {
                return Problem(.badRequest, "appRedirect").page(for: request)
            }
            client = (loopback, String(challenge))
        }
        let shared = ["1", "true"].contains(request.uri.queryParameters.get("shared") ?? "")
        let sharedCookie = Cookie(
            name: Self.sharedComputerCookie, value: shared ? "1" : "", maxAge: shared ? max(60, Int(configuration.signInLifetime)) : 0,
            path: "/", secure: context.isHTTPS, httpOnly: true, sameSite: .lax)
        return try await begin(provider, returnPath: returnPath, linkAccountKey: nil, client: client, request: request, context: context) {
            url, cookie in
            var response = SignInPage.redirect(to: url.absoluteString)
            response.setCookie(cookie)
            response.setCookie(sharedCookie)
            return response
        }
    }

    /// Stores the pending sign-in and hands the provider's URL (and the browser cookie) to `answer`.
    private func begin(
        _ provider: SignInProviders.Provider, returnPath: String, linkAccountKey: String?,
        client: (redirect: String, challenge: String)? = nil, request: Request, context: AppRequestContext,
        answer: (URL, Cookie) throws -> Response
    ) async throws -> Response {
        let state = Tokens.random()
        let nonce = Tokens.random()
        let verifier = Tokens.random()
        let browser = Tokens.random()
        let redirectURI: String
        do {
            redirectURI = try self.redirectURI(for: provider.id, request: request, context: context)
        } catch {
            context.logger.notice("sign-in refused", metadata: ["reason": "unknown host"])
            return Problem(.badRequest, "foreignHost", ["detail": .text(error.description)]).page(for: request)
        }
        let url: URL
        do {
            switch provider {
            case .oidc(let client):
                url = try await client.authorizationURL(redirectURI: redirectURI, state: state, nonce: nonce, codeVerifier: verifier)
            case .facebook(let client):
                guard let dialog = client.dialogURL(redirectURI: redirectURI, state: state) else {
                    throw ProviderUnavailable("bad dialog URL")
                }
                url = dialog
            }
        } catch {
            context.logger.warning("sign-in provider unavailable", metadata: ["provider": "\(provider.id)", "reason": "\(error)"])
            return Problem(.badGateway, "providerUnreachable", ["provider": .text(provider.name)]).page(for: request)
        }
        let now = configuration.clock.now()
        try await store.deleteExpiredPendingSignIns(now: now)
        try await store.savePendingSignIn(
            PendingSignIn(
                stateDigest: SessionToken.digest(state), provider: provider.id, nonce: nonce, codeVerifier: verifier,
                returnPath: returnPath, browserDigest: SessionToken.digest(browser), linkAccountKey: linkAccountKey,
                clientRedirect: client?.redirect, clientChallenge: client?.challenge, createdAt: now,
                expiresAt: now.addingTimeInterval(configuration.signInLifetime)
            ))
        context.logger.info("sign-in started", metadata: ["provider": "\(provider.id)", "linking": "\(linkAccountKey != nil)"])
        let cookie = Cookie(
            name: Self.browserCookieName(https: context.isHTTPS), value: browser,
            maxAge: max(60, Int(configuration.signInLifetime)), path: "/", secure: context.isHTTPS, httpOnly: true, sameSite: .lax)
        return try answer(url, cookie)
    }

    /// The callback URL to register with the provider.
    func redirectURI(for id: String, request: Request, context: AppRequestContext) throws(PublicOrigin.UnknownHost) -> String {
        try accounts.origin(for: request, isHTTPS: context.isHTTPS) + "/auth/\(id)/callback"
    }

    /// A path on this server, or `/`: never another site (`//evil.example`, `/\evil`,
    /// `https://…`), never control characters.
    static func safeReturnPath(_ text: String?) -> String {
        guard let text, text.count <= 512, text.hasPrefix("/"), !text.hasPrefix("//"), !text.hasPrefix("/\\"),
            !text.contains("\\"), text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }),
            let components = URLComponents(string: text), components.scheme == nil, components.host == nil
        else { return "/" }
        return text
    }

    /// RFC 8252 §7.3: `http://127.0.0.1:<port>/path` or `http://[::1]:<port>/path`, nothing else
    /// (not `localhost`, which a hosts file can point elsewhere; no query or fragment).
    static func loopbackRedirect(_ text: String) -> String? {
        guard text.count <= 256, let components = URLComponents(string: text), components.scheme == "http",
            let host = components.host, host == "127.0.0.1" || host == "::1" || host == "[::1]",
            let port = components.port, port > 0, components.user == nil, components.password == nil,
            components.query == nil, components.fragment == nil,
            text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { return nil }
        return text
    }

    /// A PKCE S256 challenge: 43 base64url characters.
    static func isChallenge(_ text: String) -> Bool {
        text.count == 43 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    // MARK: GET /auth/<id>/callback

    /// Why a sign-in stops: a page in the reader's language (`signin.<name>.title` and
    /// `.message` of the server's catalogue, then the sentences `then` adds).
    struct Problem: Error {
        let status: HTTPResponse.Status
        let title: LocalizedText
        let message: LocalizedText
        init(_ status: HTTPResponse.Status, _ name: String, _ arguments: [String: MessageArgument] = [:], then: [LocalizedText] = []) {
            self.status = status
            self.title = LocalizedText("signin.\(name).title", arguments)
            self.message = LocalizedText("signin.\(name).message", arguments, then: then)
        }

        /// The page saying so, in the request's reader's language.
        func page(for request: Request) -> Response {
            SignInPage.problem(status, title, message, language: request.language)
        }
    }

    @Sendable func callback(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = context.parameters.get("provider") ?? ""
        var response: Response
        do {
            response = try await finish(id: id, request: request, context: context)
        } catch let problem as Problem {
            context.logger.notice("sign-in refused", metadata: ["provider": "\(id.prefix(32))", "reason": "\(problem.title)"])
            response = problem.page(for: request)
        }
        // The browser's pending-sign-in cookie is spent either way.
        response.setCookie(
            Cookie(
                name: Self.browserCookieName(https: context.isHTTPS), value: "", maxAge: 0, path: "/",
                secure: context.isHTTPS, httpOnly: true, sameSite: .lax))
        if request.cookies[Self.sharedComputerCookie] != nil {
            response.setCookie(
                Cookie(
                    name: Self.sharedComputerCookie, value: "", maxAge: 0, path: "/", secure: context.isHTTPS, httpOnly: true,
                    sameSite: .lax))
        }
        return response
    }

    private func finish(id: String, request: Request, context: AppRequestContext) async throws -> Response {
        guard let provider = providers.provider(id) else {
            throw Problem(.notFound, "noProvider")
        }
        let query = request.uri.queryParameters
        let named: [String: MessageArgument] = ["provider": .text(provider.name)]
        let startAgain = [LocalizedText("signin.startAgain", named)]
        // The user said no (or the provider failed). RFC 6749 says the state comes back with
        // the error, but not every provider sends it: either way nothing is created.
        let providerError = query.get("error")
        let denial =
            providerError == "access_denied"
            ? Problem(.forbidden, "cancelled", named) : Problem(.forbidden, "providerError", named, then: startAgain)
        if providerError != nil, (query.get("state") ?? "").isEmpty { throw denial }
        guard let state = query.get("state"), !state.isEmpty, state.count <= 128 else {
            throw Problem(.badRequest, "noState", then: startAgain)
        }
        // Spent now, whatever happens next: a state is good for one callback.
        guard let pending = try await store.takePendingSignIn(stateDigest: SessionToken.digest(state)) else {
            throw Problem(.badRequest, "stateUsed", then: startAgain)
        }
        guard pending.provider == provider.id,
            let browser = request.cookies[Self.browserCookieName(https: context.isHTTPS)]?.value,
            Tokens.constantTimeEqual(SessionToken.digest(String(browser)), pending.browserDigest)
        else {
            throw Problem(.badRequest, "startedElsewhere", then: startAgain)
        }
        guard pending.expiresAt > configuration.clock.now() else {
            throw Problem(.badRequest, "tooLong", ["minutes": .number(Int(configuration.signInLifetime / 60))], then: startAgain)
        }
        if providerError != nil { throw denial }
        guard let code = query.get("code"), !code.isEmpty, code.count <= 2048 else {
            throw Problem(.badRequest, "noCode", then: startAgain)
        }
        let redirectURI: String
        do {
            redirectURI = try self.redirectURI(for: provider.id, request: request, context: context)
        } catch {
            throw Problem(.badRequest, "foreignHost", ["detail": .text(error.description)])
        }
        let identity: SignInPolicy.ExternalIdentity
        var sessionSignIn: SessionSignIn
        do {
            switch provider {
            case .oidc(let client):
                let (verified, idToken) = try await client.exchange(
                    code: code, redirectURI: redirectURI, codeVerifier: pending.codeVerifier, nonce: pending.nonce,
                    now: configuration.clock.now())
                identity = SignInPolicy.ExternalIdentity(
                    provider: provider.id, subject: verified.subject, email: verified.email, emailVerified: verified.emailVerified,
                    firstName: verified.givenName ?? verified.name?.split(separator: " ").first.map(String.init),
                    lastName: verified.familyName ?? verified.name.map { $0.split(separator: " ").dropFirst().joined(separator: " ") }
                )
                sessionSignIn = SessionSignIn(provider: provider.id, idToken: idToken, accessToken: nil)
            case .facebook(let client):
                let token = try await client.exchange(code: code, redirectURI: redirectURI)
                let profile = try await client.profile(token: token)
                identity = SignInPolicy.ExternalIdentity(
                    provider: provider.id, subject: profile.id, email: profile.email, emailVerified: profile.email != nil,
                    firstName: profile.firstName, lastName: profile.lastName
                )
                sessionSignIn = SessionSignIn(provider: provider.id, idToken: nil, accessToken: token)
            }
        } catch let error as ProviderUnavailable {
            context.logger.warning("sign-in provider unavailable", metadata: ["provider": "\(provider.id)", "reason": "\(error)"])
            throw Problem(.badGateway, "providerDown", named)
        } catch let error as OIDCClient.Failure {
            context.logger.warning("sign-in identity refused", metadata: ["provider": "\(provider.id)", "reason": "\(error)"])
            throw Problem(
                .forbidden, "notVerified", ["provider": .text(provider.name), "reason": .text(Self.reason(error))], then: startAgain)
        } catch FacebookClient.Failure.invalidToken {
            throw Problem(.forbidden, "facebookRefused", then: startAgain)
        }
        let session = try context.caller.signedIn?.session
        let resolution = try await policy.resolve(identity, linking: pending.linkAccountKey, session: session)
        let account = resolution.account
        var next = pending.returnPath
        if let loopback = pending.clientRedirect, let challenge = pending.clientChallenge {
            let code = Tokens.random()
            try await store.saveSignInHandoff(
                code: code, accountKey: account.key, provider: provider.id, challenge: challenge,
                expiresAt: configuration.clock.now().addingTimeInterval(120))
            context.logger.info("sign-in handed to an app", metadata: ["account": "\(account.key)", "provider": "\(provider.id)"])
            next = FormEncoding.url(URL(string: loopback)!, adding: [("code", code)]).absoluteString
        } else {
            let shared = request.cookies[Self.sharedComputerCookie]?.value == "1"
            let (session, cookies) = try await accounts.startSession(
                for: account, request: request, context: context, sharedComputer: shared)
            if pending.linkAccountKey == nil || sessionSignIn.accessToken != nil {
                try await store.saveSessionSignIn(sessionID: session.id, sessionSignIn)
            }
            context.logger.info("login", metadata: ["account": "\(account.key)", "provider": "\(provider.id)"])
            var response = Self.arrival(resolution, next: next, language: request.language)
            for cookie in cookies { response.setCookie(cookie) }
            return response
        }
        return Self.arrival(resolution, next: next, language: request.language)
    }

    /// Straight on to `next`; or, when an unproven account with the person's email became
    /// theirs, a page saying what happened first.
    static func arrival(_ resolution: SignInPolicy.Resolution, next: String, language: Language) -> Response {
        guard case .claimed = resolution else { return SignInPage.redirect(to: next) }
        return SignInPage.notice(
            title: LocalizedText("signin.claimed.title"), message: LocalizedText("signin.claimed.message"),
            continueTo: next, continueLabel: LocalizedText("signin.claimed.continue"), language: language)
    }

    static func reason(_ failure: OIDCClient.Failure) -> String {
        switch failure {
        case .rejected: "the sign-in code was refused, perhaps already used"
        case .invalidToken(let why): why
        }
    }

    // MARK: POST /api/auth/<id>/link

    struct LinkStart: Encodable { let location: String }

    @Sendable func link(_ request: Request, context: AppRequestContext) async throws -> Response {
        let session = try context.requireSignedIn(.api("Log in to link another account.")).session
        guard let provider = providers.provider(context.parameters.get("provider") ?? "") else {
            throw APIError(.notFound, "unknown_provider", "This server does not offer that way of signing in.")
        }
        let response = try await begin(
            provider, returnPath: "/#/signed-in", linkAccountKey: session.accountKey, request: request, context: context
        ) { url, cookie in
            var response = try JSONResponse.make(LinkStart(location: url.absoluteString))
            response.setCookie(cookie)
            return response
        }
        guard response.status == .ok else {
            throw APIError(.badGateway, "provider_unavailable", "\(provider.name) is not answering; try again in a moment.")
        }
        return response
    }

    // MARK: POST /api/auth/token

    struct TokenRequest: Decodable {
        let code: String
        let code_verifier: String
    }

    /// A native app trades the one-time code its loopback address received, with the PKCE
    /// verifier only it knows, for a session: the same answer as `POST /session` (no prefix).
    @Sendable func token(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.collectBody(limit: 4096) { APIError.tooLarge }
        guard let form = try? JSONDecoder().decode(TokenRequest.self, from: body), form.code.count <= 128, form.code_verifier.count <= 128
        else {
            throw APIError(.badRequest, "invalid_body", "Send a JSON object with code and code_verifier (strings).")
        }
        guard let handoff = try await store.takeSignInHandoff(code: form.code, now: configuration.clock.now()),
            Tokens.constantTimeEqual(OIDCClient.codeChallenge(for: form.code_verifier), handoff.challenge),
            let account = try await store.account(key: handoff.accountKey), account.disabledAt == nil
        else {
            throw APIError(.forbidden, "invalid_code", "This sign-in code is unknown, used, expired or not yours. Sign in again.")
        }
        let (session, cookies) = try await accounts.startSession(for: account, request: request, context: context)
        try await store.saveSessionSignIn(sessionID: session.id, SessionSignIn(provider: handoff.provider, idToken: nil, accessToken: nil))
        context.logger.info("login", metadata: ["account": "\(account.key)", "provider": "\(handoff.provider)", "client": "app"])
        return try accounts.sessionAnswer(session, account: account, cookies: cookies)
    }

    // MARK: POST /api/auth/logout

    struct LogoutResult: Encodable {
        let logged_out: Bool
        let provider: String?
        let provider_name: String?
        /// Where to send the browser to sign out of the provider too (RP-initiated logout).
        let provider_logout_url: String?
        /// Facebook: the token we held was revoked (true), could not be (false).
        let provider_token_revoked: Bool?
    }

    @Sendable func logout(_ request: Request, context: AppRequestContext) async throws -> Response {
        var result = LogoutResult(
            logged_out: false, provider: nil, provider_name: nil, provider_logout_url: nil, provider_token_revoked: nil)
        if let session = try context.caller.signedIn?.session {
            let signIn = try await store.sessionSignIn(sessionID: session.id)
            try await store.deleteSession(id: session.id)
            context.logger.info("logout", metadata: ["account": "\(session.accountKey)"])
            var logoutURL: String?
            var revoked: Bool?
            let provider = signIn.flatMap { providers.provider($0.provider) }
            switch provider {
            case .oidc(let client):
                // No way back is offered from an address this server does not hand out links for.
                if let endpoint = try? await client.metadata().end_session_endpoint, let url = URL(string: endpoint),
                    let origin = try? accounts.origin(for: request, isHTTPS: context.isHTTPS)
                {
                    var fields = [("client_id", client.settings.clientID), ("post_logout_redirect_uri", origin + "/")]
                    if let hint = signIn?.idToken { fields.insert(("id_token_hint", hint), at: 0) }
                    logoutURL = FormEncoding.url(url, adding: fields).absoluteString
                }
            case .facebook(let client):
                if let token = signIn?.accessToken { revoked = await client.revoke(token: token) }
            case nil:
                break
            }
            result = LogoutResult(
                logged_out: true, provider: provider?.id, provider_name: provider?.name,
                provider_logout_url: logoutURL, provider_token_revoked: revoked)
        }
        return SessionController.clearingSessionCookies(try JSONResponse.make(result))
    }
}
