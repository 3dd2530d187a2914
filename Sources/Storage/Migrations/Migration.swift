/// One schema version: the statements both databases run, then the dialect's own, in order.
/// Each version lives in a file of its own in this folder (`V<version><what>.swift`), so what
/// a version does on SQLite and on PostgreSQL is read in one place.
struct Migration: Sendable {
    let version: Int
    /// Run first, on both databases.
    var shared: [String] = []
    /// Then, on SQLite only.
    var sqlite: [String] = []
    /// Or on PostgreSQL only.
    var postgres: [String] = []

    func statements(postgres: Bool) -> [String] {
        shared + (postgres ? self.postgres : sqlite)
    }
}
