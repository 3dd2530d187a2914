@preconcurrency import AsyncKit
import Foundation
import Logging
import NIOCore
import NIOPosix
import OnTheMapModels
import PostgresKit
import SQLKit
import SQLiteKit
import SQLiteNIO

/// The repositories on a SQL database through SQLKit: SQLite (one file, the default) or
/// PostgreSQL. Queries are written once; the dialect supplies placeholders and quoting, and
/// `SQLDialectSupport` the little that differs (regex matching, text collation, errors).
/// `@unchecked Sendable`: the pools are internally locked but predate Sendable annotations.
public final class SQLStore: OnTheMapStore, @unchecked Sendable {
    enum Pool {
        /// The connections, and the threads their blocking SQLite calls run on.
        case sqlite(EventLoopGroupConnectionPool<ServerSQLiteSource>, NIOThreadPool)
        case postgres(EventLoopGroupConnectionPool<PostgresConnectionSource>)
    }

    let pool: Pool
    /// SQLite only: connections of their own for list and snapshot pages (`withSQLiteConnection`).
    private let sqliteReads: SQLiteReadConnections?
    /// PostgreSQL only: where the change feed connects, and its channel (set by `open`).
    private var changeFeed: (configuration: SQLPostgresConfiguration, channel: String)? = nil
    let logger: Logger
    let filters: SQLFilterRenderer
    private let limits: QueryLimits
    /// `$regex` queries take turns here, so they never hold every pooled connection.
    private let patternGate: PatternQueryGate
    /// SQLite only: this process's write transactions take turns here, before taking a
    /// connection. SQLite has one writer at a time anyway; waiting here instead of in
    /// `BEGIN IMMEDIATE` keeps a waiting writer from holding one of the few threads the
    /// SQLite calls run on, which the writer it waits for may need to finish (two writers
    /// racing on a loaded 2-core machine ran out the busy timeout that way).
    private let writeTurns = PatternQueryGate(limit: 1)
    /// Photo images: under the data directory, or in an object store (see `SQLStore+Travel.swift`).
    public let photoStorage: any PhotoStorage
    /// PostgreSQL only: the channel album changes are announced on (set by `open`).
    private(set) var albumChannel: String? = nil
    /// Whether `student_locations.object_id` sorts by bytes: always on SQLite; on PostgreSQL
    /// when the column's collation is "C" (set by `open`), as the migrations create it.
    private(set) var objectIdsOrderedByBytes = true

    /// Opens the database named by `url` (see `DatabaseLocation`), creating the SQLite
    /// file or the PostgreSQL schema when missing, and runs pending migrations. Photo
    /// files go under `dataDirectory/photos` (default: the SQLite file's folder, or
    /// `./onthemap-data` with PostgreSQL). `limits` bound every statement (see `QueryLimits`).
    /// `photoStorage`, when given, replaces the data directory's photo folder.
    public static func open(
        url: String, dataDirectory: String? = nil, photoStorage: (any PhotoStorage)? = nil,
        limits: QueryLimits = QueryLimits(), logger: Logger
    ) async throws -> SQLStore {
        try await open(
            url: url, dataDirectory: dataDirectory, photoStorage: photoStorage, limits: limits, logger: logger, migratingThrough: Int.max)
    }

    /// As above, migrating only through `last` (tests build a database as an older version left it).
    static func open(
        url: String, dataDirectory: String?, photoStorage: (any PhotoStorage)?,
        limits: QueryLimits, logger: Logger, migratingThrough last: Int
    ) async throws -> SQLStore {
        let location = try DatabaseLocation(url: url)
        let store: SQLStore
        let schema: String?
        switch location {
        case .sqlite(let path, let synchronous):
            schema = nil
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try restrictToOwner(databaseFile: path)
            // SQLite's blocking calls get threads of their own, one per pooled connection (2 per
            // event loop), so a commit waiting for the disk (`synchronous = FULL`) holds up no
            // other connection, and nothing else that uses NIO's shared blocking pool.
            let threads = NIOThreadPool(numberOfThreads: 2 * System.coreCount)
            threads.start()
            let source = ServerSQLiteSource(path: path, synchronous: synchronous, threadPool: threads)
            store = SQLStore(
                pool: .sqlite(Self.makePool(source, perEventLoop: 2, limits: limits, logger: logger), threads),
                sqliteReads: SQLiteReadConnections(source: source, limit: 2 * System.coreCount, logger: logger),
                photoStorage: photoStorage ?? PhotoFileStore(dataDirectory: URL(fileURLWithPath: dataDirectory ?? directory.path)),
                limits: limits, logger: logger
            )
        case .postgres(let configuration, let named):
            schema = named
            store = SQLStore(
                pool: .postgres(
                    Self.makePool(
                        PostgresConnectionSource(sqlConfiguration: PostgresSupport.withStatementTimeout(configuration, limits.timeout)),
                        perEventLoop: 4, limits: limits, logger: logger
                    )),
                photoStorage: photoStorage ?? PhotoFileStore(dataDirectory: URL(fileURLWithPath: dataDirectory ?? "onthemap-data")),
                limits: limits, logger: logger
            )
        }
        do {
            try await store.migrate(schema: schema, through: last)
            if case .postgres(let configuration, _) = location {
                let channel = try await store.withDatabase { db in
                    try await db.raw(Migrations.changeChannelQuery).first()?.decode(column: "channel", as: String.self)
                }
                // Set once here, before the store is shared with anyone.
                store.changeFeed = channel.map { (configuration, $0) }
                store.albumChannel = try await store.withDatabase { db in
                    try await db.raw(Migrations.albumChannelQuery).first()?.decode(column: "channel", as: String.self)
                }
                store.objectIdsOrderedByBytes = try await store.withDatabase { db in
                    let collation = try await db.raw(
                        """
                        SELECT collation_name FROM information_schema.columns
                        WHERE table_schema = current_schema() AND table_name = 'student_locations' AND column_name = 'object_id'
                        """
                    ).first()?.decode(column: "collation_name", as: String?.self)
                    return collation == "C" || collation == "POSIX"
                }
            }
        } catch let error as PSQLError {
            try? await store.close()
            throw StorageError.databaseUnavailable(DatabaseLocation.redacted(url), PostgresSupport.reason(for: error))
        } catch StorageError.queryTimeout {
            try? await store.close()
            throw StorageError.databaseUnavailable(
                DatabaseLocation.redacted(url),
                "no connection came free, or a statement did not finish, within \(Int(max(10, limits.timeout ?? 10))) s")
        } catch {
            try? await store.close()
            throw error
        }
        return store
    }

