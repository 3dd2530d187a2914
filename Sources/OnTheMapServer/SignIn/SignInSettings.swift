import Foundation

/// One OpenID Connect provider students may sign in with. Parsed from
/// `--oidc-provider 'id=school,name=School account,issuer=https://…,client-id=…,client-secret-env=VAR'`.
/// The secret is never printed: `description` masks it.
public struct OIDCProviderSettings: Sendable, Equatable, CustomStringConvertible {
    /// Short name in URLs (`/auth/<id>/callback`): 1 to 32 of `a-z 0-9 -`.
    public var id: String
    /// Shown on the button: "Continue with <displayName>".
    public var displayName: String
    public var issuer: String
    public var clientID: String
    /// nil: a public client (PKCE alone); otherwise sent with HTTP Basic to the token endpoint.
    public var clientSecret: String?
    public var scopes: [String]

    public init(
        id: String, displayName: String, issuer: String, clientID: String, clientSecret: String?,
        scopes: [String] = ["openid", "email", "profile"]
    ) {
        self.id = id
        self.displayName = displayName
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scopes = scopes
    }

    public var description: String {
        "\(id) (\(displayName), issuer \(issuer), client \(clientID), secret \(clientSecret == nil ? "none" : "set"))"
    }

    static let reservedIDs: Set<String> = ["facebook"]

    /// Parses one `key=value,key=value` spec. Keys: `id`, `name`, `issuer`, `client-id`,
    /// `client-secret`, `client-secret-env` (the name of an environment variable holding the
    /// secret, so it stays off the command line), `scopes` (space-separated).
    public static func parse(_ spec: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Self {
        var fields: [String: String] = [:]
        for part in spec.split(separator: ",", omittingEmptySubsequences: true) {
            guard let equals = part.firstIndex(of: "=") else {
                throw ConfigurationError("--oidc-provider: '\(part.prefix(40))' is not key=value.")
            }
            let key = part[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = part[part.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard ["id", "name", "issuer", "client-id", "client-secret", "client-secret-env", "scopes"].contains(key) else {
                throw ConfigurationError(
                    "--oidc-provider: unknown key '\(key.prefix(40))' (id, name, issuer, client-id, client-secret, client-secret-env, scopes)."
                )
            }
            fields[key] = value
        }
        guard let id = fields["id"], !id.isEmpty, id.count <= 32,
            id.allSatisfy({ ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }), !reservedIDs.contains(id)
        else {
            throw ConfigurationError("--oidc-provider needs id=<1 to 32 of a-z, 0-9, -> (not 'facebook', which has its own settings).")
        }
        guard let issuer = fields["issuer"], let url = URL(string: issuer), let scheme = url.scheme?.lowercased(),
            scheme == "https" || (scheme == "http" && Self.isLoopback(url.host ?? "")), url.host?.isEmpty == false
        else {
            throw ConfigurationError("--oidc-provider \(id): issuer must be an https URL (http only on this machine, for tests).")
        }
        guard let clientID = fields["client-id"], !clientID.isEmpty else {
            throw ConfigurationError("--oidc-provider \(id): client-id is required.")
        }
        var secret = fields["client-secret"]
        if let variable = fields["client-secret-env"] {
            guard let value = environment[variable], !value.isEmpty else {
                throw ConfigurationError("--oidc-provider \(id): the environment variable \(variable) (client-secret-env) is not set.")
            }
            secret = value
        }
        let scopes = fields["scopes"].map { $0.split(separator: " ").map(String.init) } ?? ["openid", "email", "profile"]
        guard scopes.contains("openid") else { throw ConfigurationError("--oidc-provider \(id): scopes must include openid.") }
        let name = fields["name"].flatMap { $0.isEmpty ? nil : $0 } ?? id
        guard name.count <= 40, TextRules.isDisplaySafe(name) else {
            throw ConfigurationError("--oidc-provider \(id): name must be at most 40 printable characters.")
        }
        return Self(
            id: id, displayName: name, issuer: issuer, clientID: clientID,
            clientSecret: secret?.isEmpty == true ? nil : secret, scopes: scopes)
    }

    static func isLoopback(_ host: String) -> Bool {
        ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased())
    }
}

/// Facebook Login (OAuth 2.0 and the Graph API). The base URLs are settings so a test stub
/// or a mirror can stand in.
public struct FacebookSettings: Sendable, Equatable, CustomStringConvertible {
    public var appID: String
    public var appSecret: String
    public var dialogURL = Self.defaultDialogURL
    public var graphURL = Self.defaultGraphURL
    public static let defaultDialogURL = "https://www.facebook.com/v21.0/dialog/oauth"
    public static let defaultGraphURL = "https://graph.facebook.com/v21.0"

    public init(appID: String, appSecret: String) {
        self.appID = appID
        self.appSecret = appSecret
    }

    public var description: String { "Facebook app \(appID) (secret set), dialog \(dialogURL), Graph API \(graphURL)" }
}
