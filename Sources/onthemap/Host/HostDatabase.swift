import ArgumentParser
import Foundation
import Logging
import Storage

/// Where the host's commands find the community's database: the same settings, defaults and
/// environment variables as `serve`. These commands open the database directly, so whoever
/// runs them needs what the server has: the data folder (0700) or the PostgreSQL credentials.
struct HostDatabaseOptions: ParsableArguments {
    @Option(help: "Data folder. [env: ONTHEMAP_DATA_DIR] (default: ./onthemap-data)")
    var dataDir: String?
    @Option(help: "Database URL, as for serve. [env: ONTHEMAP_DATABASE_URL] (default: <data-dir>/onthemap.sqlite)")
    var databaseURL: String?

    var dataDirectory: String {
        dataDir ?? ProcessInfo.processInfo.environment["ONTHEMAP_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "onthemap-data"
    }

    var url: String {
        databaseURL ?? ProcessInfo.processInfo.environment["ONTHEMAP_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "sqlite://" + URL(fileURLWithPath: dataDirectory).appendingPathComponent("onthemap.sqlite").path
    }

    /// The SQLite file's path, nil on PostgreSQL.
    var sqlitePath: String? {
        DatabaseBackup.sqlitePath(of: url)
    }

    /// Opens the database, refusing to create a new, empty SQLite file by mistake.
    func open() async throws -> SQLStore {
        if let path = sqlitePath, !FileManager.default.fileExists(atPath: path) {
            throw ValidationError("No database at \(path); pass --data-dir or --database-url.")
        }
        return try await SQLStore.open(url: url, dataDirectory: dataDirectory, limits: .unlimited, logger: Self.quietLogger)
    }

    static let quietLogger: Logger = {
        var logger = Logger(label: "onthemap")
        // Failures reach the user as one line of their own; the pool's log lines would repeat them.
        logger.logLevel = .critical
        return logger
    }()
}

/// Runs `body` with the store open, closing it however `body` ends.
func withHostStore<T>(_ options: HostDatabaseOptions, _ body: (SQLStore) async throws -> T) async throws -> T {
    let store = try await options.open()
    do {
        let result = try await body(store)
        try await store.close()
        return result
    } catch {
        try? await store.close()
        throw error
    }
}

/// `--public-url`: where people reach the server, the origin of the links a host command prints.
struct PublicURLOption: ParsableArguments {
    @Option(help: "Where people reach the server. [env: ONTHEMAP_PUBLIC_URL] (default: http://127.0.0.1:8080)")
    var publicURL: String?

    var origin: String {
        publicURL ?? ProcessInfo.processInfo.environment["ONTHEMAP_PUBLIC_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? "http://127.0.0.1:8080"
    }
}
