extension Migration {
    // Search that folds: the words each post is found by (its author's names and its place,
    // case, accents, width and traditional Chinese folded, as the geocoder folds names), one
    // row per word, so a search reads an index of its class's words instead of every post.
    // Written with each post by the server (SQL cannot fold); a server starting on a
    // database with posts that have none writes theirs (`fillMissingSearchTerms`).
    static let v20 = Migration(
        version: 20,
        shared: [
            """
            CREATE TABLE location_search_terms (
                class_id TEXT NOT NULL,
                term TEXT NOT NULL,
                object_id TEXT NOT NULL REFERENCES student_locations(object_id) ON DELETE CASCADE,
                PRIMARY KEY (class_id, term, object_id)
            )
            """,
            "CREATE INDEX location_search_terms_object ON location_search_terms (object_id)",
        ]
    )
}
