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
    @Option(
        help:
            "Where people reach the server. [env: ONTHEMAP_PUBLIC_URL] (default: the --public-url the server on this data folder started with)"
    )
    var publicURL: String?

    /// The URL given or set in the environment, nil when neither.
    var given: String? {
        publicURL ?? ProcessInfo.processInfo.environment["ONTHEMAP_PUBLIC_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The origin of the links printed for the server on `database`'s data folder: the URL
    /// given, else the `--public-url` that server last started with (`ServerAddress`). With
    /// neither, nothing is printed: a link to 127.0.0.1 or a guessed port would be handed to a
    /// whole class and work for nobody.
    func origin(for database: HostDatabaseOptions) throws -> String {
        if let given { return given }
        if let recorded = ServerAddress.read(dataDirectory: database.dataDirectory) { return recorded }
        throw ValidationError(
            "The link needs --public-url (or ONTHEMAP_PUBLIC_URL): the address students and teachers reach the server at, "
                + "such as https://map.school.example. The server on \(database.dataDirectory) was not started with one.")
    }
}

/// The `--public-url` the server on a data folder last started with: written by `serve`
/// (`<data-dir>/server-address`, removed when it starts without one), read by the host's
/// commands that print links.
enum ServerAddress {
    static func file(_ dataDirectory: String) -> URL {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent("server-address")
    }

    static func record(_ publicOrigin: String?, dataDirectory: String) {
        if let publicOrigin {
            try? Data((publicOrigin + "\n").utf8).write(to: file(dataDirectory), options: .atomic)
        } else {
            try? FileManager.default.removeItem(at: file(dataDirectory))
        }
    }

    static func read(dataDirectory: String) -> String? {
        guard let text = try? String(contentsOf: file(dataDirectory), encoding: .utf8) else { return nil }
        let origin = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: origin), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else { return nil }
        return origin
    }
}
