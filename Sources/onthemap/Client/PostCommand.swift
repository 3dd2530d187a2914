import ArgumentParser
import Foundation
import OnTheMapKit

/// `onthemap post LOCATION URL`: geocodes, confirms, then creates or updates your location.
struct PostCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "post",
        abstract: "Post where you are and a link, or update the location you already posted.",
        discussion: """
            LOCATION is looked up with the server's geocoder; pass --latitude and --longitude \
            to skip the lookup. Without --yes the place is shown and you are asked to confirm \
            (one line read from standard input).
            """
    )

    @OptionGroup var serverOptions: ServerOptions
    @Argument(help: "Where you are, e.g. \"Lyon, France\".")
    var location: String
    @Argument(help: "A link to share, e.g. https://example.com/me.")
    var url: String
    @Flag(name: .shortAndLong, help: "Do not ask for confirmation.")
    var yes = false
    @Option(parsing: .unconditional, help: "Latitude to use instead of geocoding (needs --longitude).")
    var latitude: Double?
    @Option(parsing: .unconditional, help: "Longitude to use instead of geocoding (needs --latitude); negative is west.")
    var longitude: Double?

    func run() async throws {
        try await runClient {
            if (latitude == nil) != (longitude == nil) {
                throw ClientFailure.user("Give both --latitude and --longitude, or neither.")
            }
            let place = location.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !place.isEmpty else { throw ClientFailure.user("Say where you are, e.g. \"Lyon, France\".") }
            let link = try OpenCommand.webLink(url, owner: nil)
            let stored = try SessionFile.require()
            let server = try serverOptions.mapServer(try serverOptions.resolve(saved: stored))
            let clients = Clients(server: server, session: stored.udacitySession)

            let found = try await resolvePlace(place, clients: clients)
            Console.out("Place: \(TextCleaning.printable(found.name)) (\(Self.coordinates(found.latitude, found.longitude)))")
            Console.out("Link:  \(link.absoluteString)")

            let existing = try await clients.locations.locations(uniqueKey: stored.accountKey).first
            if let existing {
                Console.out("You already have a location (\(TextCleaning.printable(existing.mapString)), updated "
                    + "\(RelativeTime.describe(parseDate: existing.updatedAt))): it will be updated.")
            }
            if !yes {
                let question = existing == nil ? "Post this location? [y/N] " : "Update your location? [y/N] "
                let answer = Console.ask(question)?.trimmingCharacters(in: .whitespaces).lowercased()
                guard answer == "y" || answer == "yes" else {
                    throw ClientFailure.user("Nothing posted.")
                }
            }

            var first = stored.firstName ?? ""
            var last = stored.lastName ?? ""
            if first.isEmpty && last.isEmpty,
               let user = try? await clients.udacity.userData(accountKey: stored.accountKey) {
                first = user.firstName
                last = user.lastName
            }
            let input = StudentLocationInput(
                uniqueKey: stored.accountKey, firstName: first, lastName: last, mapString: place,
                mediaURL: link.absoluteString, latitude: found.latitude, longitude: found.longitude)
            if let existing {
                _ = try await clients.locations.update(objectId: existing.objectId, with: input)
                Console.out("Updated your location (\(existing.objectId)).")
            } else {
                let created = try await clients.locations.post(input)
                Console.out("Posted your location (\(created.objectId)).")
            }
        }
    }

    private func resolvePlace(_ place: String, clients: Clients) async throws -> GeocodedPlace {
        if let latitude, let longitude {
            guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
                throw ClientFailure.user("Latitude must be within ±90 and longitude within ±180.")
            }
            return GeocodedPlace(name: place, latitude: latitude, longitude: longitude)
        }
        do {
            guard let best = try await clients.locations.geocode(place, limit: 1).first else {
                throw ClientFailure.user("No place found for “\(place)”; try a city and country, or pass --latitude and --longitude.")
            }
            return GeocodedPlace(name: best.displayName, latitude: best.latitude, longitude: best.longitude)
        } catch OnTheMapError.unavailable {
            throw ClientFailure(message: "Geocoding is unavailable on this server; pass --latitude and --longitude.",
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
