extension Migration {
    // Invitations: a teacher adding someone by email invites the address, whoever has it (or
    // nobody yet); the account with that address joins by itself. A teacher never learns
    // from the answer whether an address has an account here.
    static let v19 = Migration(
        version: 19,
        shared: [
            """
            CREATE TABLE class_invitations (
                class_id TEXT NOT NULL REFERENCES classes(id) ON DELETE CASCADE,
                email TEXT NOT NULL,
                role TEXT NOT NULL CHECK (role IN ('teacher', 'moderator', 'student')),
                invited_at TEXT NOT NULL,
                PRIMARY KEY (class_id, email)
            )
            """,
            "CREATE INDEX class_invitations_email ON class_invitations (email)",
        ]
    )
}
