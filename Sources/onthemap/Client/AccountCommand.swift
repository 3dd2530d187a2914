import ArgumentParser
import Foundation
import OnTheMapKit

/// `onthemap account export|delete`: your own data on the server you are logged in to.
struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Download everything the server holds about you, or delete your account.",
        subcommands: [Export.self, Delete.self]
    )

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write your data (account, classes, locations, Travel, sign-in links, reports) as one JSON document.")
        @OptionGroup var serverOptions: ServerOptions
        @Option(help: "File to write (default: standard output).") var to: String?

        func run() async throws {
            try await runClient {
                let stored = try SessionFile.require()
                let data = try await MyDataClient.signedIn(stored, serverOptions).download()
                if let to {
                    try data.write(to: URL(fileURLWithPath: to), options: .atomic)
                    Console.writeErr("onthemap: wrote your data to \(to)\n")
                } else {
                    FileHandle.standardOutput.write(data)
                }
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete your account and everything of it: your locations in every class, Travel pins and photos, sessions.",
            discussion: "Your password confirms it: read without echo from a terminal, or as one line from standard input.")
        @OptionGroup var serverOptions: ServerOptions

        func run() async throws {
            try await runClient {
                let stored = try SessionFile.require()
                let who = stored.email ?? "account \(stored.accountKey)"
                guard let password = Console.readSecret("Password for \(who) (your account and all its data will be deleted): "),
                      !password.isEmpty else {
                    throw ClientFailure.user("Your password is needed to delete your account; nothing was deleted.")
                }
                try await MyDataClient.signedIn(stored, serverOptions).deleteAccount(password: password)
                SessionFile.delete()
                Console.out("Deleted \(who) and all its data.")
            }
        }
    }
}

extension MyDataClient {
    /// The client for the saved session's server (or `--server`).
    static func signedIn(_ stored: StoredSession, _ options: ServerOptions) throws -> MyDataClient {
        MyDataClient(configuration: OnTheMapConfiguration(server: try options.resolve(saved: stored)), sessionStore: SessionStore(stored.udacitySession))
    }
}
