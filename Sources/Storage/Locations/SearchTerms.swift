import Foundation
import Geocoding
import Logging
import OnTheMapModels
import SQLKit

/// The words a post is found by, folded as the geocoder folds place names: case, accents,
/// width, special letters ("Müller" and "muller", "São Paulo" and "sao paulo", "ＴＯＫＹＯ"
/// and "tokyo"), traditional Chinese to simplified. A search matches posts that have, for
/// each word typed, a word starting with it.
public enum SearchTerms {
    /// Longest search accepted, in characters.
    public static let maximumQueryLength = 200
    /// Most words a search may have.
    public static let maximumWords = 8

    /// The folded words of a post. Always holds "" as well, which no search matches: it marks
    /// the post as indexed.
    public static func of(firstName: String, lastName: String, mapString: String) -> [String] {
        var seen: Set<String> = [""]
        var out = [""]
        for word in Normalizer.key("\(firstName) \(lastName) \(mapString)").split(separator: " ") {
            let term = String(word.prefix(64))
            if seen.insert(term).inserted { out.append(term) }
        }
        return out
    }

    /// The folded words of what was typed ("" words dropped, at most `maximumWords`).
    public static func words(_ query: String) -> [String] {
        Array(Normalizer.key(query).split(separator: " ").prefix(maximumWords).map { String($0.prefix(64)) })
    }
}

/// A search of a class's map: posts matching any of `alternatives`, each a list of words that
/// must all start a word of the post (the words typed, and the same place's names in other
/// languages and scripts).
public struct LocationSearch: Sendable, Equatable {
    public var alternatives: [[String]]
    public var limit: Int
    public var skip: Int

    public init(alternatives: [[String]], limit: Int, skip: Int) {
        self.alternatives = alternatives.filter { !$0.isEmpty }
        self.limit = limit
        self.skip = skip
    }
}

extension SQLStore {
    /// Replaces the search words of one post (inside the transaction that wrote it).
    static func writeSearchTerms(of record: StudentInformation, classId: String, on db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM location_search_terms WHERE object_id = \(bind: record.objectId)").run()
        let terms = SearchTerms.of(firstName: record.firstName, lastName: record.lastName, mapString: record.mapString)
        let rows: [SQLQueryString] = terms.map { "(\(bind: classId), \(bind: $0), \(bind: record.objectId))" }
        try await db.raw(
            "INSERT INTO location_search_terms (class_id, term, object_id) VALUES " + rows.joined(separator: ", ")
                + " ON CONFLICT DO NOTHING"
        ).run()
    }

    /// At an opening: writes the search words of posts that have none when the store owes it
    /// (the `search_terms` row of `store_upkeep`, migration 23), then clears the debt. An
    /// opening that finds nothing owed reads one row: looking past a million posts that have
    /// their words took PostgreSQL 1.6-1.9 s, on every start of every server and command.
    /// Several servers opening together may each fill; what they write is the same.
    func fillSearchTermsIfOwed() async throws {
        let owed = try await withDatabase { db in
            try await db.raw("SELECT task FROM store_upkeep WHERE task = 'search_terms'").first() != nil
        }
        guard owed else { return }
        let filled = try await fillMissingSearchTerms()
        try await withDatabase { db in try await db.raw("DELETE FROM store_upkeep WHERE task = 'search_terms'").run() }
        if filled > 0 { logger.info("wrote the search words of \(filled) posts that had none") }
    }

    /// Writes the search words of posts that have none (posts written before migration 20,
    /// or past the server), a page at a time; returns how many.
    @discardableResult
    public func fillMissingSearchTerms() async throws -> Int {
        var filled = 0
        // Onwards from the last post seen: each page starts where the last ended instead of
        // walking again past every post filled so far (a million posts took over half an hour
        // on PostgreSQL that way).
        var last = ""
        while true {
            let after = last
            let page: [(record: StudentInformation, classId: String)] = try await withTransaction { db in
                // Part of opening the store, as the migrations are: no statement deadline. The
                // first page looks past every post that has its words (a million on a big
                // server; under the deadline PostgreSQL cancelled it and the server did not start).
                if db.dialect.name == "postgresql" { try await db.raw("SET LOCAL statement_timeout = 0").run() }
                return try await db.raw(
                    """
                    SELECT \(unsafeRaw: Self.locationColumns), class_id FROM student_locations s
                    WHERE s.object_id > \(bind: after)
                    AND NOT EXISTS (SELECT 1 FROM location_search_terms t WHERE t.object_id = s.object_id)
                    ORDER BY object_id LIMIT 500
                    """
                ).all().map { (try Self.location(from: $0), try $0.decode(column: "class_id", as: String.self)) }
            }
            guard let end = page.last?.record.objectId else { return filled }
            try await withTransaction { db in
                for post in page { try await Self.writeSearchTerms(of: post.record, classId: post.classId, on: db) }
            }
            filled += page.count
            last = end
        }
    }

    /// The posts of a class a search finds, newest first, as a list read sees them.
    public func searchLocations(_ search: LocationSearch, in classId: String, author: String?) async throws -> [StudentInformation] {
        guard !search.alternatives.isEmpty, search.limit > 0 else { return [] }
        // One IN per alternative, each an INTERSECT of its words' index ranges: the same
        // meaning in SQLite (compound operators left to right) and PostgreSQL.
        let matches: [SQLQueryString] = search.alternatives.map { words in
            let ranges: [SQLQueryString] = words.map { word in
                """
                SELECT object_id FROM location_search_terms
                WHERE class_id = \(bind: classId) AND term >= \(bind: word) AND term < \(bind: word + "\u{10FFFF}")
                """
            }
            return "object_id IN (" + ranges.joined(separator: " INTERSECT ") + ")"
        }
        let statement: SQLQueryString =
            "SELECT \(unsafeRaw: Self.locationColumns) FROM student_locations WHERE class_id = \(bind: classId) AND "
            + VisiblePost.readable(by: author) + " AND (" + matches.joined(separator: " OR ") + ")"
            + " ORDER BY updated_at DESC, object_id DESC LIMIT \(literal: search.limit) OFFSET \(literal: max(0, search.skip))"
        return try await withDatabase { db in
            try await db.raw(statement).all().map(Self.location(from:))
        }
    }
}
