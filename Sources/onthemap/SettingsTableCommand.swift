import ArgumentParser
import OnTheMapServer

/// `onthemap settings-table`: the docs' settings table, generated from the declaration every
/// `serve` flag comes from (a test holds README.md to it).
struct SettingsTableCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings-table",
        abstract: "Print the Markdown table of serve's settings (for the docs).",
        shouldDisplay: false
    )

    func run() {
        print(Settings.markdownTable)
    }
}
