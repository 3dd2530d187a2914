import Foundation
import HTTPTypes
import Hummingbird
import Localization
import OnTheMapModels
import Storage

/// LTI Dynamic Registration 1.0: a platform's administrator pastes the tool's registration
/// link (`onthemap admin lti registration-link`, one use, a day) into the platform, which
/// opens it with `openid_configuration` and `registration_token`. The tool reads the
/// platform's configuration, registers itself there (its login, redirect and key URLs, the
/// deep-linking message, the claims it wants, the roster scope) and stores the answer.
/// The invitation is what stops anyone else from registering a platform here.
struct LTIRegistration: Sendable {
    static let inviteLifetime: TimeInterval = 86_400

    let store: any OnTheMapStore
    let platforms: LTIPlatforms
    let publicOrigin: PublicOrigin
    let clock: WallClock

    func addRoutes(root: RouterGroup<AppRequestContext>) {
        root.get("lti/register", use: register)
    }

    /// A new one-time registration invitation; returns its secret.
    static func invite(store: any LTIRepository, now: Date = Date()) async throws -> String {
        let secret = Tokens.random()
        try await store.saveTicket(
            digest: SessionToken.digest(secret),
            LTITicket(
                kind: .registration, accountKey: nil, payload: "{}", expiresAt: now.addingTimeInterval(inviteLifetime)))
        return secret
    }

    private struct PlatformConfiguration: Decodable {
        struct LTI: Decodable {
            let product_family_code: String?
        }
        let issuer: String
        let authorization_endpoint: String
        let token_endpoint: String
        let jwks_uri: String
        let registration_endpoint: String
        /// The audience the platform's token endpoint expects in a client assertion.
        let authorization_server: String?
        let lti: LTI?

        enum CodingKeys: String, CodingKey {
            case issuer, authorization_endpoint, token_endpoint, jwks_uri, registration_endpoint, authorization_server
            case lti = "https://purl.imsglobal.org/spec/lti-platform-configuration"
        }
    }

    static func isLoopback(_ url: URL) -> Bool {
        ["localhost", "127.0.0.1", "::1", "[::1]"].contains(url.host?.lowercased() ?? "")
    }

    private struct ClientReply: Decodable {
        struct Tool: Decodable { let deployment_id: String? }
        let client_id: String
        let tool: Tool?

        enum CodingKeys: String, CodingKey {
            case client_id
            case tool = "https://purl.imsglobal.org/spec/lti-tool-configuration"
        }
    }

    @Sendable func register(_ request: Request, context: AppRequestContext) async throws -> Response {
        // Form-encoded as any query a platform builds; the first of a repeated name counts.
        let query = Dictionary(FormEncoding.decode(request.uri.query ?? ""), uniquingKeysWith: { first, _ in first })
        let now = clock.now()
        // The platform opens this page in its own frame or window: it may frame the answer.
        let registering = query["openid_configuration"].flatMap {
            LTIPlatforms.urlProblem($0, field: "") == nil ? LTIPlatforms.origin(of: $0) : nil
        }
        let frame = (await platforms.frameAncestors()) + (registering.map { [$0] } ?? [])
        do {
            guard let invite = query["invite"], invite.count <= 128,
                let ticket = try await store.takeTicket(digest: SessionToken.digest(invite), kind: .registration, now: now)
            else {
                throw LTIProblem(.forbidden, "registrationLinkInvalid", log: "registration without a live invitation")
            }
            do {
                let name = try await registerPlatform(query: query, request: request, context: context, now: now)
                context.logger.notice("lti platform registered", metadata: ["platform": "\(name)"])
                let say = Translator(request.language)
                let body = """
                    <p id="lti-registered">\(LTIPages.html(say, "lti.registered.message", ["platform": LTIPages.bold(name)]))</p>
                    <script src="/lti/registered.js"></script>
                    """
                return LTIPages.page(
                    .ok, title: say("lti.registered.title"), language: request.language, body: body,
                    headers: LTIPages.headers(frameAncestors: frame, script: true))
            } catch {
                // Nothing was registered: the invitation still works.
                try await store.saveTicket(digest: SessionToken.digest(invite), ticket)
                throw error
            }
        } catch let problem as LTIProblem {
            context.logger.notice("lti registration refused", metadata: ["reason": "\(problem.logReason)"])
            return LTIPages.problem(problem, language: request.language, frameAncestors: frame)
        }
    }

