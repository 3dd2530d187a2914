extension Migration {
    // Security: sessions are now stored as token digests, so the plain ids stored until
    // now are dropped (everyone logs in once more); a location's uniqueKey is its
    // owner's key, so records that claimed another account's key are repaired.
    static let v04 = Migration(
        version: 4,
        shared: [
            "DELETE FROM sessions",
            "UPDATE student_locations SET unique_key = owner_key WHERE owner_key IS NOT NULL AND unique_key <> owner_key",
            "CREATE INDEX IF NOT EXISTS sessions_account_key ON sessions (account_key)",
        ]
    )
}
