import ArgumentParser
import Foundation
import Localization
import OnTheMapKit

/// `onthemap login`: asks for the password without echo and saves the session.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log in and remember the session for the other client commands.",
        discussion: """
            The password is read without echo from a terminal, or as one line from standard \
            input when that is not a terminal (e.g. `printf '%s\\n' "$PW" | onthemap login --email E`). \
            The session is saved in $XDG_CONFIG_HOME/onthemap/session.json (else \
            ~/.config/onthemap/session.json), readable by you only.
            """
    )

    @OptionGroup var serverOptions: ServerOptions
    @Option(help: "Account email (asked for when missing).")
    var email: String?
    @Option(
        help: ArgumentHelp(
            "Sign in through the browser with this provider instead of a password (an id from the server's login page, e.g. school or facebook). The address to open is printed; it is opened too when a browser can be.",
            valueName: "name"))
    var provider: String?
    @Flag(help: "With --provider: only print the address, do not open a browser.")
    var noBrowser = false

    func run() async throws {
        try await runClient {
            let server = try serverOptions.resolve()
            if let provider {
                let (session, email) = try await ProviderLogin.run(server: server, provider: provider, openBrowser: !noBrowser)
                let clients = Clients(server: server, session: session)
                let user = try? await clients.udacity.userData(accountKey: session.accountKey)
                let stored = StoredSession(server: server, session: session, email: email, user: user)
                try SessionFile.save(stored)
                Console.out(
                    say(
                        "cli.login.doneProvider",
                        [
                            "server": .text(server.absoluteString),
                            "name": .text(TextCleaning.printable(stored.displayName)), "provider": .text(provider),
                        ]))
                return
            }
            var email = self.email ?? Console.ask(say("cli.login.emailPrompt")) ?? ""
            email = email.trimmingCharacters(in: .whitespaces)
            guard !email.isEmpty else { throw ClientFailure.user(say("cli.login.emailNeeded")) }
            guard let password = Console.readSecret(say("cli.login.passwordPrompt", ["email": .text(email)])), !password.isEmpty else {
                throw ClientFailure.user(say("cli.login.passwordNeeded"))
            }
            let clients = Clients(server: server)
            let session = try await clients.udacity.login(email: email, password: password)
            // Names go on posted locations; a failure here must not undo the login.
            let user = try? await clients.udacity.userData(accountKey: session.accountKey)
            let stored = StoredSession(server: server, session: session, email: email, user: user)
            try SessionFile.save(stored)
            var arguments: [String: MessageArgument] = [
                "server": .text(server.absoluteString),
                "name": .text(TextCleaning.printable(stored.displayName)),
            ]
            if let expiration = session.expiration {
                arguments["when"] = .text(RelativeTime.describe(expiration))
                Console.out(say("cli.login.doneExpires", arguments))
            } else {
                Console.out(say("cli.login.done", arguments))
            }
        }
    }
}

/// `onthemap logout`: ends the session on the server and deletes the session file.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "End the saved session and forget it.")

    @OptionGroup var serverOptions: ServerOptions

    func run() async throws {
        try await runClient {
            guard let stored = try? SessionFile.load() else {
                SessionFile.delete()
                Console.out(say("cli.logout.notLoggedIn"))
                return
            }
            let clients = Clients(server: try serverOptions.resolve(saved: stored), session: stored.udacitySession)
            // The local file goes in every case: the user asked to be logged out here.
            SessionFile.delete()
            do throws(OnTheMapError) {
                try await clients.udacity.logout()
            } catch {
                throw ClientFailure(
                    message: say("cli.logout.serverFailed", ["error": .text(ClientMessages.describe(error))]),
                    exitCode: ClientExit.code(for: error))
            }
            Console.out(say("cli.logout.done"))
        }
    }
}

/// `onthemap whoami`: who the saved session belongs to.
struct WhoamiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami", abstract: "Show who is logged in, on which server, until when.")

    func run() async throws {
        try await runClient {
            let stored = try SessionFile.require()
            var lines = [
                say(
                    "cli.whoami.account",
                    [
                        "name": .text(TextCleaning.printable(stored.displayName)),
                        "key": .text(stored.accountKey),
                    ])
            ]
            if let email = stored.email, email != stored.displayName { lines.append(say("cli.whoami.email", ["email": .text(email)])) }
            lines.append(say("cli.whoami.server", ["server": .text(stored.server)]))
            if let expiration = stored.expirationDate {
                lines.append(
                    say(
                        "cli.whoami.expires",
                        [
                            "when": .text(RelativeTime.describe(expiration)),
                            "date": .text(stored.expiration ?? ""),
                        ]))
            }
            Console.out(lines.joined(separator: "\n"))
        }
    }
}
