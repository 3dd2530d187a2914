import Crypto
import Foundation
import JWTKit
import OnTheMapModels
import Synchronization

/// The relying-party side of OpenID Connect for one provider: discovery, the authorization
/// URL (code flow, PKCE S256, state, nonce), the code exchange and full ID token
/// verification (signature against the provider's JWKS, `iss`, `aud`, `exp`, `nonce`) with
/// jwt-kit. Discovery and keys are cached; an unknown `kid` fetches the keys again (a
/// provider rotating its keys), at most once every `keyRefetchInterval`.
final class OIDCClient: Sendable {
    struct Metadata: Decodable, Sendable {
        let issuer: String
        let authorization_endpoint: String
        let token_endpoint: String
        let jwks_uri: String
        let end_session_endpoint: String?
    }

    /// What a verified ID token says about the user.
    struct Identity: Sendable, Equatable {
        var subject: String
        var email: String?
        var emailVerified: Bool
        var givenName: String?
        var familyName: String?
        var name: String?
    }

    enum Failure: Error, Equatable, CustomStringConvertible {
        /// The provider answered the exchange with an OAuth error (a code used twice, say).
        case rejected(String)
        case invalidToken(String)
        var description: String {
            switch self {
            case .rejected(let reason): "provider refused: \(reason)"
            case .invalidToken(let reason): "ID token refused: \(reason)"
            }
        }
    }

    let settings: OIDCProviderSettings
    let http: any SignInHTTPClient
    /// The provider's keys, at the `jwks_uri` its discovery document names.
    private let keySet: RemoteKeySet
    /// Clock skew allowed on `exp` and `iat`.
    static let leeway: TimeInterval = 60

    private let cachedMetadata = Mutex<Metadata?>(nil)

    init(settings: OIDCProviderSettings, http: any SignInHTTPClient, keyRefetchInterval: TimeInterval = 30) {
        self.settings = settings
        self.http = http
        keySet = RemoteKeySet(http: http, refetchInterval: keyRefetchInterval)
    }

    // MARK: Discovery

    func metadata() async throws -> Metadata {
        if let cached = cachedMetadata.withLock({ $0 }) { return cached }
        let base = settings.issuer.hasSuffix("/") ? String(settings.issuer.dropLast()) : settings.issuer
        guard let url = URL(string: base + "/.well-known/openid-configuration") else { throw ProviderUnavailable("bad issuer URL") }
        let reply = try await http.send(SignInHTTPRequest(url: url))
        guard reply.status == 200 else { throw ProviderUnavailable("discovery answered HTTP \(reply.status)") }
        guard let metadata = try? JSONDecoder().decode(Metadata.self, from: reply.body) else {
            throw ProviderUnavailable("discovery document is not valid OpenID Provider metadata")
        }
        // OpenID Connect Discovery §4.3: the issuer in the document must be the one configured.
        guard Self.sameIssuer(metadata.issuer, settings.issuer) else {
            throw ProviderUnavailable("discovery names issuer \(metadata.issuer), not the configured \(settings.issuer)")
        }
        for endpoint in [metadata.authorization_endpoint, metadata.token_endpoint, metadata.jwks_uri] {
            guard let url = URL(string: endpoint), ["https", "http"].contains(url.scheme?.lowercased() ?? "") else {
                throw ProviderUnavailable("discovery has an endpoint that is not an http(s) URL")
            }
        }
        cachedMetadata.withLock { $0 = metadata }
        return metadata
    }

    static func sameIssuer(_ a: String, _ b: String) -> Bool {
        func trimmed(_ s: String) -> String { s.hasSuffix("/") ? String(s.dropLast()) : s }
        return trimmed(a) == trimmed(b)
    }

    // MARK: Authorization request

    func authorizationURL(redirectURI: String, state: String, nonce: String, codeVerifier: String) async throws -> URL {
        let metadata = try await metadata()
        guard let endpoint = URL(string: metadata.authorization_endpoint) else { throw ProviderUnavailable("bad authorization endpoint") }
        return FormEncoding.url(
            endpoint,
            adding: [
                ("response_type", "code"),
                ("client_id", settings.clientID),
                ("redirect_uri", redirectURI),
                ("scope", settings.scopes.joined(separator: " ")),
                ("state", state),
                ("nonce", nonce),
                ("code_challenge", Self.codeChallenge(for: codeVerifier)),
                ("code_challenge_method", "S256"),
            ])
    }

