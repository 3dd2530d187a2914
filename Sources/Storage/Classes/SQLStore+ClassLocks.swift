import SQLKit

extension SQLStore {
    /// Serializes the changes to one class's roster. Called first in a transaction that reads
    /// the roster and then changes it (the class keeps a teacher), it waits until no other
    /// such transaction on the same class is open, so the reading sees the other's change.
    ///
    /// On PostgreSQL: an advisory lock held until the transaction ends, named by the schema
    /// and the class (two classes whose names hash alike only take turns); under READ
    /// COMMITTED each later statement then reads what the previous holder committed. An
    /// advisory lock rather than the class's row, so it never waits for, or holds up,
    /// whatever else locks that row (a class's deletion). On SQLite it does nothing: a write
    /// transaction (`BEGIN IMMEDIATE`) already runs alone.
    static func lockClassRoster(classId: String, on db: any SQLDatabase) async throws {
        guard db.dialect.name == "postgresql" else { return }
        try await db.raw(
            """
            SELECT pg_advisory_xact_lock(\(literal: classRosterLockSpace), hashtext(current_schema() || '/' || \(bind: classId)))
            """
        ).run()
    }

    /// The first key of every class-roster lock ("otcr"), apart from the other advisory
    /// locks' (the migrations' lock, the change log's).
    static let classRosterLockSpace = 0x6F74_6372
}
