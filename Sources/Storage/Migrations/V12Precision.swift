extension Migration {
    // Privacy: how precisely each class shows where its students are (`MapClass.Precision`).
    // Classes that exist keep exact points; the server makes new ones `city`.
    static let v12 = Migration(
        version: 12,
        shared: [
            "ALTER TABLE classes ADD COLUMN precision TEXT NOT NULL DEFAULT 'exact' CHECK (precision IN ('exact', 'city', 'region', 'country'))"
        ]
    )
}