    /// RFC 7636 §4.2: BASE64URL(SHA256(ASCII(code_verifier))).
    static func codeChallenge(for verifier: String) -> String {
        Tokens.base64URL(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    // MARK: Code exchange

    struct TokenReply: Decodable {
        let id_token: String?
        let access_token: String?
        let error: String?
    }

    /// Exchanges the code and returns the verified identity and the raw ID token (kept as the
    /// logout hint).
    func exchange(code: String, redirectURI: String, codeVerifier: String, nonce: String, now: Date = Date()) async throws -> (
        Identity, String
    ) {
        let metadata = try await metadata()
        guard let endpoint = URL(string: metadata.token_endpoint) else { throw ProviderUnavailable("bad token endpoint") }
        var form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", codeVerifier)]
        var headers: [String: String] = [:]
        if let secret = settings.clientSecret {
            // RFC 6749 §2.3.1: client_secret_basic, both parts form-encoded first.
            let pair = FormEncoding.escape(settings.clientID) + ":" + FormEncoding.escape(secret)
            headers["Authorization"] = "Basic " + Data(pair.utf8).base64EncodedString()
        } else {
            form.append(("client_id", settings.clientID))
        }
        let reply = try await http.send(SignInHTTPRequest(method: "POST", url: endpoint, headers: headers, form: form))
        let decoded = try? JSONDecoder().decode(TokenReply.self, from: reply.body)
        if (400..<500).contains(reply.status), let error = decoded?.error {
            throw Failure.rejected(String(error.prefix(64)))
        }
        guard reply.status == 200, let decoded else {
            throw ProviderUnavailable("token endpoint answered HTTP \(reply.status) without a token")
        }
        guard let idToken = decoded.id_token else { throw ProviderUnavailable("token endpoint answered without an id_token") }
        let identity = try await verify(idToken: idToken, nonce: nonce, now: now)
        return (identity, idToken)
    }

    // MARK: ID token verification

    struct IDTokenClaims: JWTPayload {
        let iss: IssuerClaim
        let sub: SubjectClaim
        let aud: AudienceClaim
        let exp: ExpirationClaim
        let iat: IssuedAtClaim?
        let nonce: String?
        let azp: String?
        let email: String?
        let email_verified: BoolClaim?
        let given_name: String?
        let family_name: String?
        let name: String?

        /// Signature has been checked when this runs; the claims are checked by `verify(idToken:)`.
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    func verify(idToken: String, nonce: String, now: Date = Date()) async throws -> Identity {
        let claims: IDTokenClaims
        do {
            claims = try await keySet.verify(idToken, as: IDTokenClaims.self, now: now) {
                guard let url = URL(string: try await metadata().jwks_uri) else { throw ProviderUnavailable("bad jwks_uri") }
                return url
            }
        } catch let refusal as RemoteKeySet.Refusal {
            throw Failure.invalidToken(refusal.description)
        }
        guard Self.sameIssuer(claims.iss.value, settings.issuer) else { throw Failure.invalidToken("wrong issuer") }
        guard claims.aud.value.contains(settings.clientID) else { throw Failure.invalidToken("wrong audience") }
        // OpenID Connect Core §3.1.3.7: several audiences need azp to be us.
        if claims.aud.value.count > 1, claims.azp != settings.clientID { throw Failure.invalidToken("wrong authorized party") }
        guard claims.exp.value.addingTimeInterval(Self.leeway) > now else { throw Failure.invalidToken("expired") }
        if let iat = claims.iat, iat.value > now.addingTimeInterval(Self.leeway) { throw Failure.invalidToken("issued in the future") }
        guard let tokenNonce = claims.nonce, Tokens.constantTimeEqual(tokenNonce, nonce) else {
            throw Failure.invalidToken("nonce missing or wrong")
        }
        guard !claims.sub.value.isEmpty, claims.sub.value.utf8.count <= 255 else { throw Failure.invalidToken("bad subject") }
        return Identity(
            subject: claims.sub.value, email: claims.email, emailVerified: claims.email_verified?.value ?? false,
            givenName: claims.given_name, familyName: claims.family_name, name: claims.name
        )
    }
}
