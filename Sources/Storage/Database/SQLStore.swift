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
    private enum Pool {
        /// The connections, and the threads their blocking SQLite calls run on.
        case sqlite(EventLoopGroupConnectionPool<ServerSQLiteSource>, NIOThreadPool)
        case postgres(EventLoopGroupConnectionPool<PostgresConnectionSource>)
    }

    private let pool: Pool
    /// PostgreSQL only: where the change feed connects, and its channel (set by `open`).
    private var changeFeed: (configuration: SQLPostgresConfiguration, channel: String)? = nil
    private let logger: Logger
    private let filters: SQLFilterRenderer
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
            store = SQLStore(
                pool: .sqlite(
                    Self.makePool(
                        ServerSQLiteSource(path: path, synchronous: synchronous, threadPool: threads), perEventLoop: 2, limits: limits,
                        logger: logger),
                    threads),
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
            }
        } catch let error as PSQLError {
            try? await store.close()
            throw StorageError.databaseUnavailable(DatabaseLocation.redacted(url), PostgresSupport.reason(for: error))
        } catch StorageError.queryTimeout {
            try? await store.close()
            throw StorageError.databaseUnavailable(
                DatabaseLocation.redacted(url), "no connection came free within \(Int(max(10, limits.timeout ?? 10))) s")
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

    private init(pool: Pool, photoStorage: any PhotoStorage, limits: QueryLimits, logger: Logger) {
        self.pool = pool
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
        try await withDatabase { db in
            let postgres = db.dialect.name == "postgresql"
            if postgres { try await db.raw("SET statement_timeout = 0").run() }
            try await Migrations.run(on: db, schema: schema, through: last)
            if postgres { try await db.raw("RESET statement_timeout").run() }
        }
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
            try await pool.shutdownAsync()
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

    /// Runs a read under the statement deadline; `$regex` reads first wait for a turn.
    private func read<T: Sendable>(_ filter: LocationFilter, _ body: @escaping @Sendable (UInt64) async throws -> T) async throws -> T {
        let deadline = limits.deadline()
        guard filter.usesPattern else { return try await body(deadline) }
        return try await patternGate.withPermit(deadline: deadline) { try await body(deadline) }
    }

    /// PostgreSQL only, for what SQLKit would make slow; errors mapped as in `withDatabase`.
    private func withPostgresConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
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

    // MARK: Accounts

    public func createAccount(_ account: Account) async throws {
        try await withDatabase { db in
            // ON CONFLICT DO NOTHING + RETURNING tells a taken email apart from other
            // failures without parsing driver-specific constraint errors, and stays
            // correct when two sign-ups race.
            // The first account of a new community is its administrator. (`WHERE 1 = 1` lets
            // SQLite tell the SELECT's end from the ON CONFLICT clause.)
            let inserted = try await db.raw(
                """
                INSERT INTO accounts (key, email, password_hash, first_name, last_name, created_at, is_admin, email_verified)
                SELECT \(bind: account.key), \(bind: account.email), \(bind: account.passwordHash),
                       \(bind: account.firstName), \(bind: account.lastName), \(bind: ParseDate.string(from: account.createdAt)),
                       CASE WHEN \(bind: account.isAdmin) OR NOT EXISTS (SELECT 1 FROM accounts) THEN 1 ELSE 0 END,
                       \(bind: account.emailVerified ? 1 : 0)
                WHERE 1 = 1
                ON CONFLICT (email) DO NOTHING RETURNING key
                """
            ).all()
            if inserted.isEmpty { throw StorageError.emailTaken }
        }
    }

    public func account(email: String) async throws -> Account? {
        try await withDatabase { db in
            try await db.raw("SELECT * FROM accounts WHERE email = \(bind: email)").first().map(Self.account(from:))
        }
    }

    public func account(key: String) async throws -> Account? {
        try await withDatabase { db in
            try await db.raw("SELECT * FROM accounts WHERE key = \(bind: key)").first().map(Self.account(from:))
        }
    }

    @discardableResult
    public func updatePasswordHash(accountKey: String, to hash: String, now: Date) async throws -> Bool {
        try await withTransaction { db in
            guard
                try await !db.raw(
                    "UPDATE accounts SET password_hash = \(bind: hash) WHERE key = \(bind: accountKey) RETURNING key"
                ).all().isEmpty
            else { return false }
            try await Self.spendPasswordResets(accountKey: accountKey, now: now, on: db)
            return true
        }
    }

    public func accountLanguage(accountKey: String) async throws -> String? {
        try await withDatabase { db in
            try await db.raw("SELECT language FROM accounts WHERE key = \(bind: accountKey)").first()?
                .decode(column: "language", as: String?.self)
        }
    }

    @discardableResult
    public func setAccountLanguage(_ language: String?, accountKey: String) async throws -> Bool {
        try await withDatabase { db in
            try await !db.raw("UPDATE accounts SET language = \(bind: language) WHERE key = \(bind: accountKey) RETURNING key").all()
                .isEmpty
        }
    }

    public func markEmailVerified(accountKey: String) async throws {
        try await withDatabase { db in
            try await db.raw("UPDATE accounts SET email_verified = 1 WHERE key = \(bind: accountKey)").run()
        }
    }

    public func claimAccount(_ claim: AccountClaim, now: Date) async throws -> Bool {
        let key = claim.accountKey
        let link = claim.link
        return try await withTransaction { db in
            // The condition makes the claim happen once: a second provider sign-in racing this
            // one finds the email proven and signs in as usual.
            guard
                try await !db.raw(
                    """
                    UPDATE accounts SET password_hash = '', email_verified = 1,
                        first_name = COALESCE(\(bind: claim.firstName), first_name), last_name = COALESCE(\(bind: claim.lastName), last_name)
                    WHERE key = \(bind: key) AND email_verified = 0 RETURNING key
                    """
                ).all().isEmpty
            else { return false }
            try await db.raw("DELETE FROM session_sign_ins WHERE session_id IN (SELECT id FROM sessions WHERE account_key = \(bind: key))")
                .run()
            try await db.raw("DELETE FROM sessions WHERE account_key = \(bind: key)").run()
            try await db.raw("DELETE FROM login_devices WHERE account_key = \(bind: key)").run()
            try await db.raw("DELETE FROM sign_in_handoffs WHERE account_key = \(bind: key)").run()
            try await db.raw("DELETE FROM pending_sign_ins WHERE link_account_key = \(bind: key)").run()
            try await Self.spendPasswordResets(accountKey: key, now: now, on: db)
            // Whoever made the account may have linked another provider of theirs to it.
            try await db.raw(
                """
                DELETE FROM identity_links WHERE account_key = \(bind: key)
                  AND NOT (provider = \(bind: link.provider) AND subject = \(bind: link.subject))
                """
            ).run()
            try await db.raw(
                """
                UPDATE identity_links SET origin = \(bind: IdentityLink.Origin.verifiedEmail.rawValue)
                WHERE provider = \(bind: link.provider) AND subject = \(bind: link.subject) AND account_key = \(bind: key)
                """
            ).run()
            // The vouching identity is linked now, unless it already was (a link made the old way).
            _ = try await Self.insertLink(
                IdentityLink(
                    provider: link.provider, subject: link.subject, accountKey: key, email: link.email,
                    createdAt: link.createdAt, origin: .verifiedEmail), on: db)
            return true
        }
    }

    /// Marks every open reset link of the account used.
    static func spendPasswordResets(accountKey: String, now: Date, on db: any SQLDatabase) async throws {
        try await db.raw(
            """
            UPDATE password_resets SET used_at = \(bind: ParseDate.string(from: now))
            WHERE account_key = \(bind: accountKey) AND used_at IS NULL
            """
        ).run()
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

    static func account(from row: any SQLRow) throws -> Account {
        Account(
            key: try row.decode(column: "key", as: String.self),
            email: try row.decode(column: "email", as: String.self),
            passwordHash: try row.decode(column: "password_hash", as: String.self),
            firstName: try row.decode(column: "first_name", as: String.self),
            lastName: try row.decode(column: "last_name", as: String.self),
            createdAt: ParseDate.date(from: try row.decode(column: "created_at", as: String.self)) ?? .distantPast,
            isAdmin: try row.decode(column: "is_admin", as: Int.self) != 0,
            disabledAt: try row.decode(column: "disabled_at", as: String?.self).flatMap(ParseDate.date(from:)),
            emailVerified: try row.decode(column: "email_verified", as: Int.self) != 0
        )
    }

    // MARK: Sessions

    public func createSession(_ session: Session) async throws {
        try await withDatabase { db in
            try await db.raw(
                """
                INSERT INTO sessions (id, account_key, created_at, expires_at)
                VALUES (\(bind: SessionToken.digest(session.id)), \(bind: session.accountKey),
                        \(bind: ParseDate.string(from: session.createdAt)), \(bind: ParseDate.string(from: session.expiresAt)))
                """
            ).run()
        }
    }

    public func session(id: String, now: Date) async throws -> Session? {
        let nowText = ParseDate.string(from: now)
        return try await withDatabase { db in
            // A disabled account's sessions are deleted when it is disabled; the join makes sure
            // one created by a login racing that moment is dead too.
            guard
                let row = try await db.raw(
                    """
                    SELECT sessions.* FROM sessions JOIN accounts ON accounts.key = sessions.account_key
                    WHERE sessions.id = \(bind: SessionToken.digest(id)) AND sessions.expires_at > \(bind: nowText)
                      AND accounts.disabled_at IS NULL
                    """
                ).first()
            else { return nil }
            return Session(
                id: id,
                accountKey: try row.decode(column: "account_key", as: String.self),
                createdAt: ParseDate.date(from: try row.decode(column: "created_at", as: String.self)) ?? .distantPast,
                expiresAt: ParseDate.date(from: try row.decode(column: "expires_at", as: String.self)) ?? .distantPast
            )
        }
    }

    public func signedIn(token: String, now: Date, classId: String) async throws -> SignedInRecord? {
        let nowText = ParseDate.string(from: now)
        return try await withDatabase { db in
            guard
                let row = try await db.raw(
                    """
                    SELECT accounts.*, sessions.created_at AS session_created_at, sessions.expires_at AS session_expires_at,
                           class_members.role AS class_role,
                           CASE WHEN EXISTS (SELECT 1 FROM student_locations AS w WHERE w.owner_key = accounts.key
                                             AND w.class_id = \(bind: classId) AND w.waiting = 1) THEN 1 ELSE 0 END AS has_waiting
                    FROM sessions JOIN accounts ON accounts.key = sessions.account_key
                    LEFT JOIN class_members ON class_members.class_id = \(bind: classId) AND class_members.account_key = accounts.key
                    WHERE sessions.id = \(bind: SessionToken.digest(token)) AND sessions.expires_at > \(bind: nowText)
                      AND accounts.disabled_at IS NULL
                    """
                ).first()
            else { return nil }
            let account = try Self.account(from: row)
            let session = Session(
                id: token, accountKey: account.key,
                createdAt: ParseDate.date(from: try row.decode(column: "session_created_at", as: String.self)) ?? .distantPast,
                expiresAt: ParseDate.date(from: try row.decode(column: "session_expires_at", as: String.self)) ?? .distantPast
            )
            let role = try row.decode(column: "class_role", as: String?.self).flatMap(ClassRole.init(rawValue:))
            let waiting = try row.decode(column: "has_waiting", as: Int.self) != 0
            return SignedInRecord(session: session, account: account, role: role, hasWaitingPost: waiting)
        }
    }

    @discardableResult
    public func deleteSession(id: String) async throws -> Bool {
        try await withDatabase { db in
            try await !db.raw("DELETE FROM sessions WHERE id = \(bind: SessionToken.digest(id)) RETURNING id").all().isEmpty
        }
    }

    @discardableResult
    public func deleteSessions(accountKey: String, keeping: String?) async throws -> Int {
        let kept = keeping.map(SessionToken.digest) ?? ""
        return try await withDatabase { db in
            try await db.raw(
                "DELETE FROM sessions WHERE account_key = \(bind: accountKey) AND id <> \(bind: kept) RETURNING id"
            ).all().count
        }
    }

    @discardableResult
    public func deleteExpiredSessions(now: Date) async throws -> Int {
        let nowText = ParseDate.string(from: now)
        return try await withDatabase { db in
            try await db.raw("DELETE FROM sessions WHERE expires_at <= \(bind: nowText) RETURNING id").all().count
        }
    }

    // MARK: Student locations

    public func locations(_ query: LocationQuery, in classId: String, author: String?) async throws -> [StudentInformation] {
        try await read(query.filter) { deadline in try await self.locations(query, in: classId, author: author, deadline: deadline) }
    }

    private func locations(_ query: LocationQuery, in classId: String, author: String?, deadline: UInt64) async throws
        -> [StudentInformation]
    {
        var sql: SQLQueryString =
            "SELECT \(unsafeRaw: Self.locationColumns) FROM student_locations WHERE class_id = \(bind: classId) AND "
            + Self.readable(by: author) + " AND " + filters.render(query.filter, deadline: deadline)
        var orderTerms: [SQLQueryString] = query.sort.map { "\(ident: $0.field.column) \(unsafeRaw: $0.descending ? "DESC" : "ASC")" }
        // A stable tie-breaker keeps limit/skip pages from overlapping or skipping rows.
        let tieBreakDescending = query.sort.first?.descending ?? false
        orderTerms.append("object_id \(unsafeRaw: tieBreakDescending ? "DESC" : "ASC")")
        sql += " ORDER BY " + orderTerms.joined(separator: ", ")
        sql += " LIMIT \(literal: max(0, query.limit)) OFFSET \(literal: max(0, query.skip))"
        let statement = sql
        if case .postgres = pool {
            let logger = logger
            return try await withPostgresConnection { try await PostgresSupport.locations(statement, on: $0, logger: logger) }
        }
        return try await withDatabase { db in
            try await db.raw(statement).all().map(Self.location(from:))
        }
    }

    /// Posts a moderator hid, or whose author is disabled, are gone for every reader and writer
    /// (the author learns why from their notices); only moderation queries see them. Posts
    /// waiting for approval are their author's and the moderators' only. (The partial index of
    /// migration 13 has exactly this condition, so one class's visible posts are read from it.)
    static let visible = "hidden_at IS NULL AND owner_disabled = 0 AND waiting = 0"

    /// What `author` may read: the visible posts, and their own waiting ones.
    static func readable(by author: String?) -> SQLQueryString {
        guard let author else { return "\(unsafeRaw: visible)" }
        return "(\(unsafeRaw: visible) OR (waiting = 1 AND hidden_at IS NULL AND owner_disabled = 0 AND owner_key = \(bind: author)))"
    }

    /// What a list query selects, in the order `PostgresSupport.locations` decodes it.
    static let locationColumns =
        "object_id, unique_key, first_name, last_name, map_string, media_url, latitude, longitude, created_at, updated_at"

    public func countLocations(_ filter: LocationFilter, in classId: String, author: String?) async throws -> Int {
        try await read(filter) { deadline in
            let statement: SQLQueryString =
                "SELECT COUNT(*) AS n FROM student_locations WHERE class_id = \(bind: classId) AND "
                + Self.readable(by: author) + " AND " + self.filters.render(filter, deadline: deadline)
            return try await self.withDatabase { db in
                try await db.raw(statement).first()?.decode(column: "n", as: Int.self) ?? 0
            }
        }
    }

    public func location(objectId: String, in classId: String, author: String?) async throws -> StoredLocation? {
        let statement: SQLQueryString =
            "SELECT * FROM student_locations WHERE object_id = \(bind: objectId) AND class_id = \(bind: classId) AND "
            + Self.readable(by: author)
        return try await withDatabase { db in
            guard let row = try await db.raw(statement).first() else { return nil }
            return StoredLocation(
                record: try Self.location(from: row), ownerKey: try row.decode(column: "owner_key", as: String?.self),
                classId: classId, waiting: try row.decode(column: "waiting", as: Int.self) != 0)
        }
    }

    public func insertLocation(_ location: StoredLocation) async throws {
        let r = location.record
        try await withDatabase { db in
            try await db.raw(
                """
                INSERT INTO student_locations (object_id, owner_key, unique_key, first_name, last_name, map_string,
                                               media_url, latitude, longitude, created_at, updated_at, class_id, waiting)
                VALUES (\(bind: r.objectId), \(bind: location.ownerKey), \(bind: r.uniqueKey), \(bind: r.firstName),
                        \(bind: r.lastName), \(bind: r.mapString), \(bind: r.mediaURL), \(bind: r.latitude),
                        \(bind: r.longitude), \(bind: r.createdAt), \(bind: r.updatedAt), \(bind: location.classId),
                        \(bind: location.waiting ? 1 : 0))
                """
            ).run()
        }
    }

    public func updateLocation(objectId: String, in classId: String, patch: LocationPatch, updatedAt: Date) async throws
        -> StudentInformation?
    {
        var assignments: [SQLQueryString] = ["updated_at = \(bind: ParseDate.string(from: updatedAt))"]
        func set(_ field: LocationField, _ value: (any Encodable & Sendable)?) {
            if let value { assignments.append("\(ident: field.column) = \(bind: value)") }
        }
        set(.uniqueKey, patch.uniqueKey)
        set(.firstName, patch.firstName)
        set(.lastName, patch.lastName)
        set(.mapString, patch.mapString)
        set(.mediaURL, patch.mediaURL)
        set(.latitude, patch.latitude)
        set(.longitude, patch.longitude)
        if let waiting = patch.waiting { assignments.append("waiting = \(bind: waiting ? 1 : 0)") }
        // A waiting post is its author's to change (the caller checked whose it is).
        let statement: SQLQueryString =
            "UPDATE student_locations SET " + assignments.joined(separator: ", ")
            + " WHERE object_id = \(bind: objectId) AND class_id = \(bind: classId) AND hidden_at IS NULL AND owner_disabled = 0 RETURNING *"
        return try await withDatabase { db in
            try await db.raw(statement).first().map(Self.location(from:))
        }
    }

    @discardableResult
    public func deleteLocation(objectId: String, in classId: String) async throws -> Bool {
        try await withTransaction { db in
            guard
                try await !db.raw(
                    """
                    DELETE FROM student_locations WHERE object_id = \(bind: objectId) AND class_id = \(bind: classId) RETURNING object_id
                    """
                ).all().isEmpty
            else { return false }
            // The post's reports go with it (the foreign key would cascade them too).
            try await db.raw("DELETE FROM location_reports WHERE object_id = \(bind: objectId)").run()
            return true
        }
    }

    static func location(from row: any SQLRow) throws -> StudentInformation {
        StudentInformation(
            objectId: try row.decode(column: "object_id", as: String.self),
            uniqueKey: try row.decode(column: "unique_key", as: String.self),
            firstName: try row.decode(column: "first_name", as: String.self),
            lastName: try row.decode(column: "last_name", as: String.self),
            mapString: try row.decode(column: "map_string", as: String.self),
            mediaURL: try row.decode(column: "media_url", as: String.self),
            latitude: try row.decode(column: "latitude", as: Double.self),
            longitude: try row.decode(column: "longitude", as: Double.self),
            createdAt: try row.decode(column: "created_at", as: String.self),
            updatedAt: try row.decode(column: "updated_at", as: String.self)
        )
    }
}
