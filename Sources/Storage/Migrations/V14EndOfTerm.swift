extension Migration {
    // End of term: an archived class's map is read-only, its posts kept.
    static let v14 = Migration(
        version: 14,
        shared: [
            "ALTER TABLE classes ADD COLUMN archived_at TEXT"
        ]
    )
}
