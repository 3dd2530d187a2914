import Foundation
import OnTheMapModels
import TestDatabases
import Testing

@testable import Storage

/// Classes in the store, on every backend: the migration that made them, rosters and their
/// one rule (a class keeps a teacher), and isolation: a location of one class does not exist
/// for another.
@Suite("Classes in the store")
struct ClassStoreTests {
    static func account(_ key: String, on store: SQLStore) async throws {
        try await store.createAccount(
            Account(
                key: key, email: "\(key)@example.com", passwordHash: "h", firstName: "F\(key)",
                lastName: "L\(key)", createdAt: Date()))
    }

    static func makeClass(_ slug: String, on store: SQLStore, teacher: String? = nil) async throws -> MapClass {
        let made = MapClass(id: "id-\(slug)", slug: slug, name: slug.uppercased(), inviteCode: "code-\(slug)", createdAt: Date())
        try await store.createClass(made, teacherKey: teacher, now: Date())
        return made
    }

    @Test(
        "migration 11 moves an existing map into the public default class; a new database's default class is members-only",
        arguments: Backend.available)
    func migration(backend: Backend) async throws {
        // A database as version 10 left it, with an account and a location.
        try await backend.withStore(migratingThrough: 10) { old in
            try await Self.account("1000000001", on: old)
            try await old.withDatabase { db in
                try await db.raw(
                    """
                    INSERT INTO student_locations (object_id, owner_key, unique_key, first_name, last_name, map_string, media_url,
                                                   latitude, longitude, created_at, updated_at)
                    VALUES ('before0001', '1000000001', '1000000001', 'Ada', 'L', 'Paris', 'https://a.b', 48.85, 2.35,
                            '2024-01-01T00:00:00.000Z', '2024-01-02T00:00:00.000Z')
                    """
                ).run()
            }
            #expect(try await old.latestLocationVersion() >= 1)
            try await old.migrate()
            let main = try #require(try await old.mapClass(slug: "main"))
            #expect(main.id == MapClass.migratedDefaultID)
            #expect(main.visibility == .public, "a community that existed keeps its public map until the host says otherwise")
            #expect(main.joinRule == .open)
            #expect(try await old.locations(LocationQuery(), in: main.id).map(\.objectId) == ["before0001"])
            #expect(try await old.latestLocationVersionsByClass()[main.id] != nil, "the changes logged before name the default class")
            // Writes after the migration name their class in the change log.
            try await old.insertLocation(record("after00001"))
            let changes = try await old.locationChanges(after: 0, limit: 100)
            #expect(changes.last?.objectId == "after00001")
            #expect(changes.last?.classId == main.id)
        }

        try await backend.withStore { fresh in
            let main = try #require(try await fresh.mapClass(slug: "main"))
            #expect(main.visibility == .members)
            #expect(main.joinRule == .open)
        }
    }

    @Test("a session token's digest is its SHA-256 in lower-case hex")
    func tokenDigest() {
        #expect(SessionToken.digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SessionToken.digest("").count == 64)
    }

