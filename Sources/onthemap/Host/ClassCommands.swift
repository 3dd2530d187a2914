import ArgumentParser
import Foundation
import OnTheMapModels
import OnTheMapServer
import Storage

extension MapClass.Visibility: ExpressibleByArgument {}
extension MapClass.JoinRule: ExpressibleByArgument {}
extension ClassRole: ExpressibleByArgument {}
extension MapClass.Precision: ExpressibleByArgument {}
extension MapClass.Approval: ExpressibleByArgument {}

/// `onthemap admin class …`: classes on the database directly, like the other host commands.
struct ClassCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "class",
        abstract: "Create and change classes, add members, print a class's invite link.",
        subcommands: [List.self, Create.self, Set.self, AddMember.self, InviteLink.self, Archive.self, Delete.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List every class with its members and locations.")
        @OptionGroup var database: HostDatabaseOptions

        func run() async throws {
            let summaries = try await withHostStore(database) { try await $0.classSummaries() }
            // Slugs are up to 40 characters (a course's class has a long one): the column fits the longest.
            let width = max(20, summaries.map(\.mapClass.slug.count).max() ?? 0)
            print("SLUG".padding(toLength: width, withPad: " ", startingAt: 0) + " VISIBILITY JOIN    PRECISION MEMBERS LOCATIONS NAME")
            for summary in summaries {
                let c = summary.mapClass
                print(
                    [
                        c.slug.padding(toLength: width, withPad: " ", startingAt: 0),
                        c.visibility.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0),
                        c.joinRule.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0),
                        c.precision.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0),
                        String(summary.memberCount).padding(toLength: 7, withPad: " ", startingAt: 0),
                        String(summary.locationCount).padding(toLength: 9, withPad: " ", startingAt: 0), c.name,
                    ].joined(separator: " "))
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a class; its map is at /c/SLUG.")
        @Argument(help: "2 to 40 of a-z, 0-9 and -.") var slug: String
        @Option(help: "The name people see (default: the slug).") var name: String?
        @Option(help: "members, server or public.") var visibility: MapClass.Visibility = MapClass.NewClass.visibility
        @Option(help: "invite, open or closed.") var join: MapClass.JoinRule = MapClass.NewClass.joinRule
        @Option(help: "exact, city, region or country: where students appear (the exact point is never kept below exact).")
        var precision: MapClass.Precision = MapClass.NewClass.precision
        @Option(help: "off, new-members or all: which posts wait for a moderator's approval.")
        var approval: MapClass.Approval = MapClass.NewClass.approval
        @OptionGroup var database: HostDatabaseOptions

        func run() async throws {
            try await withHostStore(database) { store in
                let made = try await refusalsAsValidation {
                    try await ClassHostTools.create(
                        slug: slug, name: name, visibility: visibility, join: join, precision: precision,
                        approval: approval, store: store)
                }
                print("Created the class \(made.slug) (\(made.visibility.rawValue), join: \(made.joinRule.rawValue)).")
                print("Add its teacher: onthemap admin class add-member \(made.slug) EMAIL --role teacher")
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a class's name, visibility or join rule.")
        @Argument var slug: String
        @Option var name: String?
        @Option(help: "members, server or public.") var visibility: MapClass.Visibility?
        @Option(help: "invite, open or closed.") var join: MapClass.JoinRule?
        @Option(help: "exact, city, region or country; a coarser level coarsens the class's posts at once.")
        var precision: MapClass.Precision?
        @Option(help: "off, new-members or all: which posts wait for a moderator's approval.")
        var approval: MapClass.Approval?
        @OptionGroup var database: HostDatabaseOptions

        func run() async throws {
            try await withHostStore(database) { store in
                let current = try await refusalsAsValidation { try await ClassHostTools.find(slug, store: store) }
                var changes = ClassChanges(now: Date())
                if let name { changes.name = try await refusalsAsValidation { try ClassHostTools.checkedName(name) } }
                changes.visibility = visibility
                changes.approval = approval
                changes.precision = precision
                if let join {
                    changes.joinRule = join
                    if join == .invite { changes.inviteCodeIfNone = Tokens.randomHex(bytes: 12) }
                }
                let (found, moved) = try await refusalsAsValidation { try await ClassHostTools.change(current, changes, store: store) }
                if let precision, moved > 0 { print("Moved \(moved) location\(moved == 1 ? "" : "s") to their \(precision.rawValue).") }
                print(
                    "\(found.slug): \(found.visibility.rawValue), join: \(found.joinRule.rawValue), precision: \(found.precision.rawValue), approval: \(found.approval.rawValue), name: \(found.name)."
                )
            }
        }
    }

    struct AddMember: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-member", abstract: "Add an account to a class, or change its role there.")
        @Argument var slug: String
        @Argument(help: "The account's email or key.") var account: String
        @Option(help: "teacher, moderator or student.") var role: ClassRole
        @OptionGroup var database: HostDatabaseOptions

        func run() async throws {
            try await withHostStore(database) { store in
                let found = try await refusalsAsValidation { try await ClassHostTools.find(slug, store: store) }
                let member = try await findAccount(account, in: store)
                try await refusalsAsValidation { try await ClassHostTools.setRole(role, accountKey: member.key, in: found, store: store) }
                print("\(member.email) is a \(role.rawValue) of \(found.slug).")
            }
        }
    }

    struct InviteLink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "invite-link", abstract: "Print a class's invite link (--new: replace it; --revoke: no link works).")
        @Argument var slug: String
        @Flag(help: "Make a new link; the old one stops working.") var new = false
        @Flag(help: "Stop the current link without making another.") var revoke = false
        @OptionGroup var publicURL: PublicURLOption
        @OptionGroup var database: HostDatabaseOptions

        func run() async throws {
            let origin = try publicURL.origin(for: database)
            try await withHostStore(database) { store in
                var found = try await refusalsAsValidation { try await ClassHostTools.find(slug, store: store) }
                if new || revoke {
                    found = try await ClassHostTools.newInvite(for: found, revoke: revoke, store: store)
                }
                guard let link = ClassHostTools.inviteLink(found, origin: origin) else {
                    print(revoke ? "\(found.slug) has no invite link now." : "\(found.slug) has no invite link; --new makes one.")
                    return
                }
                print(link)
                if found.joinRule != .invite {
                    FileHandle.standardError.write(
                        Data("Note: \(found.slug) joins by '\(found.joinRule.rawValue)', so the link is not needed to join.\n".utf8))
                }
            }
        }
    }
}

