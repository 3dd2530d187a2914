import Crypto
import Foundation

/// Facebook Login as Facebook documents it: the login dialog, the code exchange at
/// `/oauth/access_token`, `/debug_token` (is this token for our app?) and
/// `/me?fields=id,first_name,last_name,email` with `appsecret_proof`, the HMAC-SHA256 of the
/// access token keyed with the app secret. Tokens only ever travel in query strings to
/// Facebook itself and are never logged.
struct FacebookClient: Sendable {
    struct Profile: Sendable, Equatable {
        var id: String
        var firstName: String?
        var lastName: String?
        var email: String?
    }

    enum Failure: Error, Equatable {
        /// Facebook says the token or code is not good (expired, revoked, another app's).
        case invalidToken
    }

    let settings: FacebookSettings
    let http: any SignInHTTPClient

    static let provider = "facebook"

    func dialogURL(redirectURI: String, state: String) -> URL? {
        guard let base = URL(string: settings.dialogURL) else { return nil }
        return FormEncoding.url(
            base,
            adding: [
                ("client_id", settings.appID), ("redirect_uri", redirectURI), ("state", state),
                ("response_type", "code"), ("scope", "public_profile,email"),
            ])
    }

    /// hex(HMAC-SHA256(key: app secret, message: access token)).
    static func appSecretProof(token: String, secret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(token.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return mac.map { String(format: "%02x", $0) }.joined()
    }

    private func graph(_ path: String, _ fields: [(String, String)]) -> URL? {
        let base = settings.graphURL.hasSuffix("/") ? String(settings.graphURL.dropLast()) : settings.graphURL
        return URL(string: base + path).map { FormEncoding.url($0, adding: fields) }
    }

    private func object(_ reply: SignInHTTPReply) throws -> [String: Any] {
        guard let json = try? JSONSerialization.jsonObject(with: reply.body) as? [String: Any] else {
            if (400..<500).contains(reply.status) { throw Failure.invalidToken }
            throw ProviderUnavailable("Facebook answered HTTP \(reply.status) with something other than JSON")
        }
        // Graph API errors: {"error":{"message","type":"OAuthException","code":190,…}}.
        if json["error"] != nil {
            if (400..<500).contains(reply.status) { throw Failure.invalidToken }
            throw ProviderUnavailable("Facebook answered HTTP \(reply.status)")
        }
        guard reply.status == 200 else { throw ProviderUnavailable("Facebook answered HTTP \(reply.status)") }
        return json
    }

    /// The code from the dialog, exchanged for a user access token.
    func exchange(code: String, redirectURI: String) async throws -> String {
        guard
            let url = graph(
                "/oauth/access_token",
                [
                    ("client_id", settings.appID), ("redirect_uri", redirectURI), ("client_secret", settings.appSecret), ("code", code),
                ])
        else { throw ProviderUnavailable("bad Graph API URL") }
        let json = try object(try await http.send(SignInHTTPRequest(url: url)))
        guard let token = json["access_token"] as? String, !token.isEmpty else {
            throw ProviderUnavailable("no access_token in Facebook's answer")
        }
        return token
    }

    /// Checks that `token` is valid and was issued to this app (not to some other app whose
    /// users' tokens an attacker holds), then reads the user.
    func profile(token: String) async throws -> Profile {
        guard
            let debugURL = graph(
                "/debug_token",
                [
                    ("input_token", token), ("access_token", "\(settings.appID)|\(settings.appSecret)"),
                ])
        else { throw ProviderUnavailable("bad Graph API URL") }
        let debug = try object(try await http.send(SignInHTTPRequest(url: debugURL)))
        guard let data = debug["data"] as? [String: Any], data["is_valid"] as? Bool == true,
            Self.string(data["app_id"]) == settings.appID
        else { throw Failure.invalidToken }
        guard
            let meURL = graph(
                "/me",
                [
                    ("fields", "id,first_name,last_name,email"), ("access_token", token),
                    ("appsecret_proof", Self.appSecretProof(token: token, secret: settings.appSecret)),
                ])
        else { throw ProviderUnavailable("bad Graph API URL") }
        let me = try object(try await http.send(SignInHTTPRequest(url: meURL)))
        guard let id = Self.string(me["id"]), !id.isEmpty, id.utf8.count <= 64 else {
            throw ProviderUnavailable("no user id in Facebook's answer")
        }
        if let userID = Self.string(data["user_id"]), userID != id { throw Failure.invalidToken }
        return Profile(id: id, firstName: me["first_name"] as? String, lastName: me["last_name"] as? String, email: me["email"] as? String)
    }

    /// Revokes the app's permissions for this token's user (`DELETE /me/permissions`), which
    /// ends the token: what "log out of Facebook" can mean for a web app. Best effort.
    func revoke(token: String) async -> Bool {
        guard
            let url = graph(
                "/me/permissions",
                [
                    ("access_token", token), ("appsecret_proof", Self.appSecretProof(token: token, secret: settings.appSecret)),
                ])
        else { return false }
        guard let reply = try? await http.send(SignInHTTPRequest(method: "DELETE", url: url)) else { return false }
        return reply.status == 200
    }

    private static func string(_ value: Any?) -> String? {
        if let text = value as? String { return text }
        if let number = value as? NSNumber { return number.stringValue }
        return nil
    }
}
