extension Migration {
    // The language an account chose for the web app (a tag such as "de"; NULL: the
    // browser's), so it follows the student to every device.
    static let v17 = Migration(
        version: 17,
        shared: [
            "ALTER TABLE accounts ADD COLUMN language TEXT"
        ]
    )
}
