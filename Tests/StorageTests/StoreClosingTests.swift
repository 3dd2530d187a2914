import Foundation
import OnTheMapModels
import TestDatabases
import Testing

@testable import Storage

/// A store closing while its work is still under way (a server stopping during requests):
/// every SQLite connection is closed before the threads its calls run on stop, whether it was
/// in use or still being set up, and nothing traps.
@Suite("Closing a store")
struct StoreClosingTests {
    @Test("a SQLite store closed while reads open and use connections closes every one", arguments: 0..<12)
    func closingDuringReads(round: Int) async throws {
        let database = try Backend.sqlite.freshDatabase()
        let store = try await SQLStore.open(
            url: database.url, dataDirectory: NSTemporaryDirectory(), limits: Backend.generousLimits, logger: TestDatabases.logger("test"))
        guard case .sqlite(let pool, _) = store.pool else {
            Issue.record("not a SQLite store")
            return
        }
        let opened = pool.source.opened
        // More reads than the pool and the read connections hold: new ones are being set up
        // as the store closes, after a few rounds' worth of different timings.
        let reads = (0..<24).map { index in
            Task {
                if index.isMultiple(of: 2) {
                    _ = try? await store.location(objectId: "none\(index)")
                } else {
                    _ = try? await store.withDatabase { db in try await db.raw("SELECT 1 AS one").all() }
                }
            }
        }
        if round.isMultiple(of: 3) { await Task.yield() }
        try await store.close()
        for read in reads { await read.value }
        #expect(opened.openCount == 0, "connections left open after the store closed")
        await database.cleanup()
    }
}
