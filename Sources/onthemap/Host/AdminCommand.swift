import ArgumentParser
import Foundation
import OnTheMapModels
import OnTheMapServer
import Storage

/// `onthemap admin …`: the host's moderation tools, on the database directly (the server may
/// be running). The same actions as the web app's administrator tools.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Moderate the community: list, disable, enable or promote accounts, make reset links, delete posts, run classes.",
        subcommands: [
            Users.self, Disable.self, Enable.self, Promote.self, ResetLink.self, DeleteLocation.self, ClassCommand.self, LTICommand.self,
            MailCommand.self,
        ]
    )

    struct Users: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List every account, oldest first.")
        @OptionGroup var database: HostDatabaseOptions
        @Flag(help: "Print JSON lines instead of a table.") var json = false

        func run() async throws {
            let summaries = try await withHostStore(database) { try await $0.accountSummaries() }
            if json {
                for summary in summaries {
                    let account = summary.account
                    let line: [String: Any] = [
                        "key": account.key, "email": account.email, "first_name": account.firstName, "last_name": account.lastName,
                        "is_admin": account.isAdmin, "disabled": account.disabledAt != nil, "location_count": summary.locationCount,
                        "created_at": ParseDate.string(from: account.createdAt),
                    ]
                    print(
                        String(
                            decoding: try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys, .withoutEscapingSlashes]),
                            as: UTF8.self))
                }
                return
            }
            print("KEY         ROLE     STATE     POSTS  EMAIL  NAME")
            for summary in summaries {
                let account = summary.account
                let role = account.isAdmin ? "admin" : "student"
                let state = account.disabledAt == nil ? "active" : "disabled"
                print(
                    [
                        account.key, role.padding(toLength: 8, withPad: " ", startingAt: 0),
                        state.padding(toLength: 9, withPad: " ", startingAt: 0),
                        String(summary.locationCount).padding(toLength: 6, withPad: " ", startingAt: 0),
                        account.email, "\(account.firstName) \(account.lastName)",
                    ].joined(separator: " "))
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disable an account: its sessions end at once, it cannot log in, its posts are hidden.")
        @Argument(help: "The account's key or email.") var account: String
        @OptionGroup var database: HostDatabaseOptions

        func run() async throws {
            try await withHostStore(database) { store in
                let found = try await findAccount(account, in: store)
                guard case .done(let ended) = try await store.setDisabled(accountKey: found.key, true, now: Date()) else {
                    throw ValidationError(lastAdministratorMessage(found))
                }
                print("Disabled \(found.email) (\(found.key)); \(ended) session\(ended == 1 ? "" : "s") ended.")
            }
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable a disabled account again; its posts are shown again.")
        @Argument(help: "The account's key or email.") var account: String
        @OptionGroup var database: HostDatabaseOptions

        func run() async throws {
            try await withHostStore(database) { store in
                let found = try await findAccount(account, in: store)
                _ = try await store.setDisabled(accountKey: found.key, false, now: Date())
                print("Enabled \(found.email) (\(found.key)).")
            }
        }
    }

    struct Promote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make an account an administrator (--revoke: no longer one).")
        @Argument(help: "The account's key or email.") var account: String
        @Flag(help: "Take the administrator role away instead.") var revoke = false
        @OptionGroup var database: HostDatabaseOptions

        func run() async throws {
            try await withHostStore(database) { store in
                let found = try await findAccount(account, in: store)
                guard case .done = try await store.setAdmin(accountKey: found.key, !revoke) else {
                    throw ValidationError(lastAdministratorMessage(found))
                }
                print("\(found.email) (\(found.key)) is \(revoke ? "no longer" : "now") an administrator.")
            }
        }
    }

    struct ResetLink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-link",
            abstract: "Print a one-time password-reset link (valid 24 hours) to hand to a student.")
        @Argument(help: "The account's key or email.") var account: String
        @OptionGroup var publicURL: PublicURLOption
        @OptionGroup var database: HostDatabaseOptions

        func run() async throws {
            let origin = try publicURL.origin(for: database)
            try await withHostStore(database) { store in
                let found = try await findAccount(account, in: store)
                let link = try await PasswordResetLinks.create(for: found.key, store: store, origin: origin)
                print(link.url)
                FileHandle.standardError.write(Data("One use, until \(ParseDate.string(from: link.expiresAt)), for \(found.email).\n".utf8))
            }
        }
    }

    struct DeleteLocation: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete-location",
            abstract: "Delete any student location; its author sees the reason.")
        @Argument(help: "The location's objectId.") var objectId: String
        @Option(help: "Why, in one line: shown to the author.") var reason: String
        @Option(
            name: .customLong("class"), help: ArgumentHelp("The class the location is in. [env: ONTHEMAP_DEFAULT_CLASS]", valueName: "slug")
        ) var classSlug = hostDefaultClass
        @OptionGroup var database: HostDatabaseOptions

        func run() async throws {
            let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !reason.isEmpty, reason.count <= 500, !reason.contains(where: \.isNewline) else {
                throw ValidationError("Give a --reason of 1 to 500 characters on one line.")
            }
            try await withHostStore(database) { store in
                let mapClass = try await refusalsAsValidation { try await ClassHostTools.find(classSlug, store: store) }
                guard try await store.moderatorDelete(objectId: objectId, in: mapClass.id, reason: reason, moderatorKey: nil, now: Date())
                else {
                    throw ValidationError("There is no student location \(objectId) in the class \(classSlug).")
                }
                print("Deleted \(objectId).")
            }
        }
    }
}

/// Why disabling or demoting this account was refused (it exists: it was just found).
private func lastAdministratorMessage(_ account: Account) -> String {
    "\(account.email) (\(account.key)) is the last enabled administrator: promote another account first."
}

/// An account by key, else by email (as typed at login: case and spaces do not matter).
func findAccount(_ text: String, in store: SQLStore) async throws -> Account {
    if let account = try await store.account(key: text) { return account }
    if let account = try await store.account(email: text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()) {
        return account
    }
    throw ValidationError("No account with the key or email '\(text)'. `onthemap admin users` lists them.")
}
