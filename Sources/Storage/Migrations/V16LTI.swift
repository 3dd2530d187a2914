extension Migration {
    // LTI 1.3: the learning platforms registered with this tool (and their deployments),
    // the tool's own signing keys (a retired key is still published until it is deleted),
    // logins under way (a state and nonce bound to a browser, minutes long), which class
    // each course opens (one per platform, deployment and context, plus classes made for
    // the course by deep linking), the course roster as the platform last gave it, and
    // one-time tickets (a window's hand-off, a deep-linking choice, a registration invite).
    static let v16 = Migration(
        version: 16,
        shared: [
            """
            CREATE TABLE lti_platforms (
                id TEXT PRIMARY KEY,
                issuer TEXT NOT NULL,
                client_id TEXT NOT NULL,
                name TEXT NOT NULL,
                auth_url TEXT NOT NULL,
                token_url TEXT NOT NULL,
                jwks_url TEXT NOT NULL,
                token_audience TEXT,
                frame_origins TEXT NOT NULL DEFAULT '',
                trust_email INTEGER NOT NULL DEFAULT 0,
                created_at TEXT NOT NULL,
                UNIQUE (issuer, client_id)
            )
            """,
            """
            CREATE TABLE lti_deployments (
                platform_id TEXT NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,
                deployment_id TEXT NOT NULL,
                PRIMARY KEY (platform_id, deployment_id)
            )
            """,
            """
            CREATE TABLE lti_keys (
                kid TEXT PRIMARY KEY,
                private_key TEXT NOT NULL,
                created_at TEXT NOT NULL,
                retired_at TEXT
            )
            """,
            """
            CREATE TABLE lti_logins (
                state_digest TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL,
                nonce TEXT NOT NULL,
                browser_digest TEXT NOT NULL,
                target_link_uri TEXT NOT NULL,
                expires_at TEXT NOT NULL
            )
            """,
            """
            CREATE TABLE lti_courses (
                platform_id TEXT NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,
                deployment_id TEXT NOT NULL,
                context_id TEXT NOT NULL,
                class_id TEXT NOT NULL REFERENCES classes(id) ON DELETE CASCADE,
                course_class INTEGER NOT NULL,
                memberships_url TEXT,
                synced_at TEXT,
                PRIMARY KEY (platform_id, deployment_id, context_id, class_id)
            )
            """,
            "CREATE UNIQUE INDEX lti_courses_course_class ON lti_courses (platform_id, deployment_id, context_id) WHERE course_class = 1",
            "CREATE INDEX lti_courses_class ON lti_courses (class_id)",
            """
            CREATE TABLE lti_roster (
                class_id TEXT NOT NULL REFERENCES classes(id) ON DELETE CASCADE,
                platform_id TEXT NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,
                subject TEXT NOT NULL,
                name TEXT NOT NULL,
                roles TEXT NOT NULL,
                in_course INTEGER NOT NULL,
                account_key TEXT,
                PRIMARY KEY (class_id, platform_id, subject)
            )
            """,
            "CREATE INDEX lti_roster_account ON lti_roster (account_key)",
            """
            CREATE TABLE lti_tickets (
                digest TEXT PRIMARY KEY,
                kind TEXT NOT NULL,
                account_key TEXT,
                payload TEXT NOT NULL,
                expires_at TEXT NOT NULL
            )
            """,
        ]
    )
}
