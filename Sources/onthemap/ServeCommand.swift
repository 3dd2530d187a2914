import ArgumentParser
import Foundation
import Hummingbird
import Logging
import OnTheMapServer

/// `onthemap serve`: flags win over `ONTHEMAP_*` environment variables, which win over defaults.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the OnTheMap server (Udacity session API, Parse StudentLocation API, web app).",
        usage: "onthemap serve [--name value]...",
        discussion: Settings.helpText
    )

    /// Every setting `Settings` declares; parsed by it, not by ArgumentParser, so the flags,
    /// `--help`, the environment and the docs' table come from one declaration.
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var settings: [String] = []

    func run() async throws {
        let configuration: Configuration
        do {
            configuration = try Settings.configuration(arguments: settings, environment: ProcessInfo.processInfo.environment)
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
        // Let the connection cap, not the kernel's open-file limit, decide when to refuse.
        FileDescriptorLimit.raiseToHardLimit()
        let logger = configuration.makeLogger()
        if configuration.bcryptCost < 10 {
            logger.warning("bcrypt cost \(configuration.bcryptCost) makes stolen password hashes cheap to crack; use it only for tests")
        }

        do {
            try checkDataDirectory(configuration.dataDirectory)
            try await checkCanListen(host: configuration.host, port: configuration.port)
        } catch let error as ListenError {
            FileHandle.standardError.write(Data("onthemap: \(error.description)\n".utf8))
            throw ExitCode(1)
        }
        let host = configuration.host
        let photosWhere = configuration.photoStore.flatMap { $0.isEmpty ? nil : $0 } ?? configuration.dataDirectory
        let dataLine =
            configuration.usesPostgreSQL || configuration.photoStore?.isEmpty == false
            ? "Data in \(configuration.databaseDescription), photos in \(photosWhere)"
            : "Data in \(configuration.dataDirectory)"
        let demo = configuration.demo
        let dataDirectory = configuration.dataDirectory
        let publicOrigin = configuration.publicOrigin
        let app = try await buildApplication(configuration: configuration, logger: logger) { started in
            // The host's commands print links with this origin (`admin class invite-link`).
            ServerAddress.record(publicOrigin, dataDirectory: dataDirectory)
            if demo { Self.say("Demo account: \(DemoAccount.email) / \(DemoAccount.password)") }
            Self.say("\(dataLine); Ctrl-C stops the server.")
            let local = "http://\(host):\(started.port)/"
            if !started.hasAccounts {
                let address = publicOrigin.map { $0 + "/" } ?? local
                // Whoever signs up first runs the server: the host, before the address is shared.
                Self.say(
                    "No account yet: the first one signed up becomes this server's administrator. Sign up at \(address) before you share it."
                )
            }
            Self.say("OnTheMap is at \(local)")
        }
        try await app.runService()
        Self.say("OnTheMap stopped.")
    }

    /// Unbuffered, so the lines show in order with the server's log, even through a pipe.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
