import Foundation
import OnTheMapModels
import SQLKit

/// Provider identities, sign-ins under way and per-session provider details (migration 9).
// (`SQLStore` conforms to `SignInRepository` through `OnTheMapStore`.)
extension SQLStore {
    public func savePendingSignIn(_ pending: PendingSignIn) async throws {
        try await withDatabase { db in
            try await db.raw(
                """
                INSERT INTO pending_sign_ins (state_digest, provider, nonce, code_verifier, return_path, browser_digest,
                                              link_account_key, client_redirect, client_challenge, created_at, expires_at)
                VALUES (\(bind: pending.stateDigest), \(bind: pending.provider), \(bind: pending.nonce), \(bind: pending.codeVerifier),
                        \(bind: pending.returnPath), \(bind: pending.browserDigest), \(bind: pending.linkAccountKey),
                        \(bind: pending.clientRedirect), \(bind: pending.clientChallenge),
                        \(bind: ParseDate.string(from: pending.createdAt)), \(bind: ParseDate.string(from: pending.expiresAt)))
                """
            ).run()
        }
    }

    public func takePendingSignIn(stateDigest: String) async throws -> PendingSignIn? {
        try await withDatabase { db in
            // One DELETE both finds and spends it: a state is good for one callback only.
            guard let row = try await db.raw("DELETE FROM pending_sign_ins WHERE state_digest = \(bind: stateDigest) RETURNING *").first()
            else { return nil }
            return PendingSignIn(
                stateDigest: try row.decode(column: "state_digest", as: String.self),
                provider: try row.decode(column: "provider", as: String.self),
                nonce: try row.decode(column: "nonce", as: String.self),
                codeVerifier: try row.decode(column: "code_verifier", as: String.self),
                returnPath: try row.decode(column: "return_path", as: String.self),
                browserDigest: try row.decode(column: "browser_digest", as: String.self),
                linkAccountKey: try row.decode(column: "link_account_key", as: String?.self),
                clientRedirect: try row.decode(column: "client_redirect", as: String?.self),
                clientChallenge: try row.decode(column: "client_challenge", as: String?.self),
                createdAt: ParseDate.date(from: try row.decode(column: "created_at", as: String.self)) ?? .distantPast,
                expiresAt: ParseDate.date(from: try row.decode(column: "expires_at", as: String.self)) ?? .distantPast
            )
        }
    }

    @discardableResult
    public func deleteExpiredPendingSignIns(now: Date) async throws -> Int {
        let text = ParseDate.string(from: now)
        return try await withDatabase { db in
            try await db.raw("DELETE FROM pending_sign_ins WHERE expires_at < \(bind: text) RETURNING state_digest").all().count
        }
    }

    public func identityAccountKey(provider: String, subject: String) async throws -> String? {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT account_key FROM identity_links WHERE provider = \(bind: provider) AND subject = \(bind: subject)
                """
            ).first()?.decode(column: "account_key", as: String.self)
        }
    }

    public func linkIdentity(_ link: IdentityLink) async throws -> Bool {
        try await withDatabase { db in try await Self.insertLink(link, on: db) }
    }

    /// False when the identity is linked already, or the account has one of this provider.
    static func insertLink(_ link: IdentityLink, on db: any SQLDatabase) async throws -> Bool {
        let id = UUID().uuidString.lowercased()
        return try await !db.raw(
            """
            INSERT INTO identity_links (id, provider, subject, account_key, email, created_at, origin)
            VALUES (\(bind: id), \(bind: link.provider), \(bind: link.subject), \(bind: link.accountKey), \(bind: link.email),
                    \(bind: ParseDate.string(from: link.createdAt)), \(bind: link.origin.rawValue))
            ON CONFLICT DO NOTHING RETURNING id
            """
        ).all().isEmpty
    }

    @discardableResult
    public func unlinkIdentity(provider: String, accountKey: String) async throws -> Bool {
        try await touchesARow(
            "DELETE FROM identity_links WHERE provider = \(bind: provider) AND account_key = \(bind: accountKey) RETURNING id")
    }

    public func identityLink(provider: String, subject: String) async throws -> IdentityLink? {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT * FROM identity_links WHERE provider = \(bind: provider) AND subject = \(bind: subject)
                """
            ).first().map(Self.identityLink(from:))
        }
    }

    public func identities(accountKey: String) async throws -> [IdentityLink] {
        try await withDatabase { db in
            try await db.raw(
                """
                SELECT * FROM identity_links WHERE account_key = \(bind: accountKey) ORDER BY created_at, provider
                """
            ).all().map(Self.identityLink(from:))
        }
    }

    static func identityLink(from row: any SQLRow) throws -> IdentityLink {
        IdentityLink(
            provider: try row.decode(column: "provider", as: String.self),
            subject: try row.decode(column: "subject", as: String.self),
            accountKey: try row.decode(column: "account_key", as: String.self),
            email: try row.decode(column: "email", as: String.self),
            createdAt: ParseDate.date(from: try row.decode(column: "created_at", as: String.self)) ?? .distantPast,
            origin: IdentityLink.Origin(rawValue: try row.decode(column: "origin", as: String.self)) ?? .legacy
        )
    }

    public func saveSignInHandoff(code: String, accountKey: String, provider: String, challenge: String, expiresAt: Date) async throws {
        try await withDatabase { db in
            try await db.raw(
                """
                INSERT INTO sign_in_handoffs (code_digest, account_key, provider, challenge, expires_at)
                VALUES (\(bind: SessionToken.digest(code)), \(bind: accountKey), \(bind: provider), \(bind: challenge),
                        \(bind: ParseDate.string(from: expiresAt)))
                """
            ).run()
        }
    }

    public func takeSignInHandoff(code: String, now: Date) async throws -> (accountKey: String, provider: String, challenge: String)? {
        let nowText = ParseDate.string(from: now)
        return try await withDatabase { db in
            // Spent by the first attempt, right or wrong verifier alike; expired ones go too.
            try await db.raw("DELETE FROM sign_in_handoffs WHERE expires_at < \(bind: nowText)").run()
            guard
                let row = try await db.raw(
                    """
                    DELETE FROM sign_in_handoffs WHERE code_digest = \(bind: SessionToken.digest(code))
                    RETURNING account_key, provider, challenge
                    """
                ).first()
            else { return nil }
            return (
                try row.decode(column: "account_key", as: String.self), try row.decode(column: "provider", as: String.self),
                try row.decode(column: "challenge", as: String.self)
            )
        }
    }

    public func saveSessionSignIn(sessionID: String, _ signIn: SessionSignIn) async throws {
        try await withDatabase { db in
            try await db.raw(
                """
                INSERT INTO session_sign_ins (session_id, provider, id_token, access_token)
                VALUES (\(bind: SessionToken.digest(sessionID)), \(bind: signIn.provider), \(bind: signIn.idToken), \(bind: signIn.accessToken))
                """
            ).run()
        }
    }

    public func sessionSignIn(sessionID: String) async throws -> SessionSignIn? {
        try await withDatabase { db in
            guard
                let row = try await db.raw(
                    """
                    SELECT * FROM session_sign_ins WHERE session_id = \(bind: SessionToken.digest(sessionID))
                    """
                ).first()
            else { return nil }
            return SessionSignIn(
                provider: try row.decode(column: "provider", as: String.self),
                idToken: try row.decode(column: "id_token", as: String?.self),
                accessToken: try row.decode(column: "access_token", as: String?.self)
            )
        }
    }
}
