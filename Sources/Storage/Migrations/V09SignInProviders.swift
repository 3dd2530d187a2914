extension Migration {
    // Sign-in with other accounts (OpenID Connect providers, Facebook): which provider
    // identity belongs to which account; sign-ins under way (state, nonce and PKCE
    // verifier, single-use, kept here so any server can finish what another started);
    // and, per session, the provider it came from and what logging out there needs.
    static let v09 = Migration(
        version: 9,
        shared: [
            """
            CREATE TABLE identity_links (
                id TEXT PRIMARY KEY,
                provider TEXT NOT NULL,
                subject TEXT NOT NULL,
                account_key TEXT NOT NULL REFERENCES accounts(key) ON DELETE CASCADE,
                email TEXT NOT NULL,
                created_at TEXT NOT NULL,
                UNIQUE (provider, subject),
                UNIQUE (provider, account_key)
            )
            """,
            "CREATE INDEX identity_links_account ON identity_links (account_key)",
            """
            CREATE TABLE pending_sign_ins (
                state_digest TEXT PRIMARY KEY,
                provider TEXT NOT NULL,
                nonce TEXT NOT NULL,
                code_verifier TEXT NOT NULL,
                return_path TEXT NOT NULL,
                browser_digest TEXT NOT NULL,
                link_account_key TEXT,
                client_redirect TEXT,
                client_challenge TEXT,
                created_at TEXT NOT NULL,
                expires_at TEXT NOT NULL
            )
            """,
            "CREATE INDEX pending_sign_ins_expires ON pending_sign_ins (expires_at)",
            // A native app's sign-in (RFC 8252): the browser brings a one-time code to the
            // app's loopback address; the app trades it, with its PKCE verifier, for a session.
            """
            CREATE TABLE sign_in_handoffs (
                code_digest TEXT PRIMARY KEY,
                account_key TEXT NOT NULL REFERENCES accounts(key) ON DELETE CASCADE,
                provider TEXT NOT NULL,
                challenge TEXT NOT NULL,
                expires_at TEXT NOT NULL
            )
            """,
            """
            CREATE TABLE session_sign_ins (
                session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
                provider TEXT NOT NULL,
                id_token TEXT,
                access_token TEXT
            )
            """,
        ]
    )
}
