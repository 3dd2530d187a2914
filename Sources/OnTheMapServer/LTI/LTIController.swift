import Foundation
import HTTPTypes
import Hummingbird
import Localization
import OnTheMapModels
import Storage

/// OnTheMap as an LTI 1.3 tool: the URLs a platform is given (login initiation `/lti/login`,
/// launch and deep-linking redirect `/lti/launch`, keys `/lti/jwks`, dynamic registration
/// `/lti/register`), the window hand-off and the deep-linking choice. The flow:
///
/// 1. The platform sends the browser to `/lti/login` (third-party initiated login). The tool
///    remembers a state and a nonce bound to this browser (a partitioned cookie named after
///    the state) and sends the browser to the platform's authorization URL.
/// 2. The platform posts a signed `id_token` and the state to `/lti/launch`. The tool spends
///    the state, checks the browser, verifies the token (`LTILaunchVerifier`), provisions the
///    account, class and membership (`LTIProvisioning`) and opens the class map signed in.
struct LTIController: Sendable {
    static let stateCookiePrefix = "onthemap_lti_"
    /// Set with a launch's session: the web app may then be framed by the platforms.
    static let embeddedCookie = "onthemap_embedded"
    static let loginLifetime: TimeInterval = 600
    static let windowCodeLifetime: TimeInterval = 600
    static let maximumFormBytes = 64 * 1024

    let accounts: AccountsService
    let platforms: LTIPlatforms
    let keys: LTIToolKeys
    let provisioning: LTIProvisioning
    let roster: LTIRosterSync
    /// Logins, window tickets, launches, course links and the accounts and classes they open
    /// (the course roster reads the class's roster).
    let store: any LTIRepository & AccountRepository & ClassRepository
    var configuration: Configuration { accounts.configuration }

    func addRoutes(root: RouterGroup<AppRequestContext>) {
        root.get("lti/jwks", use: jwks)
        root.get("lti/launch.js") { _, _ in Self.script(LTIPages.launchScript) }
        root.get("lti/registered.js") { _, _ in Self.script(LTIPages.registeredScript) }
        root.get("lti/login", use: login)
        root.post("lti/login", use: login)
        root.post("lti/launch", use: launch)
        root.get("lti/window/:code", use: windowPage)
        root.post("lti/window", use: window)
        root.post("lti/deep-link", use: deepLink)
    }

