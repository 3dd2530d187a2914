extension Migration {
    // A class's snapshot reads its visible posts in object-id order, a page at a time:
    // from this index, each page is a range instead of a sort of the rest of the class.
    static let v15 = Migration(
        version: 15,
        shared: [
            """
            CREATE INDEX student_locations_class_object ON student_locations (class_id, object_id)
            WHERE hidden_at IS NULL AND owner_disabled = 0 AND waiting = 0
            """
        ]
    )
}
