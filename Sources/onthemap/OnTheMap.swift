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
    /// other one) instead of 64, so scripts see the documented codes 0 to 4 only; and that a
    /// command refusing what it was asked (no such account, no database there) says why in
    /// one line, as the client commands do, without the usage lines that follow a mistyped
    /// command line.
    static func main() async {
        var command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(ExitCode.failure.rawValue)
            }
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let refusal as ValidationError {
            FileHandle.standardError.write(Data("onthemap: \(refusal.message)\n".utf8))
            Foundation.exit(ExitCode.failure.rawValue)
        } catch {
            exit(withError: error)
        }
    }
}
