import Foundation
import OnTheMapModels
import Synchronization
import TestDatabases
import Testing

@testable import Storage

/// A class keeps a teacher when its roster changes at the same moment on two connections:
/// the changes to one class's roster take turns (`SQLStore.lockClassRoster`).
@Suite("Class roster changes take turns")
struct ClassRosterLockTests {
    @Test("two teachers demoting or removing each other at once leave the class one teacher", arguments: Backend.available)
    func teachersRacing(backend: Backend) async throws {
        try await backend.withStore { store in
            for key in ["1000000001", "1000000002"] { try await ClassStoreTests.account(key, on: store) }
            let made = try await ClassStoreTests.makeClass("cohort-a", on: store, teacher: "1000000001")
            for round in 0..<12 {
                #expect(try await store.setMember(classId: made.id, accountKey: "1000000001", role: .teacher, now: Date()) == .done)
                #expect(try await store.setMember(classId: made.id, accountKey: "1000000002", role: .teacher, now: Date()) == .done)
                // Each steps the other down at once: by demoting, or (every third round) by removing.
                async let first =
                    round % 3 == 2
                    ? store.removeMember(classId: made.id, accountKey: "1000000001")
                    : store.setMember(classId: made.id, accountKey: "1000000001", role: .student, now: Date())
                async let second = store.setMember(classId: made.id, accountKey: "1000000002", role: .moderator, now: Date())
                let outcomes = [try await first, try await second]
                #expect(outcomes.filter { $0 == .lastTeacher }.count == 1, "round \(round): \(outcomes)")
                let teachers = try await store.members(classId: made.id).filter { $0.role == .teacher }
                #expect(teachers.count == 1, "round \(round): the class is left with \(teachers.count) teachers")
            }
        }
    }

    /// Runs `whileHeld` while another transaction holds class `id-a`'s roster lock, which it
    /// keeps until `whileHeld` has returned.
    static func whileHoldingRosterLock<T: Sendable>(_ store: SQLStore, _ whileHeld: @Sendable () async throws -> T) async throws -> T {
        let (held, holding) = AsyncStream.makeStream(of: Void.self)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        async let holder: Void = store.withTransaction { db in
            try await SQLStore.lockClassRoster(classId: "id-a", on: db)
            holding.yield()
            for await _ in released { break }
        }
        for await _ in held { break }
        let result: T
        do {
            result = try await whileHeld()
        } catch {
            release.yield()
            try await holder
            throw error
        }
        release.yield()
        try await holder
        return result
    }

    @Test(
        "a second roster change of the same class waits for the first transaction to end", .timeLimit(.minutes(3)),
        arguments: Backend.available)
    func sameClassWaits(backend: Backend) async throws {
        try await backend.withStore { store in
            let acquired = Moment()
            let second = try await Self.whileHoldingRosterLock(store) {
                let second = Task {
                    try await store.withTransaction { db in
                        try await SQLStore.lockClassRoster(classId: "id-a", on: db)
                        acquired.mark()
                    }
                }
                // Time for a lock that does not wait to be taken; one that waits is taken only
                // once the holder ends, whatever the time.
                try await Task.sleep(for: .milliseconds(400))
                #expect(acquired.value == nil, "the second lock was taken while the first transaction was open")
                return second
            }
            try await second.value
            #expect(acquired.value != nil)
        }
    }

    @Test(
        "roster changes of different classes do not wait for each other", .timeLimit(.minutes(3)),
        arguments: Backend.available.filter { $0 == .postgres })
    func otherClassDoesNotWait(backend: Backend) async throws {
        // (On SQLite every write transaction waits for the one open: nothing to show there.)
        try await backend.withStore { store in
            // Another class's lock is taken while `id-a`'s is held; waiting would never end.
            let other = try await Self.whileHoldingRosterLock(store) {
                try await store.withTransaction { db in
                    try await SQLStore.lockClassRoster(classId: "id-b", on: db)
                    return "id-b"
                }
            }
            #expect(other == "id-b")
        }
    }
}

/// When something happened, for the closures of another task to note.
private final class Moment: Sendable {
    private let stamp = Mutex<Date?>(nil)
    var value: Date? { stamp.withLock { $0 } }
    func mark() { stamp.withLock { $0 = Date() } }
}
