import Foundation
import Logging

/// A setting that cannot work, said the same way whoever gave it: the command line, the
/// environment, or a program calling `buildApplication`.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension Configuration {
    /// Refuses a configuration the server cannot run with. `Settings.configuration` and
    /// `buildApplication` both call it, so they refuse the same things with the same words.
    public func validate() throws {
        func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
            if !condition { throw ConfigurationError(message()) }
        }
        func seconds(_ value: TimeInterval, _ what: String) throws {
            try check(value > 0 && value <= 86_400, "\(what) must be a positive number of seconds (at most a day), not \(value).")
        }
        func atLeast(_ value: Int?, _ minimum: Int, _ what: String) throws {
            guard let value else { return }
            try check(value >= minimum, "\(what) must be a whole number of at least \(minimum), not \(value).")
        }
        try check((0...65535).contains(port), "The port must be a number from 0 to 65535, not \(port).")
        try check(!host.isEmpty, "The address to listen on must not be empty.")
        if let problem = ClassSlug.problem(defaultClassSlug) { throw ConfigurationError("The default class: \(problem)") }
        for origin in allowedOrigins {
            try check(
                Self.normalizedOrigin(origin) != nil,
                "Allowed origin '\(origin.prefix(80))' must look like https://host or http://host:port.")
        }
        _ = try TrustedProxies(trustedProxies)
        if let publicURL {
            try check(publicOrigin != nil, "Public URL '\(publicURL.prefix(80))' must be an http(s) URL like https://map.example.org.")
        }
        if let problem = mailProblem() { throw ConfigurationError(problem) }
        try check(sessionLifetime > 0, "The session lifetime must be a positive number of days.")
        if let folder = leafletDirectory, let problem = WebAppRoutes.leafletProblem(in: folder) { throw ConfigurationError(problem) }
        for (url, what) in [
            (geocoderUpstreamURL, "The geocoder upstream URL"), (flickrAPIURL, "The Flickr API URL"),
            (wikimediaAPIURL, "The Wikimedia API URL"),
        ] {
            guard let url, !url.isEmpty else { continue }
            try check(Self.httpURL(url) != nil, "\(what) must be an http(s) URL, not '\(url.prefix(80))'.")
        }
        try check((1...100).contains(photosPerAlbum), "Photos per album must be a number from 1 to 100, not \(photosPerAlbum).")
        if let photoRedirectSeconds {
            try check(
                (60...604_800).contains(photoRedirectSeconds),
                "Photo redirect seconds must be a number from 60 to 604800, not \(photoRedirectSeconds).")
        }
        try seconds(photoClaimSeconds, "The photo claim time")
        try seconds(queryTimeout, "The query timeout")
        try seconds(idleTimeout, "The idle timeout")
        try seconds(requestHeadTimeout, "The request head timeout")
        try seconds(requestBodyTimeout, "The request body timeout")
        try atLeast(concurrentPatternQueries, 1, "Regex concurrency")
        try atLeast(maxConnectionsPerAddress, 1, "Connections per address")
        try atLeast(maxConnections, 1, "Maximum connections")
        try atLeast(passwordHashingThreads, 1, "Password hashing threads")
        try atLeast(passwordHashingQueue, 0, "The password hashing queue")
        try check((4...31).contains(bcryptCost), "The bcrypt cost must be a number from 4 to 31, not \(bcryptCost).")
        try check(Set(oidcProviders.map(\.id)).count == oidcProviders.count, "Two --oidc-provider entries have the same id.")
        if let facebook {
            try check(!facebook.appSecret.isEmpty, "Facebook Login needs the app secret in the FACEBOOK_APP_SECRET environment variable.")
            for url in [facebook.dialogURL, facebook.graphURL] {
                try check(Self.httpURL(url) != nil, "Facebook URL '\(url.prefix(80))' must be an http(s) URL.")
            }
        }
    }

    /// `text` as an http or https URL with a host, or nil.
    static func httpURL(_ text: String) -> URL? {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
            return nil
        }
        return url
    }

    /// The logger `logLevel` and `logFormat` describe.
    public func makeLogger(label: String = "onthemap") -> Logger {
        var logger =
            switch logFormat {
            case .text: Logger(label: label)
            case .json: Logger(label: label) { JSONLogHandler(label: $0) }
            }
        logger.logLevel = logLevel
        return logger
    }
}
