extension Migration {
    // Proven emails. A password sign-up proves nothing about its email, so a provider
    // vouching for that email later must not sign its person in to whoever typed it: the
    // account goes to that person instead (`claimAccount`). `email_verified` says a
    // provider vouched for the account's email; `origin` says how a link was made. Links
    // made before this version are `legacy` (see `IdentityLink.Origin`). An account a
    // provider created with its own email, still without a password, is proven.
    static let v10 = Migration(
        version: 10,
        shared: [
            "ALTER TABLE accounts ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE identity_links ADD COLUMN origin TEXT NOT NULL DEFAULT 'legacy'",
            """
            UPDATE accounts SET email_verified = 1 WHERE password_hash = ''
              AND EXISTS (SELECT 1 FROM identity_links WHERE identity_links.account_key = accounts.key AND identity_links.email = accounts.email)
            """,
        ]
    )
}
