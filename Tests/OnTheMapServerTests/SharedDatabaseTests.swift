import Foundation
import HummingbirdTesting
import TestDatabases
import Testing

@testable import OnTheMapServer

/// Two servers on one PostgreSQL database, as a deployment behind a load balancer runs.
/// Only with `ONTHEMAP_TEST_POSTGRES_URL` (SQLite is one server's embedded file).
@Suite("Several servers on one PostgreSQL database", .enabled(if: TestDatabases.postgresServerURL != nil))
struct SharedDatabaseTests {
    @Test("a write on one server reaches the other's cached list within moments")
    func listCacheHearsOtherServers() async throws {
        #expect(testConfiguration(dataDirectory: FileManager.default.temporaryDirectory).cacheListResponses)
        try await withTwoServers(mode: .router, defaultClass: .public) { readerClient, writerClient, _ in
            let user = try await writerClient.makeUser()
            let firstPage = "?limit=100&order=-updatedAt"
            // The reader caches its answer once it listens; ask until that has happened.
            // Once the reader listens it answers from its cache: read until an answer comes from it.
            try #require(
                await eventually {
                    #expect((try await readerClient.list(firstPage)["results"] as! [Any]).isEmpty)
                    return try await cacheHits(readerClient) > 0
                })

            let objectID = try await writerClient.postLocation(user)
            try #require(await eventually { try await ids(readerClient.list(firstPage)) == [objectID] })

            try await writerClient.execute(
                uri: "/parse/classes/StudentLocation/\(objectID)", method: .put, headers: user.parseHeaders,
                body: jsonBody(["mapString": "Paris, France"])
            ) { response throws in
                #expect(response.status == .ok)
            }
            try #require(
                await eventually {
                    (try await readerClient.list(firstPage)["results"] as! [[String: Any]]).first?["mapString"] as? String
                        == "Paris, France"
                })

            try await writerClient.execute(uri: "/parse/classes/StudentLocation/\(objectID)", method: .delete, headers: user.parseHeaders) {
                response throws in
                #expect(response.status == .ok)
            }
            try #require(await eventually { try await ids(readerClient.list(firstPage)).isEmpty })

            // The reader's listening connection dies (a database restart, a proxy timeout)
            // and a write lands before it is back: the reader must not keep serving its
            // cached empty page.
            #expect((try await readerClient.list(firstPage)["results"] as! [Any]).isEmpty)
            try await TestDatabases.execute(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()
                """)
            let second = try await writerClient.postLocation(user)
            try #require(await eventually { try await ids(readerClient.list(firstPage)) == [second] })
        }
    }

    /// `onthemap_list_cache_hits_total` on this server's /metrics.
    private func cacheHits(_ client: some TestClientProtocol) async throws -> Double {
        let text = try await client.execute(uri: "/metrics", method: .get) { $0.text }
        let line = text.split(separator: "\n").first { $0.hasPrefix("onthemap_list_cache_hits_total") && !$0.hasPrefix("#") }
        return line.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) } ?? 0
    }

    private func ids(_ page: [String: Any]) -> [String] {
        (page["results"] as? [[String: Any]] ?? []).compactMap { $0["objectId"] as? String }
    }

    /// Polls `condition` for up to 5 s.
    private func eventually(_ condition: () async throws -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            if (try? await condition()) == true { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}