    static func script(_ text: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    @Sendable func jwks(_ request: Request, context: AppRequestContext) async throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "max-age=300"],
            body: .init(byteBuffer: ByteBuffer(data: try await keys.jwks())))
    }

    // MARK: Pages and failures

    /// Runs a browser step; an `LTIProblem` becomes its page (framable by the platforms, as
    /// the step runs in their frame), logged without any token.
    func page(_ step: String, request: Request, context: AppRequestContext, _ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let problem as LTIProblem {
            context.logger.notice("lti \(step) refused", metadata: ["reason": "\(problem.logReason)"])
            return LTIPages.problem(problem, language: request.language, frameAncestors: await platforms.frameAncestors())
        }
    }

    /// The fields a platform or a page of this site sent, form-encoded (`FormEncoding.decode`):
    /// the query's, then a POST body's over them.
    static func form(_ request: Request, context: AppRequestContext) async throws -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in FormEncoding.decode(request.uri.query ?? "") { fields[name] = value }
        guard request.method == .post else { return fields }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: maximumFormBytes)
        } catch {
            throw LTIProblem(.contentTooLarge, "tooLarge", tryAgain: true)
        }
        for (name, value) in FormEncoding.decode(String(buffer: body)) { fields[name] = value }
        return fields
    }

    func origin(_ request: Request, _ context: AppRequestContext) throws -> String {
        do {
            return try accounts.publicOrigin.origin(for: request, isHTTPS: context.isHTTPS)
        } catch {
            throw LTIProblem(.badRequest, "foreignHost", ["detail": .text(error.description)])
        }
    }

    // MARK: 1. Login initiation

    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await page("login", request: request, context: context) {
            let fields = try await Self.form(request, context: context)
            guard let issuer = fields["iss"], !issuer.isEmpty, issuer.count <= 1024,
                let loginHint = fields["login_hint"], !loginHint.isEmpty, loginHint.count <= 4096,
                let target = fields["target_link_uri"], !target.isEmpty, target.count <= 2048
            else {
                throw LTIProblem(.badRequest, "notALogin", tryAgain: true, log: "login without iss, login_hint or target_link_uri")
            }
            let clientID = fields["client_id"].flatMap { $0.isEmpty ? nil : $0 }
            let matching = try await platforms.matching(issuer: issuer, clientID: clientID)
            guard let platform = matching.first else {
                throw LTIProblem(.badRequest, "unknownPlatform", log: "login from an unregistered issuer or client id")
            }
            guard matching.count == 1 else {
                throw LTIProblem(.badRequest, "severalRegistrations", tryAgain: true)
            }
            if let deployment = fields["lti_deployment_id"], !deployment.isEmpty, !platform.deploymentIDs.isEmpty,
                !platform.deploymentIDs.contains(deployment)
            {
                throw LTIProblem(.badRequest, "unknownDeployment", log: "login for an unregistered deployment")
            }
            let origin = try origin(request, context)
            guard target.hasPrefix(origin + "/") else {
                throw LTIProblem(.badRequest, "foreignTarget", log: "login target link on another site")
            }
            guard let authorize = URL(string: platform.authURL) else {
                throw LTIProblem(.badGateway, "brokenRegistration")
            }
            let state = Tokens.random()
            let browser = Tokens.random()
            let nonce = Tokens.random()
            let stateDigest = SessionToken.digest(state)
            // Logins never finished go as new ones come, as sign-ins do: the table holds minutes of them.
            try await store.deleteExpiredLTILogins(now: configuration.clock.now())
            try await store.saveLTILogin(
                LTIPendingLogin(
                    stateDigest: stateDigest, platformID: platform.id, nonce: nonce, browserDigest: SessionToken.digest(browser),
                    targetLinkURI: target, expiresAt: configuration.clock.now().addingTimeInterval(Self.loginLifetime)))
            var query: [(String, String)] = [
                ("scope", "openid"), ("response_type", "id_token"), ("response_mode", "form_post"), ("prompt", "none"),
                ("client_id", platform.clientID), ("redirect_uri", origin + "/lti/launch"), ("login_hint", loginHint),
                ("state", state), ("nonce", nonce),
            ]
            if let hint = fields["lti_message_hint"] { query.append(("lti_message_hint", hint)) }
            var headers = HTTPFields()
            headers[.location] = FormEncoding.url(authorize, adding: query).absoluteString
            headers[.cacheControl] = "no-store"
            headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
            headers.append(
                HTTPField(
                    name: .setCookie,
                    value: Self.frameCookie(
                        name: Self.stateCookiePrefix + stateDigest.prefix(16), value: browser, maxAge: Int(Self.loginLifetime),
                        path: "/lti/")))
            return Response(status: .found, headers: headers)
        }
    }

    /// A cookie a platform's frame keeps (third-party context): `SameSite=None; Secure;
    /// Partitioned` (CHIPS), so it works where browsers keep only partitioned cookies in frames.
    static func frameCookie(
        name: String, value: String, maxAge: Int? = nil, expires: Date? = nil, path: String = "/", httpOnly: Bool = true
    ) -> String {
        var parts = ["\(name)=\(value)", "Path=\(path)"]
        if let maxAge { parts.append("Max-Age=\(maxAge)") }
        if let expires {
            parts.append(
                "Expires=\(Cookie(name: "x", value: "", expires: expires).description.components(separatedBy: "Expires=").last?.components(separatedBy: ";").first ?? "")"
            )
        }
        parts += ["Secure"] + (httpOnly ? ["HttpOnly"] : []) + ["SameSite=None", "Partitioned"]
        return parts.joined(separator: "; ")
    }

    // MARK: 2. Launch

    @Sendable func launch(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await page("launch", request: request, context: context) {
            let fields = try await Self.form(request, context: context)
            guard let idToken = fields["id_token"], !idToken.isEmpty, let state = fields["state"], !state.isEmpty, state.count <= 128 else {
                throw LTIProblem(
                    .badRequest, "notALaunch", tryAgain: true,
                    log: fields["error"].map { "platform error \(String($0.prefix(40)))" } ?? "launch without id_token or state")
            }
            let stateDigest = SessionToken.digest(state)
            // Spent now, whatever happens next: a state is good for one launch.
            guard let login = try await store.takeLTILogin(stateDigest: stateDigest) else {
                throw LTIProblem(.badRequest, "launchUsed", tryAgain: true, log: "launch state unknown or spent")
            }
            guard let browser = request.cookies[Self.stateCookiePrefix + stateDigest.prefix(16)]?.value,
                Tokens.constantTimeEqual(SessionToken.digest(String(browser)), login.browserDigest)
            else {
                throw LTIProblem(.badRequest, "startedElsewhere", tryAgain: true, log: "launch without the login's browser cookie")
            }
            let now = configuration.clock.now()
            guard login.expiresAt > now else {
                throw LTIProblem(.badRequest, "tooLong", ["minutes": .number(Int(Self.loginLifetime / 60))], tryAgain: true)
            }
            guard let platform = try await platforms.platform(id: login.platformID) else {
                throw LTIProblem(.badRequest, "platformRemoved")
            }
            let claims = try await LTILaunchVerifier(platforms: platforms).verify(
                idToken: idToken, login: login, platform: platform, now: now)
            let frame = await platforms.frameAncestors()
            var response =
                claims.messageType == LTILaunchClaims.MessageType.deepLinking.rawValue
                ? try await deepLinkingRequest(claims, platform: platform, request: request, context: context, frame: frame)
                : try await resourceLaunch(claims, platform: platform, request: request, context: context, frame: frame, now: now)
            // The login's browser cookie is spent with its state.
            response.headers.append(
                HTTPField(
                    name: .setCookie,
                    value: Self.frameCookie(
                        name: Self.stateCookiePrefix + stateDigest.prefix(16), value: "", maxAge: 0, path: "/lti/")))
            return response
        }
    }

    private func resourceLaunch(
        _ claims: LTILaunchClaims, platform: LTIPlatform, request: Request, context: AppRequestContext,
        frame: [String], now: Date
    ) async throws -> Response {
        let roles = claims.roles ?? []
        let existing = try await provisioning.existingClass(for: claims, platform: platform)
        // Only a teacher's launch makes the course's class; anyone else's, before it, makes nothing.
        guard existing != nil || LTIRoles.teaches(roles) else {
            throw LTIProblem(.conflict, "notOpenedYet", log: "a learner's launch into a course without a class")
        }
        let account = try await provisioning.account(for: claims, platform: platform)
        let mapClass: MapClass
        if let existing {
            mapClass = existing
        } else {
            mapClass = try await provisioning.courseClass(
                platform: platform, deploymentID: claims.deploymentID ?? "", contextID: claims.context?.id ?? "",
                title: claims.context?.title ?? claims.context?.label, teacherKey: account.key, now: now)
        }
        try await provisioning.enrol(accountKey: account.key, in: mapClass, roles: roles, now: now)
        try await store.recordLaunch(
            classID: mapClass.id, platformID: platform.id,
            entry: LTIRosterEntry(subject: claims.sub ?? "", name: claims.displayName, roles: roles), accountKey: account.key)
        if LTIRoles.teaches(roles), let service = claims.namesRoleService,
            LTIPlatforms.urlProblem(service.context_memberships_url, field: "memberships URL") == nil
        {
            try await store.setMembershipsURL(
                service.context_memberships_url, platformID: platform.id,
                deploymentID: claims.deploymentID ?? "", contextID: claims.context?.id ?? "")
            roster.start(classID: mapClass.id, platform: platform, membershipsURL: service.context_memberships_url, logger: context.logger)
        }
        let code = Tokens.random()
        try await store.saveTicket(
            digest: SessionToken.digest(code),
            LTITicket(
                kind: .window, accountKey: account.key, payload: mapClass.slug, expiresAt: now.addingTimeInterval(Self.windowCodeLifetime)))
        context.logger.info(
            "lti launch", metadata: ["account": "\(account.key)", "class": "\(mapClass.slug)", "platform": "\(platform.id)"])
        var response = LTIPages.launched(
            className: mapClass.name, mapPath: Self.arrival(mapClass.slug), windowPath: "/lti/window/\(code)",
            language: request.language, frameAncestors: frame)
        try await signIn(account, response: &response, request: request, context: context)
        return response
    }

    /// The launch's session, in cookies the platform's frame keeps.
    func signIn(_ account: Account, response: inout Response, request: Request, context: AppRequestContext) async throws {
        let (session, cookies) = try await accounts.startSession(for: account, request: request, context: context, rememberingDevice: false)
        for cookie in cookies {
            response.headers.append(
                HTTPField(
                    name: .setCookie,
                    value: Self.frameCookie(
                        name: cookie.name, value: cookie.value, expires: session.expiresAt, httpOnly: cookie.httpOnly)))
        }
        response.headers.append(
            HTTPField(name: .setCookie, value: Self.frameCookie(name: Self.embeddedCookie, value: "1", expires: session.expiresAt)))
    }

    /// Where a launched browser goes: the web app takes the session the cookie holds
    /// (`#/signed-in`, as after a provider's sign-in), then opens the class's map.
    static func arrival(_ slug: String) -> String { "/#/signed-in/c/\(slug)" }

    // MARK: A window of its own

    private static let spentWindowCode = LTIProblem(.badRequest, "windowLinkUsed")

    /// A live window code's ticket and its (enabled) account; `spending` spends it.
    private func windowTicket(_ code: String, spending: Bool, context: AppRequestContext) async throws -> (LTITicket, Account)? {
        let digest = SessionToken.digest(code)
        let now = configuration.clock.now()
        guard code.count <= 128,
            let ticket = spending
                ? try await store.takeTicket(digest: digest, kind: .window, now: now)
                : try await store.peekTicket(digest: digest, kind: .window, now: now),
            let key = ticket.accountKey, let account = try await store.account(key: key), account.disabledAt == nil
        else {
            context.logger.notice("lti window refused", metadata: ["reason": "code unknown, spent or expired"])
            return nil
        }
        return (ticket, account)
    }

    /// `GET /lti/window/:code`: the launch's one-time code, for a browser that keeps no
    /// cookies inside the course. It signs nobody in by itself: the page names the account
    /// and the class, and its button (a form of this site) does, so a link someone else made
    /// cannot quietly sign a visitor in to their account.
    @Sendable func windowPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let code = context.parameters.get("code") ?? ""
        guard let (ticket, account) = try await windowTicket(code, spending: false, context: context) else {
            return LTIPages.problem(Self.spentWindowCode, language: request.language, frameAncestors: [])
        }
        let className = try await provisioning.directory.mapClass(slug: ticket.payload)?.name ?? ticket.payload
        let person = [account.firstName, account.lastName].filter { !$0.isEmpty }.joined(separator: " ")
        let language = request.language
        let say = Translator(language)
        let body = """
            <p>\(LTIPages.html(say, "lti.window.open", ["class": LTIPages.bold(className), "person": LTIPages.bold(person)]))</p>
            <form method="post" action="/lti/window">
            <input type="hidden" name="code" value="\(LTIPages.escape(code))">
            <p><button type="submit" id="continue">\(LTIPages.html(say, "lti.window.continue", ["person": #"<bdi>\#(LTIPages.escape(person))</bdi>"#]))</button></p>
            </form>
            <p>\(LTIPages.escape(say("lti.window.notYou")))</p>
            """
        return LTIPages.page(.ok, title: className, language: language, body: body, headers: LTIPages.headers(frameAncestors: []))
    }

    /// `POST /lti/window` (that page's button): spends the code, starts a session of this
    /// window's own, and opens the class map.
    @Sendable func window(_ request: Request, context: AppRequestContext) async throws -> Response {
        let fields = try await Self.form(request, context: context)
        guard let (ticket, account) = try await windowTicket(fields["code"] ?? "", spending: true, context: context) else {
            return LTIPages.problem(Self.spentWindowCode, language: request.language, frameAncestors: [])
        }
        let (_, cookies) = try await accounts.startSession(for: account, request: request, context: context)
        var response = SignInPage.redirect(to: Self.arrival(ticket.payload))
        for cookie in cookies { response.setCookie(cookie) }
        return response
    }

}
