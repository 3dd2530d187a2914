extension Migration {
    // Work a store's opening still owes, one row per kind of work, removed when it is done.
    // 'search_terms': posts may lack their search words (migration 20 added them to a database
    // that already had posts; a tool that writes posts past the server inserts this row too),
    // so the opening writes what is missing. Before this table every opening looked for such
    // posts, which costs seconds at a million; now only an opening that owes it does.
    static let v23 = Migration(
        version: 23,
        shared: [
            "CREATE TABLE store_upkeep (task TEXT PRIMARY KEY)",
            "INSERT INTO store_upkeep (task) VALUES ('search_terms')",
        ]
    )
}
