extension Migration {
    // Login throttling shared by every server: failure counters and locks per subject
    // (account, client address, device), and the devices each account has logged in from.
    static let v05 = Migration(
        version: 5,
        shared: [
            """
            CREATE TABLE login_failures (
                kind TEXT NOT NULL,
                subject TEXT NOT NULL,
                failures INTEGER NOT NULL,
                last_failure_at TEXT NOT NULL,
                locked_until TEXT,
                PRIMARY KEY (kind, subject)
            )
            """,
            """
            CREATE TABLE login_devices (
                digest TEXT PRIMARY KEY,
                account_key TEXT NOT NULL REFERENCES accounts(key) ON DELETE CASCADE,
                last_login_at TEXT NOT NULL
            )
            """,
        ]
    )
}
