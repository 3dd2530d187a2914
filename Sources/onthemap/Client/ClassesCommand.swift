import ArgumentParser
import Foundation
import Localization
import OnTheMapKit

/// `onthemap classes`: the classes you belong to, and the open ones you could join.
struct ClassesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classes",
        abstract: "List your classes (and open ones you could join); use one with --class SLUG.",
        discussion: "Every client command takes --class SLUG (or ONTHEMAP_CLASS) to read and post on that class's map."
    )

    @OptionGroup var serverOptions: ServerOptions
    @Flag(help: "Print JSON instead of a table.") var json = false

    func run() async throws {
        try await runClient {
            let stored = try SessionFile.require()
            let client = ClassesClient(
                configuration: OnTheMapConfiguration(server: try serverOptions.resolve(saved: stored)),
                sessionStore: SessionStore(stored.udacitySession))
            let list = try await client.classes()
            if json {
                let rows = (list.classes + list.joinable).map { info -> [String: Any] in
                    [
                        "slug": info.slug, "name": info.name, "visibility": info.visibility, "join": info.join,
                        "role": info.role ?? NSNull(), "default": info.slug == list.defaultClass,
                    ]
                }
                let data = try JSONSerialization.data(
                    withJSONObject: rows, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
                Console.out(String(decoding: data, as: UTF8.self))
                return
            }
            let rows =
                list.classes.map {
                    [$0.slug == list.defaultClass ? say("cli.classes.default", ["slug": .text($0.slug)]) : $0.slug, $0.role ?? "", $0.name]
                }
                + list.joinable.map { [$0.slug, say("cli.classes.openToJoin"), $0.name] }
            guard !rows.isEmpty else { return Console.out(say("cli.classes.none")) }
            Console.out(
                TextTable(
                    headers: [say("cli.classes.headerSlug"), say("cli.classes.headerRole"), say("cli.classes.headerName")], rows: rows,
                    shrinkable: [2: 10]
                ).render(maxWidth: Console.terminalWidth))
        }
    }
}
