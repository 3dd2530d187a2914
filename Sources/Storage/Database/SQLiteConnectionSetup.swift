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
        return base.makeConnection(logger: logger, on: eventLoop).flatMap { connection in
            pragmas.reduce(connection.eventLoop.makeSucceededVoidFuture()) { previous, pragma in
                previous.flatMap { connection.query(pragma).map { _ in } }
            }
            .flatMap { connection.install(customFunction: RegexFunction.sqliteFunction) }
            .map { connection }
            .flatMapError { error in
                // An unclosed connection traps when released: close it before giving up.
                connection.close().flatMapThrowing { throw error }
            }
        }
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
