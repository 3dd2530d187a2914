import ArgumentParser
import Foundation
import OnTheMapServer
import Storage

/// `onthemap admin lti …`: the learning platforms this server is an LTI 1.3 tool for.
struct LTICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lti",
        abstract: "Register learning platforms (Moodle, Canvas, …) that open class maps from their courses.",
        subcommands: [AddPlatform.self, Set.self, List.self, Remove.self, RotateKey.self, RegistrationLink.self]
    )

    struct AddPlatform: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-platform",
            abstract: "Register a platform by hand (for platforms without dynamic registration); prints its id.")
        @Option(help: "The platform's issuer (Canvas: https://canvas.instructure.com; Moodle: the site's address).") var issuer: String
        @Option(help: "The client id the platform gave OnTheMap.") var clientID: String
        @Option(help: "The platform's authentication request URL (OIDC auth endpoint).") var authURL: String
        @Option(help: "The platform's access token URL.") var tokenURL: String
        @Option(help: "The platform's public keyset URL.") var jwksURL: String
        @Option(help: "A deployment id the platform gave (repeatable; without any, the first to launch is recorded).")
        var deploymentId: [String] = []
        @Option(help: "The name hosts see (default: the issuer's host).") var name: String?
        @Flag(help: "The platform vouches for its users' emails: a launch may sign in to an existing account with that email.")
        var trustEmail = false
        @Option(
            help:
                "The address of the platform's course pages, when not its issuer's (Canvas, Blackboard: the school's own address). Repeatable."
        )
        var frameOrigin: [String] = []
        @Option(
            help:
                "The audience the token endpoint expects in the tool's signed request (default: the token URL; Brightspace names its own).")
        var tokenAudience: String?
        @OptionGroup var database: HostDatabaseOptions

        func run() async throws {
            try await withHostStore(database) { store in
                let platform = try await ltiRefusalsAsValidation {
                    try await LTIHostTools.addPlatform(
                        issuer: issuer, clientID: clientID, authURL: authURL, tokenURL: tokenURL, jwksURL: jwksURL,
                        deploymentIDs: deploymentId, name: name, trustEmail: trustEmail, tokenAudience: tokenAudience,
                        frameOrigins: frameOrigin, store: store)
                }
                print(platform.id)
                FileHandle.standardError.write(
                    Data("Registered \(platform.name) (issuer \(platform.issuer), client id \(platform.clientID)).\n".utf8))
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a registration: trust in emails, more deployments or course-page addresses, the token audience.")
        @Argument var id: String
        @Flag(inversion: .prefixedNo, help: "Whether the platform vouches for its users' emails.") var trustEmail: Bool?
        @Option(help: "Another deployment id to accept (repeatable).") var deploymentId: [String] = []
        @Option(help: "Another address of the platform's course pages (repeatable).") var frameOrigin: [String] = []
        @Option(help: "The token endpoint's audience (empty: the token URL).") var tokenAudience: String?
        @OptionGroup var database: HostDatabaseOptions

        func run() async throws {
            try await withHostStore(database) { store in
                let platform = try await ltiRefusalsAsValidation {
                    try await LTIHostTools.change(
                        id: id, trustEmail: trustEmail, addDeployments: deploymentId, addFrameOrigins: frameOrigin,
                        tokenAudience: tokenAudience, store: store)
                }
                print(
                    "\(platform.id): trust email \(platform.trustEmail ? "yes" : "no"); deployments \(platform.deploymentIDs.joined(separator: ", ")); course pages \(platform.frameOrigins.joined(separator: " "))"
                )
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the registered platforms.")
        @OptionGroup var database: HostDatabaseOptions

        func run() async throws {
            let platforms = try await withHostStore(database) { try await LTIHostTools.platforms(store: $0) }
            if platforms.isEmpty {
                print("No platform is registered.")
                return
            }
            for p in platforms {
                print("\(p.id)  \(p.name)")
                print("  issuer        \(p.issuer)")
                print("  client id     \(p.clientID)")
                print("  deployments   \(p.deploymentIDs.isEmpty ? "(the first to launch)" : p.deploymentIDs.joined(separator: ", "))")
                print("  trust email   \(p.trustEmail ? "yes" : "no")")
                print("  token audience \(p.tokenAudience ?? "(the token URL)")")
                print("  course pages  \(p.frameOrigins.isEmpty ? "(none recorded yet)" : p.frameOrigins.joined(separator: " "))")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget a platform: its courses stop launching; their classes stay.")
        @Argument var id: String
        @OptionGroup var database: HostDatabaseOptions

        func run() async throws {
            try await withHostStore(database) { store in
                try await ltiRefusalsAsValidation { try await LTIHostTools.remove(id: id, store: store) }
                print("Removed the platform \(id).")
            }
        }
    }

    struct RotateKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-key", abstract: "Make a new signing key; the old one stays published for a week.")
        @OptionGroup var database: HostDatabaseOptions

        func run() async throws {
            let kid = try await withHostStore(database) { try await LTIHostTools.rotateKey(store: $0) }
            print("New signing key \(kid); running servers use it within a minute.")
        }
    }

    struct RegistrationLink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "registration-link", abstract: "Print a dynamic registration link to paste into a platform (one use, 24 hours).")
        @OptionGroup var publicURL: PublicURLOption
        @OptionGroup var database: HostDatabaseOptions

        func run() async throws {
            let origin = try publicURL.origin(for: database)
            let link = try await withHostStore(database) { try await LTIHostTools.registrationLink(origin: origin, store: $0) }
            print(link)
        }
    }
}

func ltiRefusalsAsValidation<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let refused as LTIHostTools.Refused {
        throw ValidationError(refused.description)
    }
}