    /// Accounts, password hashes and sessions are nobody else's business: the database file
    /// is created readable by its owner only (SQLite gives its -wal and -shm files the same
    /// mode), and a file left readable by an older version is tightened.
    static func restrictToOwner(databaseFile path: String) throws {
        let files = FileManager.default
        if !files.fileExists(atPath: path) {
            guard files.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw StorageError.databaseUnavailable(path, "cannot create the file (check the folder's permissions)")
            }
        }
        for file in [path, path + "-wal", path + "-shm"] where files.fileExists(atPath: file) {
            let mode = (try? files.attributesOfItem(atPath: file)[.posixPermissions] as? Int) ?? 0
            if mode & 0o077 != 0 { try files.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file) }
        }
    }

    /// `url` with any password masked, for logs and messages.
    public static func redactedDatabaseURL(_ url: String) -> String {
        DatabaseLocation.redacted(url)
    }

    private static func makePool<Source: ConnectionPoolSource>(_ source: Source, perEventLoop: Int, limits: QueryLimits, logger: Logger)
        -> EventLoopGroupConnectionPool<Source>
    {
        // Waiting for a connection: at least AsyncKit's 10 s (a start-up under load needs it), or
        // the statement deadline when that is longer. Short in practice, because every statement
        // ends by its deadline and `$regex` reads take turns; a wait that does run out is
        // answered as a timeout, not a 500.
        let wait = max(10, limits.timeout ?? 10)
        return EventLoopGroupConnectionPool(
            source: source, maxConnectionsPerEventLoop: perEventLoop, requestTimeout: .milliseconds(Int64(wait * 1000)),
            pruneInterval: nil, logger: logger, on: MultiThreadedEventLoopGroup.singleton
        )
    }

    private init(
        pool: Pool, sqliteReads: SQLiteReadConnections? = nil, photoStorage: any PhotoStorage, limits: QueryLimits, logger: Logger
    ) {
        self.pool = pool
        self.sqliteReads = sqliteReads
        self.limits = limits
        self.patternGate = PatternQueryGate(limit: limits.concurrentPatternQueries)
        self.logger = logger
        self.photoStorage = photoStorage
        switch pool {
        case .sqlite: self.filters = SQLFilterRenderer(regexOperator: RegexFunction.sqliteCondition)
        case .postgres: self.filters = SQLFilterRenderer(regexOperator: PostgresSupport.regexCondition)
        }
    }

    /// Runs the migrations not yet applied, on one connection so BEGIN/COMMIT wrap them, with
    /// no statement timeout: a migration may rewrite a big table.
    func migrate(schema: String? = nil, through last: Int = Int.max) async throws {
        // Not `withTransaction`: `Migrations.run` begins and commits its own (taking the migration lock first), and stays as shipped.
        try await withDatabase { db in
            let postgres = db.dialect.name == "postgresql"
            if postgres { try await db.raw("SET statement_timeout = 0").run() }
            try await Migrations.run(on: db, schema: schema, through: last)
            if postgres { try await db.raw("RESET statement_timeout").run() }
        }
        if last >= 23 { try await fillSearchTermsIfOwed() }
    }

    /// Student-location writes made by any server on this database, as they happen; nil on
    /// SQLite, where this process is the only writer. Each call opens its own listening
    /// connection, closed when the stream's consumer stops.
    public func locationChangeFeed() -> AsyncStream<LocationChangeEvent>? {
        changeFeed.map { PostgresChangeFeed.events(configuration: $0.configuration, channel: $0.channel, logger: logger) }
    }

    /// Album changes any server announced (`announceAlbumChange`), as their payloads; nil on
    /// SQLite. Like `locationChangeFeed`, each call listens on a connection of its own.
    public func albumChangeFeed() -> AsyncStream<String>? {
        guard let feed = changeFeed, let channel = albumChannel else { return nil }
        return PostgresChangeFeed.payloads(configuration: feed.configuration, channel: channel, logger: logger)
    }

    /// Tells every server listening on `albumChangeFeed` (this one too); nothing on SQLite.
    public func announceAlbumChange(_ payload: String) async {
        guard let channel = albumChannel else { return }
        _ = try? await withDatabase { db in
            try await db.raw("SELECT pg_notify(\(bind: channel), \(bind: payload))").run()
        }
    }

    /// Whether this store is on PostgreSQL (backups then use PostgreSQL's own tools).
    public var isPostgres: Bool {
        if case .postgres = pool { return true }
        return false
    }

    public func close() async throws {
        switch pool {
        case .sqlite(let pool, let threads):
            await sqliteReads?.shutdown()
            try await pool.shutdownAsync()
            // Connections the pool closes as they come back, or set up as it shut down, are
            // closed on these threads: they stop once every connection is closed.
            await pool.source.opened.waitUntilAllClosed(logger: logger)
            try await threads.shutdownGracefully()
        case .postgres(let pool): try await pool.shutdownAsync()
        }
    }

    func withDatabase<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        switch pool {
        case .sqlite(let pool, _):
            do {
                return try await pool.withConnection(logger: logger) { connection in
                    connection.eventLoop.makeFutureWithTask { try await body(connection.sql()) }
                }.get()
            } catch let error as SQLiteError where error.message.contains(PatternMatcher.deadlineMessage) {
                throw StorageError.queryTimeout
            } catch is ConnectionPoolTimeoutError {
                throw StorageError.queryTimeout
            }
        case .postgres:
            return try await withPostgresConnection { try await body($0.sql()) }
        }
    }

    /// Runs one statement that ends in `RETURNING`: whether it deleted, changed or added a row.
    func touchesARow(_ statement: SQLQueryString) async throws -> Bool {
        try await withDatabase { db in try await !db.raw(statement).all().isEmpty }
    }

    /// Runs a read under the statement deadline; `$regex` reads first wait for a turn.
    func read<T: Sendable>(_ filter: LocationFilter, _ body: @escaping @Sendable (UInt64) async throws -> T) async throws -> T {
        let deadline = limits.deadline()
        guard filter.usesPattern else { return try await body(deadline) }
        return try await patternGate.withPermit(deadline: deadline) { try await body(deadline) }
    }

    /// PostgreSQL only, for what SQLKit would make slow; errors mapped as in `withDatabase`.
    func withPostgresConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        guard case .postgres(let pool) = pool else { preconditionFailure("not a PostgreSQL store") }
        do {
            return try await pool.withConnection(logger: logger) { connection in
                connection.eventLoop.makeFutureWithTask { try await body(connection) }
            }.get()
        } catch let error as PSQLError {
            throw PostgresSupport.storageError(for: error) ?? error
        } catch is ConnectionPoolTimeoutError {
            throw StorageError.queryTimeout
        }
    }

    /// SQLite only, for what SQLKit would make slow; errors mapped as in `withDatabase`. `body`
    /// runs in the calling task (no task of its own), on one of `sqliteReads`' connections, so
    /// a read is one trip to SQLite's thread and back; when all of those are in use, on one of
    /// the pool's (then also a trip to its event loop for the connection).
    func withSQLiteConnection<T: Sendable>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        guard case .sqlite(let pool, _) = pool, let sqliteReads else { preconditionFailure("not a SQLite store") }
        let logger = logger
        do {
            return try await sqliteReads.withConnection(body) {
                let connection = try await pool.requestConnection(logger: logger).get()
                defer { pool.releaseConnection(connection, logger: logger) }
                return try await body(connection)
            }
        } catch let error as SQLiteError where error.message.contains(PatternMatcher.deadlineMessage) {
            throw StorageError.queryTimeout
        } catch is ConnectionPoolTimeoutError {
            throw StorageError.queryTimeout
        }
    }

    /// Runs `body` in one transaction on one connection (SQLite: `BEGIN IMMEDIATE`, taking the
    /// write lock at once, so two writers queue instead of failing to upgrade a read lock).
    func withTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let transaction = {
            try await self.withDatabase { db in
                try await db.raw(db.dialect.name == "postgresql" ? "BEGIN" : "BEGIN IMMEDIATE").run()
                do {
                    let value = try await body(db)
                    try await db.raw("COMMIT").run()
                    return value
                } catch {
                    try? await db.raw("ROLLBACK").run()
                    throw error
                }
            }
        }
        if isPostgres { return try await transaction() }
        return try await writeTurns.withPermit(deadline: 0, transaction)
    }
}
