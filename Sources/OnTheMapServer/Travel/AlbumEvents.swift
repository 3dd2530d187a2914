import Foundation
import Storage

/// What a live album watcher is told.
enum AlbumEvent: Sendable {
    /// The album changed as a whole: a search started or failed, a new collection arrived.
    case album(AlbumSnapshot)
    /// One photo changed: its image arrived, it failed, or it was queued again.
    case photo(Photo)
    case photoRemoved(id: String)
    /// Nothing is pending any more; the stream ends after this.
    case done(AlbumSnapshot)
    /// The pin was deleted; the stream ends after this.
    case pinDeleted(id: String)
    /// Keeps idle connections (and proxies) from timing out.
    case heartbeat
}

/// Fan-out of album events to the live streams watching each pin.
final class AlbumEvents: @unchecked Sendable {
    typealias Subscription = (id: UUID, stream: AsyncStream<AlbumEvent>)

    private let lock = NSLock()
    private var watchers: [String: [UUID: AsyncStream<AlbumEvent>.Continuation]] = [:]
    private var finished = false

    /// Events for one pin from now on. The stream ends on `unsubscribe`, on `finishAll`,
    /// or when the consumer stops iterating.
    func subscribe(pinID: String) -> Subscription {
        let id = UUID()
        let (stream, continuation) = AsyncStream<AlbumEvent>.makeStream(bufferingPolicy: .bufferingNewest(512))
        continuation.onTermination = { [weak self] _ in self?.remove(pinID: pinID, id: id) }
        let accepted = lock.withLock {
            guard !finished else { return false }
            watchers[pinID, default: [:]][id] = continuation
            return true
        }
        if !accepted { continuation.finish() }
        return (id, stream)
    }

    func unsubscribe(pinID: String, id: UUID) {
        let continuation = lock.withLock { watchers[pinID]?[id] }
        continuation?.finish()
    }

    func publish(_ event: AlbumEvent, pinID: String) {
        let targets = lock.withLock { Array((watchers[pinID] ?? [:]).values) }
        for continuation in targets { continuation.yield(event) }
    }

    /// Ends every stream (server shutdown) and refuses new ones.
    func finishAll() {
        let all = lock.withLock {
            finished = true
            return watchers.values.flatMap(\.values)
        }
        for continuation in all { continuation.finish() }
    }

    func hasWatchers(pinID: String) -> Bool {
        lock.withLock { !(watchers[pinID]?.isEmpty ?? true) }
    }

    var watcherCount: Int {
        lock.withLock { watchers.values.reduce(0) { $0 + $1.count } }
    }

    private func remove(pinID: String, id: UUID) {
        lock.withLock {
            watchers[pinID]?[id] = nil
            if watchers[pinID]?.isEmpty == true { watchers[pinID] = nil }
        }
    }
}
