import Foundation
import OnTheMapModels
import TestDatabases
import Testing

@testable import Storage

/// The live map's change log on every backend (migration 18): it keeps each record's newest
/// change only, so nothing replayed from it is older than the store; an edit of a post that
/// is not on the map logs nothing; and ended access (a membership, a session, a disabled
/// account, a class's visibility) is logged for every server's streams to close.
@Suite("The change log")
struct ChangeLogTests {
    static func log(_ store: SQLStore, after version: Int64 = 0) async throws -> [LocationChange] {
        try await store.locationChanges(after: version, limit: 1000)
    }

    @Test("a record's newest change replaces its earlier ones; a hidden or deleted record leaves no copy", arguments: Backend.available)
    func newestOnly(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.insertLocation(record("compact001", mapString: "Flat 4B, 5 Avenue Anatole France"))
            try await store.insertLocation(record("compact002", mapString: "Doxxed: 12 Via Roma"))
            try await store.insertLocation(record("compact003", mapString: "Deleted by its author"))
            _ = try await store.updateLocation(
                objectId: "compact001", in: MapClass.migratedDefaultID,
                patch: LocationPatch(mapString: "Paris, France"), updatedAt: Date())
            #expect(
                try await store.setHidden(
                    objectId: "compact002", in: MapClass.migratedDefaultID, true, reason: "doxxing",
                    moderatorKey: nil, now: Date()))
            #expect(try await store.deleteLocation(objectId: "compact003", in: MapClass.migratedDefaultID))

            let log = try await Self.log(store)
            #expect(
                log.map(\.objectId) == ["compact001", "compact002", "compact003"], "one entry per record, in the order of its newest change"
            )
            #expect(log.map(\.kind) == [.updated, .deleted, .deleted])
            #expect(log[0].record?.mapString == "Paris, France")
            #expect(log[1].record == nil && log[2].record == nil)
            #expect(try await store.latestLocationChanges(limit: 10).map(\.objectId) == ["compact001", "compact002", "compact003"])

            // Editing a post no one sees (here by hand) tells no one anything.
            let before = try await store.latestLocationVersion()
            try await store.withDatabase { db in
                try await db.raw("UPDATE student_locations SET map_string = 'Still hidden' WHERE object_id = 'compact002'").run()
            }
            #expect(try await Self.log(store, after: before).isEmpty)
            // Shown again: it comes back as it is now.
            #expect(
                try await store.setHidden(
                    objectId: "compact002", in: MapClass.migratedDefaultID, false, reason: "",
                    moderatorKey: nil, now: Date()))
            let shown = try await Self.log(store, after: before)
            #expect(shown.map(\.kind) == [.updated])
            #expect(shown.first?.record?.mapString == "Still hidden")
            #expect(try await Self.log(store).filter { $0.objectId == "compact002" }.count == 1)
        }
    }

    @Test("a waiting post's edits are logged for no one; its approval logs it once", arguments: Backend.available)
    func waitingEdits(backend: Backend) async throws {
        try await backend.withStore { store in
            var waiting = record("waiting001", mapString: "Waiting")
            waiting.waiting = true
            try await store.insertLocation(waiting)
            let before = try await store.latestLocationVersion()
            for place in ["Edited once", "Edited twice"] {
                _ = try await store.updateLocation(
                    objectId: "waiting001", in: MapClass.migratedDefaultID,
                    patch: LocationPatch(mapString: place), updatedAt: Date())
            }
            #expect(try await Self.log(store, after: before).isEmpty)
            #expect(try await store.approve(objectId: "waiting001", in: MapClass.migratedDefaultID, moderatorKey: nil, now: Date()))
            let approved = try await Self.log(store, after: before)
            #expect(approved.map(\.kind) == [.updated])
            #expect(approved.first?.record?.mapString == "Edited twice")
        }
    }

    @Test(
        "ended access is logged: a membership, a session (by its digest), a disabled account, a class's visibility",
        arguments: Backend.available)
    func endedAccess(backend: Backend) async throws {
        try await backend.withStore { store in
            for key in ["7000000001", "7000000002"] { try await ClassStoreTests.account(key, on: store) }
            let made = try await ClassStoreTests.makeClass("ended-1", on: store, teacher: "7000000001")
            try await store.join(classId: made.id, accountKey: "7000000002", now: Date())
            let now = Date()
            try await store.createSession(
                Session(
                    id: "token-of-7000000002", accountKey: "7000000002", createdAt: now,
                    expiresAt: now.addingTimeInterval(60)))
            var version = try await store.latestLocationVersion()
            func ended() async throws -> [String] {
                let entries = try await Self.log(store, after: version)
                version = try await store.latestLocationVersion()
                #expect(entries.allSatisfy { $0.kind == .ended && $0.record == nil })
                return entries.map { "\($0.classId)/\($0.objectId)" }
            }

            #expect(try await store.removeMember(classId: made.id, accountKey: "7000000002") == .done)
            #expect(try await ended() == ["\(made.id)/7000000002"])
            #expect(try await store.deleteSession(id: "token-of-7000000002"))
            #expect(try await ended() == ["/\(SessionToken.digest("token-of-7000000002"))"])
            #expect(try await store.setDisabled(accountKey: "7000000002", true, now: Date()) == .done(endedSessions: 0))
            #expect(try await ended() == ["/7000000002"])
            var changes = ClassChanges(now: Date())
            changes.name = "Renamed"
            _ = try await store.changeClass(id: made.id, changes)
            #expect(try await ended().isEmpty, "a new name ends no one's access")
            changes = ClassChanges(now: Date())
            changes.visibility = .public
            _ = try await store.changeClass(id: made.id, changes)
            #expect(try await ended() == ["\(made.id)/"])

            // Not part of the map: a server starting up does not replay them, nor count them as a class's change.
            #expect(try await store.latestLocationChanges(limit: 100).allSatisfy { $0.kind != .ended })
            #expect(try await store.latestLocationVersionsByClass()[made.id] == nil)
        }
    }

    @Test("a class's settings change one by one: a change leaves the others as the database has them", arguments: Backend.available)
    func changeOnlyWhatIsSent(backend: Backend) async throws {
        try await backend.withStore { store in
            let made = try await ClassStoreTests.makeClass("fields-1", on: store)
            // The host revokes the link and shows towns; a teacher's copy of the class is older.
            var host = ClassChanges(now: Date())
            host.inviteCode = .some(nil)
            host.precision = .city
            _ = try await store.changeClass(id: made.id, host)
            var teacher = ClassChanges(now: Date())
            teacher.name = "Biology"
            teacher.joinRule = .invite
            teacher.inviteCodeIfNone = "fresh-code"
            let changed = try #require(try await store.changeClass(id: made.id, teacher))
            #expect(changed.name == "Biology" && changed.precision == .city)
            #expect(changed.inviteCode == "fresh-code", "turning invitations on with no link makes one")
            var again = ClassChanges(now: Date())
            again.inviteCodeIfNone = "other-code"
            again.archived = true
            let archived = try #require(try await store.changeClass(id: made.id, again))
            #expect(archived.inviteCode == "fresh-code" && archived.archivedAt != nil)
            #expect(try await store.changeClass(id: "no-such-class", teacher) == nil)
        }
    }
}
