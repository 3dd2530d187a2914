import ArgumentParser
import Foundation
import Logging
import Storage

/// `onthemap copy-database`: moves a community's data to another database, typically from
/// the embedded SQLite file to PostgreSQL. Photo files are not in the database: keep the
/// same `--data-dir` when serving from the new database.
struct CopyDatabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy-database",
        abstract: "Copy every account, session, student location, pin and photo record into a new, empty database.",
        discussion: """
            Stop the server first. The destination is created and migrated if needed and must hold \
            no data; it is written in one transaction, so a failure leaves it empty. Example:
              onthemap copy-database --to 'postgres://onthemap:secret@db.example/onthemap'
            """
    )

    @Option(help: "Database to copy from. (default: <data-dir>/onthemap.sqlite)")
    var from: String?
    @Option(help: "Database to copy into: postgres://user:password@host:port/database, or sqlite:///path/file.sqlite.")
    var to: String
    @Option(help: "Data folder of the source when --from is not given. [env: ONTHEMAP_DATA_DIR] (default: ./onthemap-data)")
    var dataDir: String?

    func run() async throws {
        let dataDirectory =
            dataDir ?? ProcessInfo.processInfo.environment["ONTHEMAP_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "onthemap-data"
        let source = from ?? "sqlite://" + URL(fileURLWithPath: dataDirectory).appendingPathComponent("onthemap.sqlite").path
        if from == nil, !FileManager.default.fileExists(atPath: String(source.dropFirst("sqlite://".count))) {
            throw ValidationError("No database at \(source); pass --from or --data-dir.")
        }
        guard source != to else { throw ValidationError("--from and --to name the same database.") }
        var logger = Logger(label: "onthemap")
        logger.logLevel = .error
        let sourceStore = try await SQLStore.open(url: source, dataDirectory: dataDirectory, limits: .unlimited, logger: logger)
        do {
            let destination = try await SQLStore.open(url: to, dataDirectory: dataDirectory, limits: .unlimited, logger: logger)
            do {
                let copied = try await DatabaseCopy.copy(from: sourceStore, to: destination)
                for (table, rows) in copied { print("\(table): \(rows) rows") }
                print(
                    "Copied into \(SQLStore.redactedDatabaseURL(to)). Serve from it with --database-url and the same --data-dir (photo files stay there)."
                )
            } catch {
                try? await destination.close()
                throw error
            }
            try await destination.close()
        } catch {
            try? await sourceStore.close()
            throw error
        }
        try await sourceStore.close()
    }
}