    @Test(
        "a location of one class is not found, listed, counted, changed, moderated or reported from another",
        arguments: Backend.available)
    func isolation(backend: Backend) async throws {
        try await backend.withStore { store in
            try await Self.account("1000000001", on: store)
            let a = try await Self.makeClass("cohort-a", on: store)
            let b = try await Self.makeClass("cohort-b", on: store)
            var mine = record("inclassa01", key: "1000000001")
            mine.classId = a.id
            mine.ownerKey = "1000000001"
            try await store.insertLocation(mine)

            #expect(try await store.locations(LocationQuery(), in: a.id).map(\.objectId) == ["inclassa01"])
            #expect(try await store.locations(LocationQuery(), in: b.id).isEmpty)
            #expect(try await store.locations(LocationQuery(filter: .compare(.uniqueKey, .equal, .text("1000000001"))), in: b.id).isEmpty)
            #expect(try await store.countLocations(.always, in: b.id) == 0)
            #expect(try await store.location(objectId: "inclassa01", in: b.id) == nil)
            #expect(
                try await store.updateLocation(objectId: "inclassa01", in: b.id, patch: LocationPatch(mapString: "X"), updatedAt: Date())
                    == nil)
            #expect(try await store.deleteLocation(objectId: "inclassa01", in: b.id) == false)
            #expect(try await store.setHidden(objectId: "inclassa01", in: b.id, true, reason: "r", moderatorKey: nil, now: Date()) == false)
            #expect(try await store.moderatorDelete(objectId: "inclassa01", in: b.id, reason: "r", moderatorKey: nil, now: Date()) == false)
            #expect(try await store.moderatedLocation(objectId: "inclassa01", in: b.id) == nil)
            #expect(try await store.moderationList(.newest, in: b.id, limit: 10).isEmpty)
            #expect(
                try await store.report(objectId: "inclassa01", in: b.id, reporterKey: "1000000001", reason: "r", now: Date()) == .notFound)
            #expect(try await store.locationsByObjectId(after: "", in: b.id, limit: 10).isEmpty)
            // Still whole in its own class.
            #expect(try await store.location(objectId: "inclassa01", in: a.id)?.record.mapString == "Somewhere")
            #expect(try await store.countLocations(.always, in: a.id) == 1)
        }
    }

    @Test("rosters: roles, joins that keep a higher role, and a class that always keeps a teacher", arguments: Backend.available)
    func rosters(backend: Backend) async throws {
        try await backend.withStore { store in
            for key in ["1000000001", "1000000002", "1000000003"] { try await Self.account(key, on: store) }
            let made = try await Self.makeClass("cohort-a", on: store, teacher: "1000000001")
            await #expect(throws: StorageError.slugTaken) { _ = try await Self.makeClass("cohort-a", on: store) }
            #expect(try await store.role(classId: made.id, accountKey: "1000000001") == .teacher)

            try await store.join(classId: made.id, accountKey: "1000000002", now: Date())
            #expect(try await store.role(classId: made.id, accountKey: "1000000002") == .student)
            // A teacher joining again stays a teacher.
            try await store.join(classId: made.id, accountKey: "1000000001", now: Date())
            #expect(try await store.role(classId: made.id, accountKey: "1000000001") == .teacher)

            // The only teacher can be neither demoted nor removed; nothing changes.
            #expect(try await store.setMember(classId: made.id, accountKey: "1000000001", role: .student, now: Date()) == .lastTeacher)
            #expect(try await store.removeMember(classId: made.id, accountKey: "1000000001") == .lastTeacher)
            #expect(try await store.role(classId: made.id, accountKey: "1000000001") == .teacher)
            // With a second teacher, the first may step down.
            #expect(try await store.setMember(classId: made.id, accountKey: "1000000003", role: .teacher, now: Date()) == .done)
            #expect(try await store.setMember(classId: made.id, accountKey: "1000000001", role: .moderator, now: Date()) == .done)
            #expect(try await store.members(classId: made.id).map(\.role) == [.teacher, .moderator, .student])
            #expect(try await store.setMember(classId: made.id, accountKey: "9999999999", role: .student, now: Date()) == .notFound)
            #expect(try await store.classes(ofAccount: "1000000002").map(\.mapClass.slug) == ["cohort-a"])

            // Leaving takes the member's locations in this class, and only there.
            var there = record("leaving001", key: "1000000002")
            there.ownerKey = "1000000002"
            there.classId = made.id
            try await store.insertLocation(there)
            var elsewhere = record("staying01", key: "1000000002")
            elsewhere.ownerKey = "1000000002"
            try await store.insertLocation(elsewhere)
            #expect(try await store.removeMember(classId: made.id, accountKey: "1000000002") == .done)
            #expect(try await store.role(classId: made.id, accountKey: "1000000002") == nil)
            #expect(try await store.location(objectId: "leaving001", in: made.id) == nil)
            #expect(try await store.location(objectId: "staying01", in: MapClass.migratedDefaultID) != nil)

            let summaries = try await store.classSummaries()
            #expect(summaries.map(\.mapClass.slug) == ["cohort-a", "main"])
            #expect(summaries.first?.memberCount == 2)
        }
    }
}
