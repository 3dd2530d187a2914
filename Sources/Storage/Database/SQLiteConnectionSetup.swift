@preconcurrency import AsyncKit
import Foundation
import Logging
import NIOCore
import SQLKit
import SQLiteKit
import SQLiteNIO

/// Opens SQLite connections configured for a server: WAL so readers never wait for the
/// writer, a sync on every commit (`SQLiteSynchronous`), a busy timeout instead of instant
/// SQLITE_BUSY, foreign keys, and the
/// `onthemap_regexp` function that Parse `$regex` queries need (SQLite has no regex built in).
struct ServerSQLiteSource: ConnectionPoolSource {
    let base: SQLiteConnectionSource
    let synchronous: SQLiteSynchronous
    /// Every connection this source opened, so that the store's closing waits for them.
    let opened = OpenedSQLiteConnections()

    init(path: String, synchronous: SQLiteSynchronous = .full, threadPool: NIOThreadPool) {
        base = SQLiteConnectionSource(configuration: .init(storage: .file(path: path), enableForeignKeys: true), threadPool: threadPool)
        self.synchronous = synchronous
    }

    func makeConnection(logger: Logger, on eventLoop: any EventLoop) -> EventLoopFuture<SQLiteConnection> {
        // Futures only, no Task: set-up must not wait for the cooperative thread pool, which
        // CPU-bound work elsewhere in the process may hold.
        let pragmas = [
            "PRAGMA journal_mode = WAL", "PRAGMA busy_timeout = 5000", "PRAGMA synchronous = \(synchronous.rawValue.uppercased())",
        ]
        let opened = self.opened
        opened.willOpen()
        return base.makeConnection(logger: logger, on: eventLoop).flatMap { connection in
            opened.add(connection)
            return pragmas.reduce(connection.eventLoop.makeSucceededVoidFuture()) { previous, pragma in
                previous.flatMap { connection.query(pragma).map { _ in } }
            }
            .flatMap { connection.install(customFunction: RegexFunction.sqliteFunction) }
            .map { connection }
            .flatMapError { error in
                // An unclosed connection traps when released: close it before giving up.
                connection.close().flatMapThrowing { throw error }
            }
        }
        .always { _ in opened.didOpen() }
    }
}

/// The SQLite connections a store opened, held until they are closed. The SQLite calls,
/// closing included, run on the store's own threads, which a closing store stops: it first
/// waits here until no connection is being set up and every one is closed. The pool closes
/// a connection as it comes back after the pool's shutdown (a read still running, or one
/// just opened for a request that the shutdown then refused), and its close runs on those
/// threads; stopped before, the close would fail and the connection trap when released.
/// `@unchecked Sendable`: all state is guarded by `lock`.
final class OpenedSQLiteConnections: @unchecked Sendable {
    private let lock = NSLock()
    private var connections: [SQLiteConnection] = []
    private var opening = 0
    /// Connections still open when a store gave up waiting: kept, never released unclosed.
    nonisolated(unsafe) private static var abandoned: [SQLiteConnection] = []
    private static let abandonedLock = NSLock()

    func willOpen() { lock.withLock { opening += 1 } }
    func didOpen() { lock.withLock { opening -= 1 } }

    func add(_ connection: SQLiteConnection) {
        lock.withLock {
            connections.removeAll { $0.isClosed }
            connections.append(connection)
        }
    }

    /// Connections opened and not closed yet, or still being set up.
    var openCount: Int {
        lock.withLock {
            connections.removeAll { $0.isClosed }
            return opening + connections.count
        }
    }

    /// Returns once no connection is being set up and every one opened is closed (each close
    /// is a call on SQLite's threads already on its way), or after `limit` seconds, keeping
    /// whatever is still open (a read that never came back) instead of releasing it unclosed.
    func waitUntilAllClosed(limit: Double = 10, logger: Logger) async {
        let deadline = ContinuousClock.now + .seconds(limit)
        while openCount > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
        let left = lock.withLock {
            defer { connections = [] }
            return connections.filter { !$0.isClosed }
        }
        guard !left.isEmpty else { return }
        logger.warning("\(left.count) SQLite connection(s) still open when the store closed; left open")
        Self.abandonedLock.withLock { Self.abandoned += left }
    }
}

/// `onthemap_regexp(pattern, flags, value, deadline)`: 1 when `value` matches, by
/// `PatternMatcher` (time bounded by pattern x text, never backtracking). Past `deadline`
/// (`DispatchTime.uptimeNanoseconds`, 0 for none) it fails, which fails the statement: the
/// query is cancelled inside SQLite and its pooled connection is free again. Compiled patterns
/// are cached because SQLite calls the function once per row scanned.
public enum RegexFunction {
    static let sqliteFunction = SQLiteCustomFunction("onthemap_regexp", argumentCount: 4, pure: true) { arguments in
        let deadline = UInt64(clamping: arguments[3].integer ?? 0)
        if deadline != 0, DispatchTime.now().uptimeNanoseconds > deadline { throw PatternMatcher.DeadlinePassed() }
        guard let pattern = arguments[0].string, let value = arguments[2].string else { return 0 }
        guard let matcher = cache.matcher(pattern, options: arguments[1].string ?? "") else { return 0 }
        return try matcher.matches(value, deadline: deadline) ? 1 : 0
    }

    /// The `$regex` condition on SQLite.
    @Sendable static func sqliteCondition(column: String, pattern: String, options: String, deadline: UInt64) -> SQLQueryString {
        "onthemap_regexp(\(bind: pattern), \(bind: options), \(ident: column), \(bind: Int(clamping: deadline))) = 1"
    }

    static let cache = MatcherCache()

    final class MatcherCache: @unchecked Sendable {
        private let lock = NSLock()
        private var compiled: [String: PatternMatcher] = [:]

        func matcher(_ pattern: String, options: String) -> PatternMatcher? {
            let key = options + ":" + pattern
            lock.lock()
            defer { lock.unlock() }
            if let matcher = compiled[key] { return matcher }
            guard let matcher = try? PatternMatcher(pattern: pattern, options: options) else { return nil }
            if compiled.count > 256 { compiled.removeAll() }
            compiled[key] = matcher
            return matcher
        }
    }
}