extension ClassCommand {
    struct Archive: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Archive a class at the end of term: its map stays, read-only for everyone (--undo opens it again).")
        @Argument var slug: String
        @Flag(help: "Open an archived class again.") var undo = false
        @OptionGroup var database: HostDatabaseOptions

        func run() async throws {
            try await withHostStore(database) { store in
                let current = try await refusalsAsValidation { try await ClassHostTools.find(slug, store: store) }
                var changes = ClassChanges(now: Date())
                changes.archived = !undo
                let found = try await refusalsAsValidation { try await ClassHostTools.change(current, changes, store: store) }.mapClass
                print(undo ? "\(found.slug) is open again." : "\(found.slug) is archived: its map is read-only.")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a class for good: its locations, roster, reports and invite link.")
        @Argument var slug: String
        @Option(help: "The slug again, to confirm.") var confirm: String
        @OptionGroup var database: HostDatabaseOptions

        func run() async throws {
            guard confirm == slug else { throw ValidationError("Give --confirm \(slug) to delete the class \(slug) and its map for good.") }
            try await withHostStore(database) { store in
                let found = try await refusalsAsValidation { try await ClassHostTools.find(slug, store: store) }
                guard found.slug != hostDefaultClass else {
                    throw ValidationError("\(found.slug) is the server's default class; archive it instead.")
                }
                _ = try await store.deleteClass(id: found.id)
                print("Deleted the class \(found.slug) and its map.")
            }
        }
    }
}

/// Runs `body`, turning the server's refusals into the command line's own errors.
func refusalsAsValidation<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let refused as ClassHostTools.Refused {
        throw ValidationError(refused.description)
    }
}

/// The class host commands act on when none is named: the server's default class, as
/// `serve` takes it from ONTHEMAP_DEFAULT_CLASS, else `main`.
var hostDefaultClass: String {
    ProcessInfo.processInfo.environment["ONTHEMAP_DEFAULT_CLASS"].flatMap { $0.isEmpty ? nil : $0 } ?? "main"
}
