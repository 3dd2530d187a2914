@preconcurrency import AsyncKit
import Foundation
import Logging
import NIOCore
import SQLiteKit
import SQLKit
import SQLiteNIO

/// Opens SQLite connections configured for a server: WAL so readers never wait for the
/// writer, a busy timeout instead of instant SQLITE_BUSY, foreign keys, and the
/// `onthemap_regexp` function that Parse `$regex` queries need (SQLite has no regex built in).
struct ServerSQLiteSource: ConnectionPoolSource {
    let base: SQLiteConnectionSource

    init(path: String) {
        base = SQLiteConnectionSource(configuration: .init(storage: .file(path: path), enableForeignKeys: true))
    }

    func makeConnection(logger: Logger, on eventLoop: any EventLoop) -> EventLoopFuture<SQLiteConnection> {
        base.makeConnection(logger: logger, on: eventLoop).flatMap { connection in
            connection.eventLoop.makeFutureWithTask {
                for pragma in ["PRAGMA journal_mode = WAL", "PRAGMA busy_timeout = 5000", "PRAGMA synchronous = NORMAL"] {
                    _ = try await connection.query(pragma)
                }
                try await connection.install(customFunction: RegexFunction.sqliteFunction)
                return connection
            }
        }
    }
}

/// `onthemap_regexp(pattern, flags, value)`: 1 when `value` matches. Compiled patterns are
/// cached because SQLite calls the function once per row scanned.
public enum RegexFunction {
    static let sqliteFunction = SQLiteCustomFunction("onthemap_regexp", argumentCount: 3, pure: true) { arguments in
        guard let pattern = arguments[0].string, let value = arguments[2].string else { return 0 }
        guard let regex = cache.regex(pattern, options: arguments[1].string ?? "") else { return 0 }
        let range = NSRange(value.startIndex..., in: value)
        return regex.firstMatch(in: value, range: range) == nil ? 0 : 1
    }

    /// The `$regex` condition on SQLite.
    @Sendable static func sqliteCondition(column: String, pattern: String, options: String) -> SQLQueryString {
        "onthemap_regexp(\(bind: pattern), \(bind: options), \(ident: column)) = 1"
    }

    static let cache = RegexCache()

    /// Parse's `$options` letters, as NSRegularExpression options.
    public static func options(from flags: String) -> NSRegularExpression.Options {
        var options: NSRegularExpression.Options = []
        if flags.contains("i") { options.insert(.caseInsensitive) }
        if flags.contains("m") { options.insert(.anchorsMatchLines) }
        if flags.contains("x") { options.insert(.allowCommentsAndWhitespace) }
        if flags.contains("s") { options.insert(.dotMatchesLineSeparators) }
        return options
    }

    final class RegexCache: @unchecked Sendable {
        private let lock = NSLock()
        private var compiled: [String: NSRegularExpression] = [:]

        func regex(_ pattern: String, options: String) -> NSRegularExpression? {
            let key = options + ":" + pattern
            lock.lock()
            defer { lock.unlock() }
            if let regex = compiled[key] { return regex }
            guard let regex = try? NSRegularExpression(pattern: pattern, options: RegexFunction.options(from: options)) else {
                return nil
            }
            if compiled.count > 256 { compiled.removeAll() }
            compiled[key] = regex
            return regex
        }
    }
}
