import ArgumentParser
import Foundation
import Localization
import OnTheMapKit

/// `onthemap account export|name|delete`: your own data on the server you are logged in to.
struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Download everything the server holds about you, change your name, or delete your account.",
        subcommands: [Export.self, Name.self, Delete.self]
    )

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Write your data (account, classes, locations, Travel, sign-in links, reports) as one JSON document, or with --zip as a zip with a page anyone can read and your photos."
        )
        @OptionGroup var serverOptions: ServerOptions
        @Option(help: "File to write (default: standard output).") var to: String?
        @Flag(help: "A zip: a readable page (index.html), your Travel photos, and the JSON and GeoJSON.") var zip = false

        func run() async throws {
            try await runClient {
                let stored = try SessionFile.require()
                let client = try MyDataClient.signedIn(stored, serverOptions)
                let data = zip ? try await client.downloadArchive() : try await client.download()
                if let to {
                    try data.write(to: URL(fileURLWithPath: to), options: .atomic)
                    Console.writeErr("onthemap: " + say("cli.account.wrote", ["path": .text(to)]) + "\n")
                } else {
                    FileHandle.standardOutput.write(data)
                }
            }
        }
    }

    struct Name: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change your first and last name; your pin in every class shows the new name at once.")
        @OptionGroup var serverOptions: ServerOptions
        @Argument(help: "Your first name.") var first: String
        @Argument(help: "Your last name.") var last: String

        func run() async throws {
            try await runClient {
                let stored = try SessionFile.require()
                let names = try await MyDataClient.signedIn(stored, serverOptions).rename(firstName: first, lastName: last)
                Console.out(say("cli.account.renamed", ["name": .text("\(names.firstName) \(names.lastName)")]))
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
                let who = stored.email ?? say("cli.session.accountName", ["key": .text(stored.accountKey)])
                guard let password = Console.readSecret(say("cli.account.deletePrompt", ["who": .text(who)])),
                    !password.isEmpty
                else {
                    throw ClientFailure.user(say("cli.account.passwordNeeded"))
                }
                try await MyDataClient.signedIn(stored, serverOptions).deleteAccount(password: password)
                SessionFile.delete()
                Console.out(say("cli.account.deleted", ["who": .text(who)]))
            }
        }
    }
}

extension MyDataClient {
    /// The client for the saved session's server (or `--server`).
    static func signedIn(_ stored: StoredSession, _ options: ServerOptions) throws -> MyDataClient {
        MyDataClient(
            configuration: OnTheMapConfiguration(server: try options.resolve(saved: stored)),
            sessionStore: SessionStore(stored.udacitySession))
    }
}
