import Foundation
import PostgresKit

/// Where the data lives, read from a database URL:
/// - `sqlite:///abs/path.sqlite`, `sqlite://relative/path.sqlite` or a plain file path, with
///   `?synchronous=normal` to trade the last writes before a power loss for write speed;
/// - `postgres://user:password@host:port/database` (also `postgresql://`, `postgres+uds://`),
///   with PostgresKit's `sslmode`/`tlsmode`, plus `schema=NAME` to keep the tables in a
///   schema of their own (created when missing) instead of `public`.
enum DatabaseLocation {
    case sqlite(path: String, synchronous: SQLiteSynchronous)
    case postgres(SQLPostgresConfiguration, schema: String?)

    init(url: String) throws {
        if url.hasPrefix("sqlite://") || !url.contains("://") {
            var path = url.hasPrefix("sqlite://") ? String(url.dropFirst("sqlite://".count)) : url
            var synchronous = SQLiteSynchronous.full
            if let mark = path.lastIndex(of: "?") {
                let query = path[path.index(after: mark)...]
                path = String(path[..<mark])
                for item in query.split(separator: "&") {
                    guard item.hasPrefix("synchronous="),
                        let value = SQLiteSynchronous(rawValue: item.dropFirst("synchronous=".count).lowercased())
                    else {
                        throw StorageError.invalidDatabaseURL(url, "the only SQLite setting is synchronous=full or synchronous=normal")
                    }
                    synchronous = value
                }
            }
            guard !path.isEmpty else { throw StorageError.unsupportedDatabaseURL(Self.redacted(url)) }
            self = .sqlite(path: path, synchronous: synchronous)
            return
        }
        let scheme = url.prefix(while: { $0 != ":" }).lowercased()
        guard ["postgres", "postgresql", "postgres+tcp", "postgresql+tcp", "postgres+uds", "postgresql+uds"].contains(scheme),
            var components = URLComponents(string: url)
        else { throw StorageError.unsupportedDatabaseURL(Self.redacted(url)) }
        let schema = components.queryItems?.last(where: { $0.name == "schema" })?.value
        if let schema, !Self.isPlainIdentifier(schema) {
            throw StorageError.invalidDatabaseURL(
                Self.redacted(url), "schema must be lower-case letters, digits and _, at most 63 characters")
        }
        components.queryItems = components.queryItems?.filter { $0.name != "schema" }
        if components.queryItems?.isEmpty == true { components.queryItems = nil }
        guard let remaining = components.url else { throw StorageError.unsupportedDatabaseURL(Self.redacted(url)) }
        do {
            var configuration = try SQLPostgresConfiguration(url: remaining)
            if let schema { configuration.searchPath = [schema] }
            self = .postgres(configuration, schema: schema)
        } catch {
            // PostgresKit's URL errors say little; name what is usually missing.
            throw StorageError.invalidDatabaseURL(Self.redacted(url), "expected postgres://user[:password]@host[:port]/database")
        }
    }

    /// The URL with its password replaced, fit for errors and logs.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }

    /// A schema name that needs no quoting anywhere.
    static func isPlainIdentifier(_ text: String) -> Bool {
        guard let first = text.utf8.first, text.utf8.count <= 63, !(0x30...0x39).contains(first) else { return false }
        return text.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }
    }
}

/// How SQLite syncs its write-ahead log. `full` (the default) syncs on every commit, so an
/// acknowledged write survives a power loss; `normal` syncs only at checkpoints: the file stays
/// intact but the last commits before a power loss may be gone (never on a process crash).
public enum SQLiteSynchronous: String, Sendable {
    case full, normal
}
