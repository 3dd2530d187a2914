import NIOCore
import Synchronization

/// Encoded `GET StudentLocation` answers, per class, keyed by the raw query string and thrown
/// away on every write to that class. Almost every client asks for the same first page
/// (`limit=100&order=-updatedAt`), and it only changes when someone posts, so a hit skips
/// query parsing, the database, row decoding and JSON encoding, and hands NIO the same
/// buffer again (no copy). Only answers that parsed and succeeded are stored.
///
/// Local writes invalidate it directly. On PostgreSQL other servers may write too, so
/// `ListCacheInvalidation` also invalidates it on every change notification, and suspends
/// it (no hits, nothing kept) whenever it is not listening.
final class ListResponseCache: Sendable {
    private struct State {
        var generation: UInt64 = 0
        /// By class id, then by key.
        var entries: [String: [String: ByteBuffer]] = [:]
        var count = 0
        var bytes = 0
        var suspended = false
    }

    static let maximumEntries = 512
    static let maximumBytes = 32 * 1024 * 1024
    private let state: Mutex<State>
    private let metrics: ServerMetrics?

    /// `suspended`: start without caching until `resume()`, for a cache that may only
    /// serve while it hears about other servers' writes. `metrics` counts hits and misses.
    init(suspended: Bool = false, metrics: ServerMetrics? = nil) {
        state = Mutex(State(suspended: suspended))
        self.metrics = metrics
    }

    /// The current generation; pass it back to `store` so an answer computed before a
    /// write is never kept after it.
    var generation: UInt64 { state.withLock { $0.generation } }

    func response(for key: String, classId: String) -> ByteBuffer? {
        let hit = state.withLock { $0.suspended ? nil : $0.entries[classId]?[key] }
        (hit == nil ? metrics?.listCacheMisses : metrics?.listCacheHits)?.increment()
        return hit
    }

    func store(_ body: ByteBuffer, for key: String, classId: String, computedAt generation: UInt64) {
        state.withLock { state in
            guard !state.suspended, state.generation == generation, body.readableBytes <= Self.maximumBytes / 8 else { return }
            if state.count >= Self.maximumEntries || state.bytes + body.readableBytes > Self.maximumBytes {
                state.entries.removeAll(keepingCapacity: true)
                state.bytes = 0
                state.count = 0
            }
            if let old = state.entries[classId, default: [:]].updateValue(body, forKey: key) {
                state.bytes -= old.readableBytes
            } else {
                state.count += 1
            }
            state.bytes += body.readableBytes
        }
    }

    /// Call after every successful write: drops every class's answers.
    func invalidate() {
        state.withLock { Self.clear(&$0) }
    }

    /// Drops the answers of these classes ("" among them: every class). The generation moves
    /// on for all, so no answer computed before the write is kept after it.
    func invalidate(classes: Set<String>) {
        state.withLock { state in
            if classes.contains("") { return Self.clear(&state) }
            state.generation &+= 1
            for classId in classes {
                guard let dropped = state.entries.removeValue(forKey: classId) else { continue }
                state.count -= dropped.count
                state.bytes -= dropped.values.reduce(0) { $0 + $1.readableBytes }
            }
        }
    }

    /// Stops serving and keeping answers until `resume()`.
    func suspend() {
        state.withLock { state in
            state.suspended = true
            Self.clear(&state)
        }
    }

    /// Serves again, starting empty.
    func resume() {
        state.withLock { state in
            state.suspended = false
            Self.clear(&state)
        }
    }

    private static func clear(_ state: inout State) {
        state.generation &+= 1
        state.entries.removeAll(keepingCapacity: true)
        state.bytes = 0
        state.count = 0
    }
}
