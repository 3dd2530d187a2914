extension Migration {
    // The outbox: every email waits here, written in the same transaction as what caused it
    // (a reset link, an invitation), until a server's mail worker hands it to the relay. A
    // worker leases what it sends (`lease_owner` until `lease_expires_at`), so several servers
    // never send one message at the same time; a sent or refused message keeps only its
    // envelope (the text, with its link, is emptied) until the sweep a week later.
    static let v21 = Migration(
        version: 21,
        shared: [
            """
            CREATE TABLE mail_outbox (
                id TEXT PRIMARY KEY,
                kind TEXT NOT NULL,
                recipient TEXT NOT NULL,
                sender TEXT NOT NULL,
                message_id TEXT NOT NULL,
                message TEXT NOT NULL,
                created_at TEXT NOT NULL,
                next_attempt_at TEXT NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                lease_owner TEXT,
                lease_expires_at TEXT,
                last_error TEXT,
                sent_at TEXT,
                failed_at TEXT
            )
            """,
            "CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL",
            "CREATE INDEX mail_outbox_recipient ON mail_outbox (recipient, created_at)",
        ]
    )
}
