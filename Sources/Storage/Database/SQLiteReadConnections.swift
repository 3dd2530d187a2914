import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLiteNIO

/// SQLite only: connections of their own for the reads that run most (list pages, the live
/// map's snapshot pages), taken and given back under a lock. Such a read then goes to
/// SQLite's thread and back, and nowhere else: the pool hands its connections out on an event
/// loop, which is one more thread to wake on the way in and one on the way out of every read.
/// At most `limit` are open (as many as there are threads to run SQLite calls on); when all
/// are in use, a read takes its connection from the pool as any other statement does.
/// Opened like the pool's (`ServerSQLiteSource`: WAL, busy timeout, the regex function).
/// `@unchecked Sendable`: all state is guarded by `lock`.
final class SQLiteReadConnections: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [SQLiteConnection] = []
    /// Open or being opened, idle or in use.
    private var open = 0
    private var shuttingDown = false
    /// `shutdown` waits here until every connection is closed.
    private var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
    private let limit: Int
    private let source: ServerSQLiteSource
    private let logger: Logger

    init(source: ServerSQLiteSource, limit: Int, logger: Logger) {
        self.source = source
        self.limit = max(1, limit)
        self.logger = logger
    }

    /// `body` on one of these connections, or `otherwise` when all are in use (or shutting down).
    func withConnection<T>(
        _ body: (SQLiteConnection) async throws -> T, otherwise: () async throws -> T
    ) async throws -> T {
        guard let connection = try await take() else { return try await otherwise() }
        do {
            let value = try await body(connection)
            giveBack(connection)
            return value
        } catch {
            giveBack(connection)
            throw error
        }
    }

    private enum Taken {
        case idle(SQLiteConnection)
        case openOne
        case none
    }

    private func take() async throws -> SQLiteConnection? {
        let taken: Taken = lock.withLock {
            if shuttingDown { return .none }
            if let connection = idle.popLast() { return .idle(connection) }
            guard open < limit else { return .none }
            open += 1
            return .openOne
        }
        switch taken {
        case .idle(let connection): return connection
        case .none: return nil
        case .openOne:
            do {
                return try await source.makeConnection(logger: logger, on: MultiThreadedEventLoopGroup.singleton.any()).get()
            } catch {
                forget()
                throw error
            }
        }
    }

    private func giveBack(_ connection: SQLiteConnection) {
        let keep = lock.withLock {
            guard !shuttingDown, !connection.isClosed else { return false }
            idle.append(connection)
            return true
        }
        if !keep { close(connection) }
    }

    /// Closes a connection that is no longer kept (on SQLite's threads, which `shutdown`
    /// keeps running until every connection is closed).
    private func close(_ connection: SQLiteConnection) {
        guard !connection.isClosed else { return forget() }
        connection.close().whenComplete { _ in self.forget() }
    }

    /// One connection fewer; the last one closed during a shutdown ends it.
    private func forget() {
        let waiters: [CheckedContinuation<Void, Never>] = lock.withLock {
            open -= 1
            guard shuttingDown, open == 0 else { return [] }
            defer { shutdownWaiters = [] }
            return shutdownWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Closes the idle connections, and each one in use as it comes back; returns when all are
    /// closed. Reads that start after this use the pool (which is closing too).
    func shutdown() async {
        let idle: [SQLiteConnection] = lock.withLock {
            shuttingDown = true
            defer { self.idle = [] }
            return self.idle
        }
        for connection in idle { close(connection) }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            lock.lock()
            if open == 0 {
                lock.unlock()
                waiter.resume()
            } else {
                shutdownWaiters.append(waiter)
                lock.unlock()
            }
        }
    }
}
