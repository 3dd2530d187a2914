import ArgumentParser

@main
struct OnTheMapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "onthemap",
        abstract: "Where is everybody: the OnTheMap server and its command-line client.",
        subcommands: [ServeCommand.self, LoginCommand.self, LogoutCommand.self, WhoamiCommand.self,
                      StudentsCommand.self, PostCommand.self, OpenCommand.self]
    )
}
