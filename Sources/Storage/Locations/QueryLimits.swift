import Foundation

/// How long a statement may run and how many expensive ones may run at once, so one client's
/// query cannot hold the connections everyone else needs.
public struct QueryLimits: Sendable, Equatable {
    /// Every statement is cancelled in the database past this many seconds (PostgreSQL's
    /// `statement_timeout`; on SQLite the `$regex` function checks it row by row), and a
    /// `$regex` read waits for its turn at most this long. nil: no limit (copying a database).
    public var timeout: TimeInterval?
    /// `$regex` queries that may run at once; others wait (within `timeout`) for a turn.
    public var concurrentPatternQueries: Int

    public init(timeout: TimeInterval? = 2, concurrentPatternQueries: Int = 2) {
        self.timeout = timeout
        self.concurrentPatternQueries = max(1, concurrentPatternQueries)
    }

    /// No deadline: for offline work such as `copy-database`.
    public static let unlimited = QueryLimits(timeout: nil)

    /// The deadline of a statement starting now, as `DispatchTime.uptimeNanoseconds` (0: none).
    func deadline() -> UInt64 {
        guard let timeout else { return 0 }
        return DispatchTime.now().uptimeNanoseconds + UInt64(max(0, timeout) * 1_000_000_000)
    }
}

/// A counting semaphore whose waiters give up at a deadline (0: they wait as long as it
/// takes): `$regex` queries take turns here instead of filling the connection pool, and on
/// SQLite write transactions take turns one at a time.
/// `@unchecked Sendable`: all state is guarded by `lock`.
final class PatternQueryGate: @unchecked Sendable {
    private let lock = NSLock()
    private let limit: Int
    private var active = 0
    private var waiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    private var lastID = 0

    init(limit: Int) {
        self.limit = limit
    }

    func withPermit<T: Sendable>(deadline: UInt64, _ body: () async throws -> T) async throws -> T {
        try await acquire(deadline: deadline)
        defer { release() }
        return try await body()
    }

    private func acquire(deadline: UInt64) async throws {
        let id: Int = lock.withLock {
            lastID += 1
            return lastID
        }
        var timer: Task<Void, Never>?
        if deadline != 0 {
            let now = DispatchTime.now().uptimeNanoseconds
            let wait = deadline > now ? deadline - now : 0
            timer = Task { [weak self] in
                try? await Task.sleep(nanoseconds: wait)
                self?.expire(id)
            }
        }
        defer { timer?.cancel() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            lock.lock()
            if active < limit {
                active += 1
                lock.unlock()
                continuation.resume()
            } else if deadline != 0 && DispatchTime.now().uptimeNanoseconds >= deadline {
                // The timer may already have fired before this waiter was queued.
                lock.unlock()
                continuation.resume(throwing: StorageError.queryTimeout)
            } else {
                waiters.append((id, continuation))
                lock.unlock()
            }
        }
    }

    private func expire(_ id: Int) {
        lock.lock()
        guard let index = waiters.firstIndex(where: { $0.id == id }) else {
            lock.unlock()
            return
        }
        let waiter = waiters.remove(at: index)
        lock.unlock()
        waiter.continuation.resume(throwing: StorageError.queryTimeout)
    }

    private func release() {
        lock.lock()
        if waiters.isEmpty {
            active -= 1
            lock.unlock()
        } else {
            // The permit passes straight to the longest waiter.
            let waiter = waiters.removeFirst()
            lock.unlock()
            waiter.continuation.resume()
        }
    }
}

extension LocationFilter {
    /// Whether the filter has a `$regex` that can be costly (repetition, or long): such
    /// queries take turns. Plain text searches do not.
    var usesPattern: Bool {
        switch self {
        case .regex(_, let pattern, let options):
            !((try? PatternMatcher(pattern: pattern, options: options))?.isSimple ?? false)
        case .and(let parts), .or(let parts): parts.contains(where: \.usesPattern)
        case .not(let inner): inner.usesPattern
        case .always, .never, .compare, .oneOf: false
        }
    }
}
