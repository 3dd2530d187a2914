import Foundation
import Localization
import OnTheMapKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `onthemap login` remembers, in `session.json` (mode 0600).
struct StoredSession: Codable, Equatable {
    var server: String
    var sessionID: String
    var accountKey: String
    /// ISO-8601 (Parse format), nil when the server gave none.
    var expiration: String?
    var xsrfToken: String?
    var email: String?
    var firstName: String?
    var lastName: String?

    init(server: URL, session: UdacitySession, email: String?, user: UdacityUser?) {
        self.server = server.absoluteString
        sessionID = session.sessionID
        accountKey = session.accountKey
        expiration = session.expiration.map(ParseDate.string(from:))
        xsrfToken = session.xsrfToken
        self.email = email
        firstName = user?.firstName
        lastName = user?.lastName
    }

    var expirationDate: Date? { expiration.flatMap(ParseDate.date(from:)) }

    var udacitySession: UdacitySession {
        UdacitySession(accountKey: accountKey, sessionID: sessionID, expiration: expirationDate, xsrfToken: xsrfToken)
    }

    var displayName: String {
        let name = [firstName, lastName].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        return name.isEmpty ? (email ?? say("cli.session.accountName", ["key": .text(accountKey)])) : name
    }
}

/// The session file: `$XDG_CONFIG_HOME/onthemap/session.json`, else
/// `~/.config/onthemap/session.json`.
enum SessionFile {
    static var directory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("onthemap", isDirectory: true)
        }
        let home =
            environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home, isDirectory: true)
            .appendingPathComponent(".config/onthemap", isDirectory: true)
    }

    static var url: URL { directory.appendingPathComponent("session.json") }

    static func load() throws -> StoredSession? {
        let url = self.url
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            return try JSONDecoder().decode(StoredSession.self, from: Data(contentsOf: url))
        } catch {
            throw ClientFailure.auth(say("cli.session.unreadable", ["path": .text(url.path)]))
        }
    }

    /// The saved session, or an authentication failure telling the user to log in.
    static func require() throws -> StoredSession {
        guard let stored = try load() else {
            throw ClientFailure.auth(say("cli.session.required"))
        }
        if let expiration = stored.expirationDate, expiration <= Date() {
            throw ClientFailure.auth(say("cli.session.expired", ["when": .text(RelativeTime.describe(expiration))]))
        }
        return stored
    }

    /// Writes the file readable by its owner only (directory 0700, file 0600), atomically.
    static func save(_ session: StoredSession) throws {
        let directory = self.directory
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw ClientFailure.user(
                say("cli.session.cannotCreate", ["path": .text(directory.path), "error": .text(error.localizedDescription)]))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = (try? encoder.encode(session)) ?? Data()
        let temporary = directory.appendingPathComponent(".session.\(getpid()).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else {
            throw ClientFailure.user(
                say("cli.session.cannotWrite", ["path": .text(temporary.path), "error": .text(String(cString: strerror(errno)))]))
        }
        _ = fchmod(fd, 0o600)
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == data.count, rename(temporary.path, url.path) == 0 else {
            unlink(temporary.path)
            throw ClientFailure.user(
                say("cli.session.cannotWrite", ["path": .text(url.path), "error": .text(String(cString: strerror(errno)))]))
        }
    }

    static func delete() {
        unlink(url.path)
    }
}
