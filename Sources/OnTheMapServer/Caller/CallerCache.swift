import Foundation
import Storage
import Synchronization

/// Signed-in callers this server resolved a moment ago, so that a member's read (a page of the
/// map, a snapshot) skips the database's session lookup, which is most of what a cached read
/// costs. What it may serve is never staler than the live map:
/// - an entry lives `lifetime` seconds at most (and never past its session's expiry);
/// - every request that may change something (any method but GET and HEAD) is resolved from the
///   database and empties the cache when it is done, so this server's own logouts, role
///   changes, joins, removals and posts count at once;
/// - the change log's `ended` entries (a session, an account, a membership or a class's
///   visibility ending, on any server or by the host's CLI) empty the matching entries as soon
///   as the live map reads them (`LiveLocations`' `accessEnded`).
/// A lookup that raced with an emptying (it began before, and ended after) is not kept.
final class CallerCache: Sendable {
    struct Key: Hashable, Sendable {
        let token: String
        let classId: String
    }

    private struct Entry: Sendable {
        let record: SignedInRecord
        let sessionDigest: String
        let until: Date
    }

    private struct State: Sendable {
        var entries: [Key: Entry] = [:]
        /// Grows at every emptying: a lookup keeps its answer only if none happened meanwhile.
        var generation: UInt64 = 0
    }

    let lifetime: TimeInterval
    let capacity: Int
    private let state = Mutex(State())

    init(lifetime: TimeInterval = 2, capacity: Int = 20_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// The generation to hand back to `keep` after a database lookup.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// A live entry for the token in the class, or nil.
    func lookup(token: String, classId: String, now: Date) -> SignedInRecord? {
        state.withLock { state in
            let key = Key(token: token, classId: classId)
            guard let entry = state.entries[key] else { return nil }
            guard entry.until > now else {
                state.entries[key] = nil
                return nil
            }
            return entry.record
        }
    }

    /// Keeps what the database said, unless the cache was emptied since `generation`.
    func keep(_ record: SignedInRecord, token: String, classId: String, now: Date, generation: UInt64) {
        let until = min(now.addingTimeInterval(lifetime), record.session.expiresAt)
        guard until > now else { return }
        let digest = SessionToken.digest(token)
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[Key(token: token, classId: classId)] = Entry(record: record, sessionDigest: digest, until: until)
        }
    }

    /// Forgets everything (after a request that may have changed something).
    func forgetAll() {
        state.withLock { state in
            state.generation &+= 1
            state.entries.removeAll(keepingCapacity: true)
        }
    }

    /// Forgets what an `ended` entry names: an account (its key) or a session (its digest), or
    /// everyone when empty; in one class, or every class when empty.
    func forget(ended subject: String, classId: String) {
        state.withLock { state in
            state.generation &+= 1
            state.entries = state.entries.filter { key, entry in
                let inClass = classId.isEmpty || key.classId == classId
                let named = subject.isEmpty || entry.record.account.key == subject || entry.sessionDigest == subject
                return !(inClass && named)
            }
        }
    }

    var count: Int { state.withLock { $0.entries.count } }
}
