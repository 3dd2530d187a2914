import ArgumentParser
import Foundation

@main
struct OnTheMapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "onthemap",
        abstract: "Where is everybody: the OnTheMap server and its command-line client.",
        subcommands: [
            ServeCommand.self, SettingsTableCommand.self, CheckCommandLineCommand.self, CopyDatabaseCommand.self, CopyPhotosCommand.self,
            LoginCommand.self, LogoutCommand.self, WhoamiCommand.self,
            StudentsCommand.self, PostCommand.self, OpenCommand.self, ClassesCommand.self, AccountCommand.self,
            AdminCommand.self, BackupCommand.self, RestoreCommand.self, ExportCommand.self,
        ]
    )

    /// As argument-parser's, except that a usage mistake exits 1 (a user error, like every
    /// other one) instead of 64, so scripts see the documented codes 0 to 4 only.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(ExitCode.failure.rawValue)
            }
            exit(withError: error)
        }
    }
}
