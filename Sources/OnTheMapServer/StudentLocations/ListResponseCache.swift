import NIOCore
import Synchronization

/// Encoded `GET StudentLocation` answers, keyed by the raw query string and thrown away on
/// every write. Almost every client asks for the same first page
/// (`limit=100&order=-updatedAt`), and it only changes when someone posts, so a hit skips
/// query parsing, the database, row decoding and JSON encoding, and hands NIO the same
/// buffer again (no copy). Only answers that parsed and succeeded are stored.
///
/// Correct while this process is the only writer, as with the embedded SQLite database, so
/// it is off by default on PostgreSQL, where other servers may write
/// (`Configuration.cacheListResponses`).
final class ListResponseCache: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var entries: [String: ByteBuffer] = [:]
        var bytes = 0
    }

    static let maximumEntries = 512
    static let maximumBytes = 32 * 1024 * 1024
    private let state = Mutex(State())

    /// The current generation; pass it back to `store` so an answer computed before a
    /// write is never kept after it.
    var generation: UInt64 { state.withLock { $0.generation } }

    func response(for key: String) -> ByteBuffer? {
        state.withLock { $0.entries[key] }
    }

    func store(_ body: ByteBuffer, for key: String, computedAt generation: UInt64) {
        state.withLock { state in
            guard state.generation == generation, body.readableBytes <= Self.maximumBytes / 8 else { return }
            if state.entries.count >= Self.maximumEntries || state.bytes + body.readableBytes > Self.maximumBytes {
                state.entries.removeAll(keepingCapacity: true)
                state.bytes = 0
            }
            if let old = state.entries.updateValue(body, forKey: key) { state.bytes -= old.readableBytes }
            state.bytes += body.readableBytes
        }
    }

    /// Call after every successful write.
    func invalidate() {
        state.withLock { state in
            state.generation &+= 1
            state.entries.removeAll(keepingCapacity: true)
            state.bytes = 0
        }
    }
}
