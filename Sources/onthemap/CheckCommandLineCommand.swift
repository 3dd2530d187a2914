import ArgumentParser
import Foundation
import OnTheMapServer

/// `onthemap check-command-line -- <words…>`: whether an `onthemap` command line (as the docs
/// write it) parses with this version, without running it. Exits 0, or 1 saying why. For the
/// docs' check; hidden from help.
struct CheckCommandLineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-command-line",
        abstract: "Say whether an onthemap command line parses, without running it.",
        shouldDisplay: false
    )

    @Argument(parsing: .captureForPassthrough, help: "The words after `onthemap`.")
    var words: [String] = []

    func run() throws {
        let words = words.first == "--" ? Array(words.dropFirst()) : words
        do {
            let command = try OnTheMapCommand.parseAsRoot(words)
            // `serve` takes its settings through its own table: check them there too.
            if let serve = command as? ServeCommand {
                _ = try Settings.configuration(arguments: serve.settings, environment: [:])
            }
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        } catch {
            throw ValidationError(OnTheMapCommand.message(for: error))
        }
    }
}
