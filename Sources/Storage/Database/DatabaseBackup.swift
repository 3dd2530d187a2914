import Foundation
import Logging
import SQLKit

/// Online backups and restores of the embedded SQLite database, for the host's CLI.
/// PostgreSQL has its own tools (`pg_dump`, `pg_restore`), which do this better.
public enum DatabaseBackup {
    public enum Failure: Error, CustomStringConvertible {
        case postgres
        case destinationExists(String)
        case notADatabase(String, String)
        case destinationNotEmpty(String, accounts: Int, locations: Int)

        public var description: String {
            switch self {
            case .postgres:
                "This server uses PostgreSQL: back it up with pg_dump (pg_dump -Fc -f onthemap.dump 'postgres://…') and restore with pg_restore."
            case .destinationExists(let path): "\(path) already exists; choose a new file name."
            case .notADatabase(let path, let reason): "\(path) is not an OnTheMap backup: \(reason)."
            case .destinationNotEmpty(let path, let accounts, let locations):
                "\(path) already holds \(accounts) accounts and \(locations) student locations; pass --force to replace them."
            }
        }
    }

    /// The SQLite file a database URL names, nil for PostgreSQL (or a URL that names nothing).
    public static func sqlitePath(of url: String) -> String? {
        guard case .sqlite(let path, _) = try? DatabaseLocation(url: url) else { return nil }
        return path
    }

    /// Writes a consistent copy of the live database to `path` with `VACUUM INTO`: it reads
    /// one snapshot (a read transaction, which WAL mode lets run beside the server's writes)
    /// and writes a compact file. The copy is readable by its owner only.
    public static func backup(_ store: SQLStore, to path: String) async throws {
        guard !store.isPostgres else { throw Failure.postgres }
        guard !FileManager.default.fileExists(atPath: path) else { throw Failure.destinationExists(path) }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // The umask cannot be set per thread, so tighten right after; nothing is written to the
        // file before VACUUM INTO creates it, and the folder is the host's own.
        try await store.withDatabase { db in try await db.raw("VACUUM INTO \(bind: path)").run() }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    /// Rows in the tables a host cares about, to tell an empty database from a used one.
    public static func counts(_ store: SQLStore) async throws -> (accounts: Int, locations: Int) {
        try await store.withDatabase { db in
            let accounts = try await db.raw("SELECT COUNT(*) AS n FROM accounts").first()?.decode(column: "n", as: Int.self) ?? 0
            let locations = try await db.raw("SELECT COUNT(*) AS n FROM student_locations").first()?.decode(column: "n", as: Int.self) ?? 0
            return (accounts, locations)
        }
    }

    /// Replaces the SQLite database at `databasePath` with the backup at `backupPath`, which
    /// is checked (integrity, migrated to this version) on a scratch copy first and then moved
    /// into place in one rename. Refuses to replace a database holding data unless `force`.
    /// Returns the restored database's counts. The server must be stopped.
    @discardableResult
    public static func restore(from backupPath: String, to databasePath: String, force: Bool, logger: Logger) async throws
        -> (accounts: Int, locations: Int)
    {
        let files = FileManager.default
        guard let handle = FileHandle(forReadingAtPath: backupPath) else { throw Failure.notADatabase(backupPath, "no such file") }
        let header = (try? handle.read(upToCount: 16)) ?? nil
        try? handle.close()
        // Every SQLite database file starts with this; anything else is refused before SQLite sees it.
        guard header == Data("SQLite format 3\0".utf8) else { throw Failure.notADatabase(backupPath, "it is not a SQLite database") }
        let scratch = databasePath + ".restoring"
        try? files.removeItem(atPath: scratch)
        try files.createDirectory(
            atPath: URL(fileURLWithPath: databasePath).deletingLastPathComponent().path,
            withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try files.copyItem(atPath: backupPath, toPath: scratch)
        do {
            let restored: (accounts: Int, locations: Int)
            do {
                let store = try await SQLStore.open(url: "sqlite://" + scratch, limits: .unlimited, logger: logger)
                do {
                    let check = try await store.withDatabase { db in
                        try await db.raw("PRAGMA integrity_check").first()?.decode(column: "integrity_check", as: String.self)
                    }
                    guard check == "ok" else { throw Failure.notADatabase(backupPath, "integrity check says \(check ?? "nothing")") }
                    restored = try await counts(store)
                    // Fold the WAL into the file, so the rename below moves everything.
                    try await store.withDatabase { db in try await db.raw("PRAGMA wal_checkpoint(TRUNCATE)").run() }
                } catch {
                    try? await store.close()
                    throw error
                }
                try await store.close()
            } catch let failure as Failure {
                throw failure
            } catch {
                throw Failure.notADatabase(backupPath, "\(error)")
            }
            if files.fileExists(atPath: databasePath), !force {
                let store = try await SQLStore.open(url: "sqlite://" + databasePath, limits: .unlimited, logger: logger)
                let existing = try await counts(store)
                try await store.close()
                if existing.accounts > 0 || existing.locations > 0 {
                    throw Failure.destinationNotEmpty(databasePath, accounts: existing.accounts, locations: existing.locations)
                }
            }
            for suffix in ["-wal", "-shm"] {
                try? files.removeItem(atPath: databasePath + suffix)
                try? files.removeItem(atPath: scratch + suffix)
            }
            try files.setAttributes([.posixPermissions: 0o600], ofItemAtPath: scratch)
            if rename(scratch, databasePath) != 0 { throw CocoaError(.fileWriteUnknown) }
            return restored
        } catch {
            for suffix in ["", "-wal", "-shm"] { try? files.removeItem(atPath: scratch + suffix) }
            throw error
        }
    }
}
