import Foundation
import OnTheMapModels
import SQLKit

// (`SQLStore` conforms to `AccountRepository` through `OnTheMapStore`.)
extension SQLStore {
    public func createAccount(_ account: Account) async throws {
        try await withDatabase { db in
            // ON CONFLICT DO NOTHING + RETURNING tells a taken email apart from other
            // failures without parsing driver-specific constraint errors, and stays
            // correct when two sign-ups race.
            // The first account of a new community is its administrator. (`WHERE 1 = 1` lets
            // SQLite tell the SELECT's end from the ON CONFLICT clause.)
            let inserted = try await db.raw(
                """
                INSERT INTO accounts (key, email, password_hash, first_name, last_name, created_at, is_admin, email_verified)
                SELECT \(bind: account.key), \(bind: account.email), \(bind: account.passwordHash),
                       \(bind: account.firstName), \(bind: account.lastName), \(bind: ParseDate.string(from: account.createdAt)),
                       CASE WHEN \(bind: account.isAdmin) OR NOT EXISTS (SELECT 1 FROM accounts) THEN 1 ELSE 0 END,
                       \(bind: account.emailVerified ? 1 : 0)
                WHERE 1 = 1
                ON CONFLICT (email) DO NOTHING RETURNING key
                """
            ).all()
            if inserted.isEmpty { throw StorageError.emailTaken }
        }
    }

    /// Whether any account exists: a new server's first sign-up becomes its administrator.
    public func hasAccounts() async throws -> Bool {
        try await withDatabase { db in
            try await !db.raw("SELECT 1 AS one FROM accounts LIMIT 1").all().isEmpty
        }
    }

    public func account(email: String) async throws -> Account? {
        try await withDatabase { db in
            try await db.raw("SELECT * FROM accounts WHERE email = \(bind: email)").first().map(Self.account(from:))
        }
    }

    public func account(key: String) async throws -> Account? {
        try await withDatabase { db in
            try await db.raw("SELECT * FROM accounts WHERE key = \(bind: key)").first().map(Self.account(from:))
        }
    }

    @discardableResult
    public func updatePasswordHash(accountKey: String, to hash: String, now: Date) async throws -> Bool {
        try await withTransaction { db in
            guard
                try await !db.raw(
                    "UPDATE accounts SET password_hash = \(bind: hash) WHERE key = \(bind: accountKey) RETURNING key"
                ).all().isEmpty
            else { return false }
            try await Self.spendPasswordResets(accountKey: accountKey, now: now, on: db)
            return true
        }
    }

    public func accountLanguage(accountKey: String) async throws -> String? {
        try await withDatabase { db in
            try await db.raw("SELECT language FROM accounts WHERE key = \(bind: accountKey)").first()?
                .decode(column: "language", as: String?.self)
        }
    }

    @discardableResult
    public func setAccountLanguage(_ language: String?, accountKey: String) async throws -> Bool {
        try await withDatabase { db in
            try await !db.raw("UPDATE accounts SET language = \(bind: language) WHERE key = \(bind: accountKey) RETURNING key").all()
                .isEmpty
        }
    }

    public func renameAccount(accountKey: String, firstName: String, lastName: String) async throws -> Set<String>? {
        try await withTransaction { db in
            guard
                try await !db.raw(
                    """
                    UPDATE accounts SET first_name = \(bind: firstName), last_name = \(bind: lastName)
                    WHERE key = \(bind: accountKey) RETURNING key
                    """
                ).all().isEmpty
            else { return nil }
            // Hidden and waiting posts too: whoever sees them later sees the new name.
            let renamed = try await db.raw(
                """
                UPDATE student_locations SET first_name = \(bind: firstName), last_name = \(bind: lastName)
                WHERE owner_key = \(bind: accountKey) RETURNING *
                """
            ).all()
            var classes: Set<String> = []
            for row in renamed {
                let classId = try row.decode(column: "class_id", as: String.self)
                try await Self.writeSearchTerms(of: try Self.location(from: row), classId: classId, on: db)
                classes.insert(classId)
            }
            return classes
        }
    }

    public func markEmailVerified(accountKey: String) async throws {
        try await withDatabase { db in
            try await db.raw("UPDATE accounts SET email_verified = 1 WHERE key = \(bind: accountKey)").run()
        }
    }

    public func claimAccount(_ claim: AccountClaim, now: Date) async throws -> Bool {
        let key = claim.accountKey
        let link = claim.link
        return try await withTransaction { db in
            // The condition makes the claim happen once: a second provider sign-in racing this
            // one finds the email proven and signs in as usual.
            guard
                try await !db.raw(
                    """
                    UPDATE accounts SET password_hash = '', email_verified = 1,
                        first_name = COALESCE(\(bind: claim.firstName), first_name), last_name = COALESCE(\(bind: claim.lastName), last_name)
                    WHERE key = \(bind: key) AND email_verified = 0 RETURNING key
                    """
                ).all().isEmpty
            else { return false }
            try await db.raw("DELETE FROM session_sign_ins WHERE session_id IN (SELECT id FROM sessions WHERE account_key = \(bind: key))")
                .run()
            try await db.raw("DELETE FROM sessions WHERE account_key = \(bind: key)").run()
            try await db.raw("DELETE FROM login_devices WHERE account_key = \(bind: key)").run()
            try await db.raw("DELETE FROM sign_in_handoffs WHERE account_key = \(bind: key)").run()
            try await db.raw("DELETE FROM pending_sign_ins WHERE link_account_key = \(bind: key)").run()
            try await Self.spendPasswordResets(accountKey: key, now: now, on: db)
            // Whoever made the account may have linked another provider of theirs to it.
            try await db.raw(
                """
                DELETE FROM identity_links WHERE account_key = \(bind: key)
                  AND NOT (provider = \(bind: link.provider) AND subject = \(bind: link.subject))
                """
            ).run()
            try await db.raw(
                """
                UPDATE identity_links SET origin = \(bind: IdentityLink.Origin.verifiedEmail.rawValue)
                WHERE provider = \(bind: link.provider) AND subject = \(bind: link.subject) AND account_key = \(bind: key)
                """
            ).run()
            // The vouching identity is linked now, unless it already was (a link made the old way).
            _ = try await Self.insertLink(
                IdentityLink(
                    provider: link.provider, subject: link.subject, accountKey: key, email: link.email,
                    createdAt: link.createdAt, origin: .verifiedEmail), on: db)
            return true
        }
    }

    /// Marks every open reset link of the account used.
    static func spendPasswordResets(accountKey: String, now: Date, on db: any SQLDatabase) async throws {
        try await db.raw(
            """
            UPDATE password_resets SET used_at = \(bind: ParseDate.string(from: now))
            WHERE account_key = \(bind: accountKey) AND used_at IS NULL
            """
        ).run()
    }

    static func account(from row: any SQLRow) throws -> Account {
        Account(
            key: try row.decode(column: "key", as: String.self),
            email: try row.decode(column: "email", as: String.self),
            passwordHash: try row.decode(column: "password_hash", as: String.self),
            firstName: try row.decode(column: "first_name", as: String.self),
            lastName: try row.decode(column: "last_name", as: String.self),
            createdAt: ParseDate.date(from: try row.decode(column: "created_at", as: String.self)) ?? .distantPast,
            isAdmin: try row.decode(column: "is_admin", as: Int.self) != 0,
            disabledAt: try row.decode(column: "disabled_at", as: String?.self).flatMap(ParseDate.date(from:)),
            emailVerified: try row.decode(column: "email_verified", as: Int.self) != 0
        )
    }
}
