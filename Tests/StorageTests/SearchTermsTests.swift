import Foundation
import Geocoding
import OnTheMapModels
import SQLKit
import Testing

@testable import Storage

/// Search that folds, on both databases: the words each post is found by are written with it,
/// follow its changes, go with it, and are written for posts from before they existed.
@Suite("Search terms")
struct SearchTermsTests {
    static func post(_ id: String, _ first: String, _ last: String, _ place: String, updated: String = "2024-01-01T00:00:00.000Z")
        -> StoredLocation
    {
        var stored = record(id, first: first, updated: updated, mapString: place)
        stored.record.lastName = last
        return stored
    }

    static func find(_ store: SQLStore, _ alternatives: [String]..., classId: String = "default") async throws -> [String] {
        try await store.searchLocations(
            LocationSearch(alternatives: alternatives.map { $0.flatMap(SearchTerms.words) }, limit: 50, skip: 0), in: classId,
            author: nil
        ).map(\.objectId).sorted()
    }

    @Test("case, accents, width and special letters fold; each word typed starts a word of the post", arguments: Backend.available)
    func folding(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.insertLocation(Self.post("a", "Jonas", "Müller", "São Paulo, Brazil"))
            try await store.insertLocation(Self.post("b", "Lena", "Straße", "ＴＯＫＹＯ"))
            try await store.insertLocation(Self.post("c", "Ana", "Muñoz", "臺北"))
            #expect(try await Self.find(store, ["muller"]) == ["a"])
            #expect(try await Self.find(store, ["MÜLL"]) == ["a"])
            #expect(try await Self.find(store, ["sao paulo"]) == ["a"])
            #expect(try await Self.find(store, ["São"]) == ["a"])
            #expect(try await Self.find(store, ["strasse"]) == ["b"])
            #expect(try await Self.find(store, ["tokyo"]) == ["b"])
            #expect(try await Self.find(store, ["munoz"]) == ["c"])
            #expect(try await Self.find(store, ["台北"]) == ["c"])
            // Every word must match: a second word narrows.
            #expect(try await Self.find(store, ["jonas paulo"]) == ["a"])
            #expect(try await Self.find(store, ["jonas tokyo"]) == [])
            // Words start words: "ller" is inside one, not at its start.
            #expect(try await Self.find(store, ["ller"]) == [])
            // Alternatives widen: any one matching is enough.
            #expect(try await Self.find(store, ["nobody"], ["tokyo"]) == ["b"])
            // Another class's posts are not found.
            #expect(try await Self.find(store, ["muller"], classId: "other") == [])
        }
    }

    @Test("the words follow an edit and a move, and go with the post", arguments: Backend.available)
    func followsWrites(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.insertLocation(Self.post("a", "Jonas", "Weber", "Berlin, Germany"))
            _ = try await store.updateLocation(
                objectId: "a", in: "default", patch: LocationPatch(lastName: "Wéber-Schmidt", mapString: "Lisboa, Portugal"),
                updatedAt: Date())
            #expect(try await Self.find(store, ["berlin"]) == [])
            #expect(try await Self.find(store, ["lisboa"]) == ["a"])
            #expect(try await Self.find(store, ["schmidt"]) == ["a"])
            #expect(try await store.deleteLocation(objectId: "a", in: "default"))
            #expect(try await Self.find(store, ["lisboa"]) == [])
            let left = try await store.withDatabase { db in
                try await db.raw("SELECT COUNT(*) AS n FROM location_search_terms").first()?.decode(column: "n", as: Int.self)
            }
            #expect(left == 0)
        }
    }

    /// A post written straight into the table, as SQL from before migration 20 or a tool
    /// would: no search words.
    static func insertWithoutWords(_ store: SQLStore, _ id: String, _ first: String, _ last: String, _ place: String) async throws {
        try await store.withDatabase { db in
            try await db.raw(
                """
                INSERT INTO student_locations (object_id, owner_key, unique_key, first_name, last_name, map_string, media_url,
                                               latitude, longitude, created_at, updated_at, class_id, waiting)
                VALUES (\(bind: id), NULL, 'k', \(bind: first), \(bind: last), \(bind: place), '', 10.0, 20.0,
                        '2023-01-01T00:00:00.000Z', '2023-01-01T00:00:00.000Z', 'default', 0)
                """
            ).run()
        }
    }

    @Test("posts written before the search words existed get theirs when the store opens", arguments: Backend.available)
    func filledOnUpgrade(backend: Backend) async throws {
        try await backend.withStore(migratingThrough: 19) { store in
            try await Self.insertWithoutWords(store, "old", "Zoë", "Ōta", "Ōsaka, Japan")
            try await store.migrate()
            #expect(try await Self.find(store, ["zoe osaka"]) == ["old"])
            // Filling again finds nothing left to fill.
            #expect(try await store.fillMissingSearchTerms() == 0)
        }
    }

    @Test("an opening looks for posts without words only while the store owes it, and then owes nothing", arguments: Backend.available)
    func fillOnlyWhenOwed(backend: Backend) async throws {
        try await backend.withStore { store in
            func owed() async throws -> Bool {
                try await store.withDatabase { db in
                    try await db.raw("SELECT task FROM store_upkeep WHERE task = 'search_terms'").first() != nil
                }
            }
            // The store's first opening paid what migration 23 said it owed.
            #expect(try await owed() == false)
            // A post written past the server, without its words or the upkeep row: an opening
            // does not look for it (looking is what costs seconds at a million).
            try await Self.insertWithoutWords(store, "past", "Ingrid", "Østby", "Tromsø, Norway")
            try await store.migrate()
            #expect(try await Self.find(store, ["tromso"]) == [])
            // With the row a tool that writes past the server leaves, the next opening writes them.
            try await store.withDatabase { db in try await db.raw("INSERT INTO store_upkeep (task) VALUES ('search_terms')").run() }
            try await store.migrate()
            #expect(try await Self.find(store, ["ostby tromso"]) == ["past"])
            #expect(try await owed() == false)
        }
    }

    @Test("filling goes page after page to the last post, a post with no words included", arguments: Backend.available)
    func fillsEveryPage(backend: Backend) async throws {
        try await backend.withStore(migratingThrough: 19) { store in
            try await store.withDatabase { db in
                // 1,201 posts (three pages of 500), one of them with no words at all.
                for chunk in stride(from: 0, to: 1_200, by: 100) {
                    let values: [SQLQueryString] = (chunk..<chunk + 100).map { number in
                        let id = String(format: "p%05d", number)
                        return
                            "(\(bind: id), NULL, 'k', \(bind: "Name\(number)"), 'Last', 'Town', '', 1.0, 2.0, '2023-01-01T00:00:00.000Z', '2023-01-01T00:00:00.000Z', 'default', 0)"
                    }
                    try await db.raw(
                        "INSERT INTO student_locations (object_id, owner_key, unique_key, first_name, last_name, map_string, media_url, latitude, longitude, created_at, updated_at, class_id, waiting) VALUES "
                            + values.joined(separator: ", ")
                    ).run()
                }
                try await db.raw(
                    """
                    INSERT INTO student_locations (object_id, owner_key, unique_key, first_name, last_name, map_string, media_url,
                                                   latitude, longitude, created_at, updated_at, class_id, waiting)
                    VALUES ('p00600x', NULL, 'k', '', '', '—', '', 1.0, 2.0, '2023-01-01T00:00:00.000Z', '2023-01-01T00:00:00.000Z', 'default', 0)
                    """
                ).run()
            }
            try await store.migrate()
            #expect(try await Self.find(store, ["name1199"]) == ["p01199"])
            #expect(try await Self.find(store, ["name0"]) == ["p00000"])
            // Every post has its terms now (one with no words its empty marker): nothing is left.
            #expect(try await store.fillMissingSearchTerms() == 0)
        }
    }

    @Test("a post that is hidden or waits for approval is not found by others", arguments: Backend.available)
    func onlyVisiblePosts(backend: Backend) async throws {
        try await backend.withStore { store in
            try await ClassStoreTests.account("1000000009", on: store)
            var waiting = Self.post("w", "Wanda", "Wait", "Paris")
            waiting.ownerKey = "1000000009"
            waiting.waiting = true
            try await store.insertLocation(waiting)
            #expect(try await Self.find(store, ["wanda"]) == [])
            let own = try await store.searchLocations(
                LocationSearch(alternatives: [["wanda"]], limit: 10, skip: 0), in: "default", author: "1000000009")
            #expect(own.map(\.objectId) == ["w"])
        }
    }
}
