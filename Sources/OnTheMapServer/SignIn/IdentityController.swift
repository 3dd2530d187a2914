import Foundation
import Hummingbird
import OnTheMapModels
import Storage

/// The identity routes of our API: which providers this server offers, who the session
/// belongs to, and the account menu's sign-in methods (list, unlink). The sign-in flow itself
/// is `SignInController`.
struct IdentityController: Sendable {
    let store: any OnTheMapStore
    let providers: SignInProviders

    func addRoutes(to api: RouterGroup<AppRequestContext>) {
        api.get("auth/providers", use: list)
        api.get("auth/me", use: me)
        api.get("account/identities", use: identities)
        api.delete("account/identities/:provider", use: unlink)
    }

    // MARK: GET /api/auth/providers

    struct ProviderList: Encodable {
        struct Entry: Encodable {
            let id: String
            let name: String
            let kind: String
        }
        let providers: [Entry]
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        try JSONResponse.make(ProviderList(providers: providers.all.map { .init(id: $0.id, name: $0.name, kind: $0.kind) }))
    }

    // MARK: GET /api/auth/me

    struct Me: Encodable {
        let key: String
        let first_name: String
        let last_name: String
        let email: String
        let provider: String?
    }

    /// Who this session belongs to: how the web app learns it is signed in after coming back
    /// from a provider (the session cookie is HttpOnly).
    @Sendable func me(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.requireSignedIn(.api("Not signed in."))
        let session = caller.session
        let account = caller.account
        let provider = try await store.sessionSignIn(sessionID: session.id)?.provider
        return try JSONResponse.make(
            Me(
                key: account.key, first_name: account.firstName, last_name: account.lastName,
                email: account.email, provider: provider))
    }

    // MARK: GET /api/account/identities, DELETE /api/account/identities/<id>

    struct IdentityList: Encodable {
        struct Entry: Encodable {
            let provider: String
            let name: String
            let email: String
            let linked: Bool
        }
        let has_password: Bool
        let identities: [Entry]
    }

    @Sendable func identities(_ request: Request, context: AppRequestContext) async throws -> Response {
        let account = try context.requireSignedIn(.api("Log in to see your linked accounts.")).account
        let links = try await store.identities(accountKey: account.key)
        let entries = providers.all.map { provider in
            let link = links.first { $0.provider == provider.id }
            return IdentityList.Entry(provider: provider.id, name: provider.name, email: link?.email ?? "", linked: link != nil)
        }
        return try JSONResponse.make(IdentityList(has_password: !account.passwordHash.isEmpty, identities: entries))
    }

    @Sendable func unlink(_ request: Request, context: AppRequestContext) async throws -> Response {
        let account = try context.requireSignedIn(.api("Log in to unlink an account.")).account
        let id = context.parameters.get("provider") ?? ""
        let links = try await store.identities(accountKey: account.key)
        guard links.contains(where: { $0.provider == id }) else {
            throw APIError(.notFound, "not_linked", "That provider is not linked to your account.")
        }
        // Never leave an account nobody can sign in to.
        guard !account.passwordHash.isEmpty || links.count > 1 else {
            throw APIError(.conflict, "last_sign_in_method", "Set a password first: this is the only way you can sign in.")
        }
        try await store.unlinkIdentity(provider: id, accountKey: account.key)
        context.logger.info("identity unlinked", metadata: ["account": "\(account.key)", "provider": "\(id.prefix(32))"])
        return try JSONResponse.make(["unlinked": id])
    }
}
