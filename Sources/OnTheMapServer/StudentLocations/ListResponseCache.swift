import Foundation
import Synchronization

/// Encoded `GET StudentLocation` answers, keyed by the validated query and thrown away on
/// every write. Almost every client asks for the same first page
/// (`limit=100&order=-updatedAt`), and it only changes when someone posts, so serving the
/// bytes again skips the query, row decoding and JSON encoding.
///
/// Correct while this process is the only writer, as with the embedded SQLite database; a
/// deployment with several servers on one shared database must turn it off
/// (`Configuration.cacheListResponses`).
final class ListResponseCache: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var entries: [ParseListRequest: Data] = [:]
    }

    static let maximumEntries = 512
    private let state = Mutex(State())

    /// The current generation; pass it back to `store` so an answer computed before a
    /// write is never kept after it.
    var generation: UInt64 { state.withLock { $0.generation } }

    func response(for request: ParseListRequest) -> Data? {
        state.withLock { $0.entries[request] }
    }

    func store(_ body: Data, for request: ParseListRequest, computedAt generation: UInt64) {
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.entries.count >= Self.maximumEntries { state.entries.removeAll(keepingCapacity: true) }
            state.entries[request] = body
        }
    }

    /// Call after every successful write.
    func invalidate() {
        state.withLock { state in
            state.generation &+= 1
            state.entries.removeAll(keepingCapacity: true)
        }
    }
}
