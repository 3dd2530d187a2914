import ArgumentParser
import Foundation
import Localization
import OnTheMapKit

/// `onthemap post LOCATION [URL]`: geocodes, confirms, then creates or updates your location.
/// The link is optional: without one the record's `mediaURL` is empty.
struct PostCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "post",
        abstract: "Post where you are (and a link, if you have one), or update the location you already posted.",
        discussion: """
            LOCATION is looked up with the server's geocoder; pass --latitude and --longitude \
            to skip the lookup. Without --yes the place is shown and you are asked to confirm \
            (one line read from standard input).
            """
    )

    @OptionGroup var serverOptions: ServerOptions
    @Argument(help: "Where you are, e.g. \"Lyon, France\".")
    var location: String
    @Argument(help: "A link to share, e.g. https://example.com/me (optional).")
    var url: String?
    @Flag(name: .shortAndLong, help: "Do not ask for confirmation.")
    var yes = false
    @Option(parsing: .unconditional, help: "Latitude to use instead of geocoding (needs --longitude).")
    var latitude: Double?
    @Option(parsing: .unconditional, help: "Longitude to use instead of geocoding (needs --latitude); negative is west.")
    var longitude: Double?

    func run() async throws {
        try await runClient {
            if (latitude == nil) != (longitude == nil) {
                throw ClientFailure.user(say("cli.post.bothOrNeither"))
            }
            let place = location.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !place.isEmpty else { throw ClientFailure.user(say("cli.post.noPlace")) }
            let linkText = url?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            let link = linkText.isEmpty ? nil : try OpenCommand.webLink(linkText, owner: nil)
            let stored = try SessionFile.require()
            let server = try serverOptions.mapServer(try serverOptions.resolve(saved: stored))
            let clients = Clients(server: server, session: stored.udacitySession)

            // Posted as found ("São Paulo, Brazil"), not as typed; as typed with --latitude/--longitude.
            let found = try await resolvePlace(place, clients: clients)
            Console.out(
                say(
                    "cli.post.place",
                    [
                        "place": .text(TextCleaning.printable(found.name)),
                        "coordinates": .text(Self.coordinates(found.latitude, found.longitude)),
                    ]))
            if let link { Console.out(say("cli.post.link", ["link": .text(link.absoluteString)])) }

            let existing = try await clients.locations.locations(uniqueKey: stored.accountKey).first
            if let existing {
                Console.out(
                    say(
                        "cli.post.existing",
                        [
                            "place": .text(TextCleaning.printable(existing.mapString)),
                            "when": .text(RelativeTime.describe(parseDate: existing.updatedAt)),
                        ]))
            }
            if !yes {
                let question = say(existing == nil ? "cli.post.confirmPost" : "cli.post.confirmUpdate")
                let answer = Console.ask(question)?.trimmingCharacters(in: .whitespaces).lowercased()
                guard answer == "y" || answer == "yes" else {
                    throw ClientFailure.user(say("cli.post.nothingPosted"))
                }
            }

            var first = stored.firstName ?? ""
            var last = stored.lastName ?? ""
            if first.isEmpty && last.isEmpty,
                let user = try? await clients.udacity.userData(accountKey: stored.accountKey)
            {
                first = user.firstName
                last = user.lastName
            }
            let input = StudentLocationInput(
                uniqueKey: stored.accountKey, firstName: first, lastName: last, mapString: found.name,
                mediaURL: link?.absoluteString ?? "", latitude: found.latitude, longitude: found.longitude)
            if let existing {
                _ = try await clients.locations.update(objectId: existing.objectId, with: input)
                Console.out(say("cli.post.updated", ["id": .text(existing.objectId)]))
            } else {
                let created = try await clients.locations.post(input)
                Console.out(say("cli.post.posted", ["id": .text(created.objectId)]))
            }
        }
    }

    private func resolvePlace(_ place: String, clients: Clients) async throws -> GeocodedPlace {
        if let latitude, let longitude {
            guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
                throw ClientFailure.user(say("cli.post.badCoordinates"))
            }
            return GeocodedPlace(name: place, latitude: latitude, longitude: longitude)
        }
        do {
            guard let best = try await clients.locations.geocode(place, limit: 1).first else {
                throw ClientFailure.user(say("cli.post.noPlaceFound", ["place": .text(place)]))
            }
            return GeocodedPlace(name: best.displayName, latitude: best.latitude, longitude: best.longitude)
        } catch OnTheMapError.unavailable {
            throw ClientFailure(
                message: say("cli.post.noGeocoding"),
                exitCode: ClientExit.server)
        }
    }

    static func coordinates(_ latitude: Double, _ longitude: Double) -> String {
        func format(_ value: Double, _ positive: String, _ negative: String) -> String {
            String(format: "%.5f°%@", abs(value), value >= 0 ? positive : negative)
        }
        return format(latitude, "N", "S") + ", " + format(longitude, "E", "W")
    }
}
