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

    /// The hashing pool of the server handling the current request (bound by
    /// `PasswordHashingMiddleware`), so the controllers' hashing lines need no other change.
    @TaskLocal static var current: PasswordHashing?

    init(threads: Int, queueLimit: Int) {
        self.threads = max(1, threads)
        self.queueLimit = max(0, queueLimit)
        pool = NIOThreadPool(numberOfThreads: self.threads)
        pool.start()
    }

    /// Runs `work` on the current server's hashing threads (NIO's shared pool outside a
    /// request, e.g. when seeding the demo); throws `PasswordHashingBusy` when the queue is full.
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        guard let current else { return try await NIOThreadPool.singleton.runIfActive(work) }
        return try await current.run(work)
    }

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

struct PasswordHashingBusy: Error {}

/// Binds the server's hashing pool for the routes that hash, and answers a full queue with
/// 503 + `Retry-After` in the route's own format.
struct PasswordHashingMiddleware<Context: RequestContext>: RouterMiddleware {
    let hashing: PasswordHashing

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await PasswordHashing.$current.withValue(hashing) { try await next(request, context) }
        } catch is PasswordHashingBusy {
            let message = "Too many logins at once; try again in a few seconds."
            switch ErrorFormatMiddleware<Context>.family(of: request.uri.path) {
            case .udacity: throw RetryLater(UdacityError(status: 503, message), after: 2)
            default: throw RetryLater(APIError(.serviceUnavailable, "busy", message), after: 2)
            }
        }
    }
}

/// Stops the hashing threads when the server shuts down.
struct PasswordHashingService: Service {
    let hashing: PasswordHashing

    func run() async throws {
        try? await gracefulShutdown()
        await hashing.shutdown()
    }
}
