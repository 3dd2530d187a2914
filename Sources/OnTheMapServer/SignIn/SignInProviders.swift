import Foundation

/// The providers this server offers, built once from the configuration.
struct SignInProviders: Sendable {
    enum Provider: Sendable {
        case oidc(OIDCClient)
        case facebook(FacebookClient)

        var id: String {
            switch self {
            case .oidc(let client): client.settings.id
            case .facebook: FacebookClient.provider
            }
        }

        var name: String {
            switch self {
            case .oidc(let client): client.settings.displayName
            case .facebook: "Facebook"
            }
        }

        var kind: String {
            switch self {
            case .oidc: "oidc"
            case .facebook: "facebook"
            }
        }
    }

    let all: [Provider]
    let facebook: FacebookClient?

    init(configuration: Configuration, http: any SignInHTTPClient = URLSessionSignInClient()) {
        var all = configuration.oidcProviders.map {
            Provider.oidc(OIDCClient(settings: $0, http: http, keyRefetchInterval: configuration.signInKeyRefetchInterval))
        }
        facebook = configuration.facebook.map { FacebookClient(settings: $0, http: http) }
        if let facebook { all.append(.facebook(facebook)) }
        self.all = all
    }

    func provider(_ id: String) -> Provider? {
        all.first { $0.id == id }
    }
}
