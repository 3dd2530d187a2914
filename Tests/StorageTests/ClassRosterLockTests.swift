import Foundation
import OnTheMapModels
@testable import Storage
import Synchronization
import Testing
import TestDatabases

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
                async let first = round % 3 == 2
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

    @Test("a second roster change of the same class waits for the first transaction to end", arguments: Backend.available)
    func sameClassWaits(backend: Backend) async throws {
        try await backend.withStore { store in
            let (held, holding) = AsyncStream.makeStream(of: Void.self)
            let released = Moment()
            async let first: Void = store.withTransaction { db in
                try await SQLStore.lockClassRoster(classId: "id-a", on: db)
                holding.yield()
                try await Task.sleep(for: .milliseconds(400))
                released.mark()
            }
            for await _ in held { break }
            let acquired = try await store.withTransaction { db in
                try await SQLStore.lockClassRoster(classId: "id-a", on: db)
                return Date()
            }
            try await first
            let end = try #require(released.value)
            #expect(acquired >= end, "the second lock was taken while the first transaction was open")
        }
    }

    @Test("roster changes of different classes do not wait for each other",
          arguments: Backend.available.filter { $0 == .postgres })
    func otherClassDoesNotWait(backend: Backend) async throws {
        // (On SQLite every write transaction waits for the one open: nothing to show there.)
        try await backend.withStore { store in
            let (held, holding) = AsyncStream.makeStream(of: Void.self)
            let released = Moment()
            async let first: Void = store.withTransaction { db in
                try await SQLStore.lockClassRoster(classId: "id-a", on: db)
                holding.yield()
                try await Task.sleep(for: .seconds(2))
                released.mark()
            }
            for await _ in held { break }
            let acquired = try await store.withTransaction { db in
                try await SQLStore.lockClassRoster(classId: "id-b", on: db)
                return Date()
            }
            #expect(released.value == nil, "another class's lock waited for the first transaction")
            try await first
            #expect(acquired < (released.value ?? .distantPast))
        }
    }
}

/// When something happened, for the closures of another task to note.
private final class Moment: Sendable {
    private let stamp = Mutex<Date?>(nil)
    var value: Date? { stamp.withLock { $0 } }
    func mark() { stamp.withLock { $0 = Date() } }
}
