import ArgumentParser
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

/// The client commands' messages, in the language LC_ALL / LC_MESSAGES / LANG / LANGUAGE ask for.
let say = Translator(Language.preferred(environment: ProcessInfo.processInfo.environment))

/// Exit codes of the client commands.
enum ClientExit {
    static let ok: Int32 = 0
    static let userError: Int32 = 1
    static let network: Int32 = 2
    static let authentication: Int32 = 3
    static let server: Int32 = 4

    static func code(for error: OnTheMapError) -> Int32 {
        switch error.kind {
        case .network: network
        case .authentication: authentication
        case .server: server
        case .request: userError
        }
    }
}

/// A failure the CLI reports as one line on stderr before exiting with `exitCode`.
struct ClientFailure: Error {
    var message: String
    var exitCode: Int32

    static func user(_ message: String) -> ClientFailure { ClientFailure(message: message, exitCode: ClientExit.userError) }
    static func auth(_ message: String) -> ClientFailure { ClientFailure(message: message, exitCode: ClientExit.authentication) }
}

/// Runs a client command's body: any error becomes one line on stderr and an exit code.
func runClient(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let failure as ClientFailure {
        Console.error(failure.message)
        throw ExitCode(failure.exitCode)
    } catch let error as OnTheMapError {
        Console.error(ClientMessages.describe(error))
        throw ExitCode(ClientExit.code(for: error))
    } catch let exit as ExitCode {
        throw exit
    } catch {
        Console.error("\(error)")
        throw ExitCode(ClientExit.userError)
    }
}

/// `--server`, shared by every client command.
struct ServerOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "OnTheMap server URL. [env: ONTHEMAP_SERVER] (default: the logged-in session's server, else http://127.0.0.1:8080)",
            valueName: "url"))
    var server: String?
    @Option(
        name: .customLong("class"),
        help: ArgumentHelp(
            "A class of the server: its map instead of the server's default class. [env: ONTHEMAP_CLASS]", valueName: "slug"))
    var classSlug: String?

    /// Where the class's map is: `server/c/<slug>` with --class (or ONTHEMAP_CLASS), else the server.
    func mapServer(_ server: URL) throws -> URL {
        let environment = ProcessInfo.processInfo.environment["ONTHEMAP_CLASS"].flatMap { $0.isEmpty ? nil : $0 }
        guard let slug = classSlug ?? environment else { return server }
        guard (1...40).contains(slug.count), slug.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) else {
            throw ClientFailure.user(say("cli.server.badClassSlug", ["slug": .text(slug)]))
        }
        return server.appendingPathComponent("c").appendingPathComponent(slug)
    }

    /// Flag, then environment, then the saved session's server, then the default.
    func resolve(saved: StoredSession? = nil) throws -> URL {
        let environment = ProcessInfo.processInfo.environment["ONTHEMAP_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
        let text = server ?? environment ?? saved?.server ?? OnTheMapConfiguration.defaultServer.absoluteString
        return try Self.parse(text)
    }

    static func parse(_ text: String) throws -> URL {
        var text = text.trimmingCharacters(in: .whitespaces)
        if !text.contains("://") { text = "http://" + text }
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme), url.host != nil
        else { throw ClientFailure.user(say("cli.server.badAddress", ["address": .text(text)])) }
        return url
    }
}

/// The SDK's errors in the reader's language; what the server said stays as it said it.
enum ClientMessages {
    static func describe(_ error: OnTheMapError) -> String {
        switch error {
        case .noConnection(let detail): say("cli.error.noConnection", ["detail": .text(detail)])
        case .timedOut: say("cli.error.timedOut")
        case .badCredentials: say("cli.error.badCredentials")
        case .notLoggedIn: say("cli.error.notLoggedIn")
        case .unauthorized(_, let message): say("cli.error.unauthorized", ["message": .text(sentence(message))])
        case .rejected(_, let code?, let message):
            say("cli.error.rejectedCode", ["message": .text(sentence(message)), "code": .text(String(code))])
        case .rejected(_, nil, let message): say("cli.error.rejected", ["message": .text(sentence(message))])
        case .serverFailure(let status, let message?) where !message.isEmpty:
            say("cli.error.serverFailureMessage", ["status": .text(String(status)), "message": .text(sentence(message))])
        case .serverFailure(let status, _): say("cli.error.serverFailure", ["status": .text(String(status))])
        case .unreadableResponse(let detail): say("cli.error.unreadableResponse", ["detail": .text(detail)])
        case .cancelled: say("cli.error.cancelled")
        case .unavailable, .invalidInput: error.errorDescription ?? "\(error)"
        }
    }

    /// The server's text as a sentence (a final full stop added), as the SDK writes it.
    private static func sentence(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let last = trimmed.last else { return say("cli.error.noDetails") }
        return ".!?".contains(last) ? trimmed : trimmed + "."
    }
}

/// The SDK clients for one server, sharing a session.
struct Clients {
    let udacity: UdacityClient
    let locations: StudentLocationClient

    init(server: URL, session: UdacitySession? = nil) {
        let configuration = OnTheMapConfiguration(server: server)
        let (udacity, locations) = StudentLocationClient.clients(configuration: configuration)
        udacity.sessionStore.session = session
        self.udacity = udacity
        self.locations = locations
    }
}

/// Output helpers: data on stdout, messages and prompts on stderr.
enum Console {
    static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    static func error(_ message: String) {
        writeErr("onthemap: " + message.replacingOccurrences(of: "\n", with: " ") + "\n")
    }

    static func writeErr(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    static func out(_ text: String) {
        print(text)
    }

    /// Columns of the terminal on stdout, nil when it is not a terminal.
    static var terminalWidth: Int? {
        guard stdoutIsTerminal else { return nil }
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Asks a question on stderr (when interactive) and reads one line from stdin; nil at EOF.
    static func ask(_ prompt: String) -> String? {
        if stdinIsTerminal { writeErr(prompt) }
        return readLine(strippingNewline: true)
    }

    /// Reads a password: without echo from a terminal, else one line from stdin.
    static func readSecret(_ prompt: String) -> String? {
        guard stdinIsTerminal else { return readLine(strippingNewline: true) }
        writeErr(prompt)
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { return readLine(strippingNewline: true) }
        TerminalRestore.saved = original
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        _ = tcsetattr(STDIN_FILENO, TCSADRAIN, &silent)
        // Ctrl-C while typing must not leave the terminal without echo.
        let previous = signal(SIGINT) { _ in
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &TerminalRestore.saved)
            _exit(130)
        }
        defer {
            _ = tcsetattr(STDIN_FILENO, TCSADRAIN, &original)
            signal(SIGINT, previous)
            writeErr("\n")
        }
        return readLine(strippingNewline: true)
    }
}

/// Terminal settings to restore from a signal handler (which cannot capture context).
enum TerminalRestore {
    nonisolated(unsafe) static var saved = termios()
}
