import Foundation
import Logging
import PostgresKit

/// Which database the server test suites run on. By default each test's server keeps a
/// SQLite file in its own temporary data directory. With `ONTHEMAP_TEST_POSTGRES_URL` set
/// (`bash Scripts/with-postgres.sh swift test`), every server suite runs on PostgreSQL
/// instead, each data directory getting a schema of its own named after it, so a test that
/// restarts a server on the same directory finds the same data.
public enum TestDatabases {
    /// Logs at this level and above reach the test output: `critical` unless `TEST_LOG_LEVEL`
    /// says otherwise, because many tests provoke failures on purpose and their error lines
    /// would bury real ones. `TEST_LOG_LEVEL=debug swift test --filter X` shows everything.
    public static let logLevel: Logger.Level =
        ProcessInfo.processInfo.environment["TEST_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .critical

    /// A logger for tests, at `logLevel`.
    public static func logger(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = logLevel
        return logger
    }

    public static var postgresServerURL: String? {
        ProcessInfo.processInfo.environment["ONTHEMAP_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The database URL for a server whose data directory is `directory`; nil means the
    /// server's default (SQLite in the data directory).
    public static func databaseURL(forDataDirectory directory: URL) -> String? {
        guard let server = postgresServerURL else { return nil }
        let name = directory.standardizedFileURL.lastPathComponent.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }
        return databaseURL(schema: "t_" + String(String(name).suffix(60)), on: server)
    }

    /// The test server's URL with the tables kept in `schema`.
    public static func databaseURL(schema: String, on server: String) -> String {
        server + (server.contains("?") ? "&" : "?") + "schema=" + schema
    }

    /// Runs one statement on the test server (not in any test's schema), for tests that
    /// act on PostgreSQL itself: dropping a schema, ending another connection.
    public static func execute(_ sql: String) async throws {
        guard let server = postgresServerURL else { throw TestDatabaseError("ONTHEMAP_TEST_POSTGRES_URL is not set") }
        let configuration = try SQLPostgresConfiguration(url: server)
        let connection = try await PostgresConnection.connect(
            configuration: configuration.coreConfiguration, id: 1, logger: Logger(label: "test-admin"))
        do {
            try await connection.sql().raw("\(unsafeRaw: sql)").run()
        } catch {
            try? await connection.close()
            // PostgresNIO's errors hide their details unless asked; a failing test shows them.
            throw TestDatabaseError(String(reflecting: error))
        }
        try await connection.close()
    }
}

public struct TestDatabaseError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