    private func registerPlatform(query: [String: String], request: Request, context: AppRequestContext, now: Date) async throws -> String {
        guard let configurationText = query["openid_configuration"], configurationText.count <= 2048,
            LTIPlatforms.urlProblem(configurationText, field: "openid_configuration") == nil,
            let configurationURL = URL(string: configurationText)
        else {
            throw LTIProblem(.badRequest, "notARegistration")
        }
        let token = query["registration_token"].flatMap { $0.isEmpty || $0.count > 4096 ? nil : $0 }
        let http = platforms.http
        let reply: SignInHTTPReply
        do {
            reply = try await http.send(
                SignInHTTPRequest(url: configurationURL, headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:]))
        } catch {
            throw LTIProblem(.badGateway, "configurationUnreachable", log: "\(error)")
        }
        guard reply.status == 200, let platform = try? JSONDecoder().decode(PlatformConfiguration.self, from: reply.body) else {
            throw LTIProblem(
                .badGateway, "configurationUnreadable",
                log: "platform configuration HTTP \(reply.status) or not decodable")
        }
        // The issuer's domain is the configuration URL's. A loopback address is no domain of
        // its own (every service on the machine shares it): there the port must match too.
        guard let issuerURL = URL(string: platform.issuer), issuerURL.host?.lowercased() == configurationURL.host?.lowercased(),
            !Self.isLoopback(configurationURL) || issuerURL.port == configurationURL.port
        else {
            throw LTIProblem(.badRequest, "configurationMismatch")
        }
        for (field, value) in [
            ("issuer", platform.issuer), ("authorization_endpoint", platform.authorization_endpoint),
            ("token_endpoint", platform.token_endpoint), ("jwks_uri", platform.jwks_uri),
            ("registration_endpoint", platform.registration_endpoint),
        ] {
            if let problem = LTIPlatforms.urlProblem(value, field: field) {
                throw LTIProblem(.badRequest, "configurationUnusable", ["detail": .text(problem)])
            }
        }
        let origin: String
        do {
            origin = try publicOrigin.origin(for: request, isHTTPS: context.isHTTPS)
        } catch {
            throw LTIProblem(.badRequest, "foreignHost", ["detail": .text(error.description)])
        }
        let host = URL(string: origin)?.host ?? ""
        let registration: [String: Any] = [
            "application_type": "web",
            "response_types": ["id_token"],
            "grant_types": ["implicit", "client_credentials"],
            "initiate_login_uri": origin + "/lti/login",
            "redirect_uris": [origin + "/lti/launch"],
            "client_name": "OnTheMap",
            "jwks_uri": origin + "/lti/jwks",
            "logo_uri": origin + "/img/icon-192.png",
            "token_endpoint_auth_method": "private_key_jwt",
            "scope": LTIRosterSync.scope,
            "https://purl.imsglobal.org/spec/lti-tool-configuration": [
                "domain": host,
                "target_link_uri": origin + "/lti/launch",
                "description": "Where everybody in the class is: a map and a list of the class, each person placed where they chose.",
                "claims": ["iss", "sub", "name", "given_name", "family_name", "email"],
                // Canvas sends no names unless asked; names only, emails stay with the platform.
                "https://canvas.instructure.com/lti/privacy_level": "name_only",
                "messages": [
                    ["type": "LtiResourceLinkRequest", "target_link_uri": origin + "/lti/launch", "label": "Class map"],
                    ["type": "LtiDeepLinkingRequest", "target_link_uri": origin + "/lti/launch", "label": "Class map"],
                ],
            ] as [String: Any],
        ]
        guard let endpoint = URL(string: platform.registration_endpoint) else { throw LTIProblem(.badRequest, "badRegistrationEndpoint") }
        let answer: SignInHTTPReply
        do {
            answer = try await http.send(
                SignInHTTPRequest(
                    method: "POST", url: endpoint, headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:],
                    json: try JSONSerialization.data(withJSONObject: registration, options: [.sortedKeys])))
        } catch {
            throw LTIProblem(.badGateway, "registrationUnreachable", log: "\(error)")
        }
        guard (200..<300).contains(answer.status), let client = try? JSONDecoder().decode(ClientReply.self, from: answer.body),
            !client.client_id.isEmpty, client.client_id.count <= 255
        else {
            throw LTIProblem(
                .badGateway, "registrationRefused", ["status": .text(String(answer.status))],
                log: "registration answered HTTP \(answer.status)")
        }
        let name = String((platform.lti?.product_family_code ?? configurationURL.host ?? "platform").prefix(80))
        let record = LTIPlatform(
            id: Tokens.randomHex(bytes: 6), issuer: platform.issuer, clientID: client.client_id, name: name,
            authURL: platform.authorization_endpoint, tokenURL: platform.token_endpoint, jwksURL: platform.jwks_uri,
            tokenAudience: platform.authorization_server.flatMap { $0.isEmpty || $0.count > 2048 ? nil : $0 }, trustEmail: false,
            deploymentIDs: client.tool?.deployment_id.map { [$0] } ?? [], createdAt: now)
        do {
            try await store.addPlatform(record)
        } catch StorageError.platformExists {
            throw LTIProblem(.conflict, "alreadyRegistered")
        }
        platforms.reload()
        return name
    }
}
