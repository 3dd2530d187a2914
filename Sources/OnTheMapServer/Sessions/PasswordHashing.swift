import Foundation
import Hummingbird
import Logging
import NIOPosix
import OnTheMapModels
import ServiceLifecycle

/// Bcrypt (~275 ms of CPU a login) on threads of its own, apart from NIO's blocking pool
/// where SQLite does its work, with a bounded queue: a login flood delays logins, and past the
/// queue it is answered 503 at once, while reads and writes keep their threads.
/// `@unchecked Sendable`: the counter is guarded by `lock`; the pool is thread-safe.
final class PasswordHashing: @unchecked Sendable {
    let threads: Int
    let queueLimit: Int
    private let pool: NIOThreadPool
    private let lock = NSLock()
    private var inFlight = 0

    init(threads: Int, queueLimit: Int) {
        self.threads = max(1, threads)
        self.queueLimit = max(0, queueLimit)
        pool = NIOThreadPool(numberOfThreads: self.threads)
        pool.start()
    }

    /// Runs `work` on the hashing threads; throws `PasswordHashingBusy` when the queue is full.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let admitted = lock.withLock {
            guard inFlight < threads + queueLimit else { return false }
            inFlight += 1
            return true
        }
        guard admitted else { throw PasswordHashingBusy() }
        defer { lock.withLock { inFlight -= 1 } }
        return try await pool.runIfActive(work)
    }

    func shutdown() async {
        try? await pool.shutdownGracefully()
    }
}

/// Every hashing thread and queue place is taken: answered 503 with `Retry-After` in the
/// route's own format (`ErrorFormatMiddleware`).
struct PasswordHashingBusy: Error {}

/// Stops the hashing threads when the server shuts down.
struct PasswordHashingService: Service {
    let hashing: PasswordHashing

    func run() async throws {
        try? await gracefulShutdown()
        await hashing.shutdown()
    }
}
