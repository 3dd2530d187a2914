import ArgumentParser
import Foundation
import Hummingbird
import Logging
import OnTheMapServer

/// `onthemap serve`: flags win over `ONTHEMAP_*` environment variables, which win over defaults.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the OnTheMap server (Udacity session API, Parse StudentLocation API, web app)."
    )

    @Option(help: "Address to listen on. [env: ONTHEMAP_HOST] (default: 127.0.0.1)")
    var host: String?
    @Option(help: "Port to listen on; 0 picks a free one. [env: ONTHEMAP_PORT] (default: 8080)")
    var port: Int?
    @Option(help: "Folder for the database and photos. [env: ONTHEMAP_DATA_DIR] (default: ./onthemap-data)")
    var dataDir: String?
    @Option(help: "Database URL: sqlite:///path/file.sqlite, or postgres://user:password@host:5432/database (add ?schema=NAME for a schema of its own, ?sslmode=disable|prefer|require). [env: ONTHEMAP_DATABASE_URL] (default: <data-dir>/onthemap.sqlite)")
    var databaseURL: String?
    @Flag(help: "Seed a demo account and a few hundred student locations. [env: ONTHEMAP_DEMO=1]")
    var demo = false
    @Option(help: "X-Parse-Application-Id required under /parse. [env: ONTHEMAP_PARSE_APP_ID] (default: the original clients' public value)")
    var parseAppID: String?
    @Option(help: "X-Parse-REST-API-Key required under /parse. [env: ONTHEMAP_PARSE_REST_KEY] (default: the original clients' public value)")
    var parseRestKey: String?
    @Flag(help: "Let anyone create, change and delete any location, as the original Parse class did. [env: ONTHEMAP_LEGACY_OPEN_WRITES=1]")
    var legacyOpenWrites = false
    @Option(help: "An origin besides this server's own (as the Host header names it) whose pages may log in and write, e.g. https://map.example.org when a proxy rewrites Host; repeatable. [env: ONTHEMAP_ALLOWED_ORIGINS, comma-separated] (default: none)")
    var allowedOrigin: [String] = []
    @Option(help: "Session lifetime in days. [env: ONTHEMAP_SESSION_DAYS] (default: 30)")
    var sessionDays: Double?
    @Option(help: "Serve the web app from this folder instead of the bundled copy. [env: ONTHEMAP_PUBLIC_DIR]")
    var publicDir: String?
    @Option(help: "Tile URL template for street maps, e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png. [env: ONTHEMAP_TILE_URL] (default: offline basemap only)")
    var tileURL: String?
    @Option(help: "Where browsers load Leaflet from when Debian's libjs-leaflet is not installed. [env: ONTHEMAP_LEAFLET_CDN]")
    var leafletCDN: String?
    @Option(help: "A Nominatim-compatible geocoder asked only when the offline gazetteer is unsure (street addresses). [env: ONTHEMAP_GEOCODER_UPSTREAM_URL] (default: none, fully offline)")
    var geocoderUpstreamURL: String?
    @Flag(help: "Do not cache StudentLocation list answers between writes (on PostgreSQL the cache hears other servers' writes through LISTEN/NOTIFY). [env: ONTHEMAP_NO_LIST_CACHE=1]")
    var noListCache = false
    @Option(name: .customLong("flickr-api-url"), help: "Flickr API base URL for Travel photos (used when FLICKR_API_KEY is set). [env: ONTHEMAP_FLICKR_API_URL] (default: https://api.flickr.com/services/rest/)")
    var flickrAPIURL: String?
    @Option(name: .customLong("wikimedia-api-url"), help: "Wikimedia Commons API base URL for Travel photos when no Flickr key is set. [env: ONTHEMAP_WIKIMEDIA_API_URL] (default: https://commons.wikimedia.org/w/api.php)")
    var wikimediaAPIURL: String?
    @Option(help: "Photos per Travel album. [env: ONTHEMAP_PHOTOS_PER_ALBUM] (default: 21)")
    var photosPerAlbum: Int?
    @Option(help: "bcrypt work factor for new password hashes, 4 to 31; lower it only for tests and fuzzing. [env: ONTHEMAP_BCRYPT_COST] (default: 12)")
    var bcryptCost: Int?
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical. [env: LOG_LEVEL] (default: info)")
    var logLevel: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        func setting(_ flag: String?, _ name: String) -> String? {
            flag ?? environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        func enabled(_ flag: Bool, _ name: String) -> Bool {
            flag || ["1", "true", "yes"].contains(environment[name]?.lowercased() ?? "")
        }

        var configuration = Configuration()
        configuration.host = setting(host, "ONTHEMAP_HOST") ?? configuration.host
        if let text = setting(port.map(String.init), "ONTHEMAP_PORT") {
            guard let value = Int(text), (0...65535).contains(value) else {
                throw ValidationError("Port must be a number from 0 to 65535, not '\(text)'.")
            }
            configuration.port = value
        }
        configuration.dataDirectory = setting(dataDir, "ONTHEMAP_DATA_DIR") ?? configuration.dataDirectory
        configuration.databaseURL = setting(databaseURL, "ONTHEMAP_DATABASE_URL")
        configuration.demo = enabled(demo, "ONTHEMAP_DEMO")
        configuration.parseApplicationID = setting(parseAppID, "ONTHEMAP_PARSE_APP_ID") ?? configuration.parseApplicationID
        configuration.parseRESTAPIKey = setting(parseRestKey, "ONTHEMAP_PARSE_REST_KEY") ?? configuration.parseRESTAPIKey
        configuration.legacyOpenWrites = enabled(legacyOpenWrites, "ONTHEMAP_LEGACY_OPEN_WRITES")
        let origins = allowedOrigin.isEmpty
            ? (environment["ONTHEMAP_ALLOWED_ORIGINS"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            : allowedOrigin
        for origin in origins where Configuration.normalizedOrigin(origin) == nil {
            throw ValidationError("Allowed origin '\(origin)' must look like https://host or http://host:port.")
        }
        configuration.allowedOrigins = origins
        if let text = setting(sessionDays.map { String($0) }, "ONTHEMAP_SESSION_DAYS") {
            guard let days = Double(text), days > 0 else { throw ValidationError("Session lifetime must be a positive number of days.") }
            configuration.sessionLifetime = days * 86_400
        }
        configuration.publicDirectory = setting(publicDir, "ONTHEMAP_PUBLIC_DIR")
        configuration.tileURL = setting(tileURL, "ONTHEMAP_TILE_URL")
        configuration.leafletCDN = setting(leafletCDN, "ONTHEMAP_LEAFLET_CDN") ?? configuration.leafletCDN
        configuration.geocoderUpstreamURL = setting(geocoderUpstreamURL, "ONTHEMAP_GEOCODER_UPSTREAM_URL")
        // The key only from the environment, so it never shows in `ps`.
        configuration.flickrAPIKey = setting(nil, "FLICKR_API_KEY")
        configuration.flickrAPIURL = setting(flickrAPIURL, "ONTHEMAP_FLICKR_API_URL") ?? configuration.flickrAPIURL
        configuration.wikimediaAPIURL = setting(wikimediaAPIURL, "ONTHEMAP_WIKIMEDIA_API_URL") ?? configuration.wikimediaAPIURL
        if let text = setting(photosPerAlbum.map(String.init), "ONTHEMAP_PHOTOS_PER_ALBUM") {
            guard let value = Int(text), (1...100).contains(value) else {
                throw ValidationError("Photos per album must be a number from 1 to 100, not '\(text)'.")
            }
            configuration.photosPerAlbum = value
        }
        configuration.cacheListResponses = !enabled(noListCache, "ONTHEMAP_NO_LIST_CACHE")
        if let text = setting(bcryptCost.map(String.init), "ONTHEMAP_BCRYPT_COST") {
            guard let value = UInt8(text), (4...31).contains(value) else {
                throw ValidationError("The bcrypt cost must be a number from 4 to 31, not '\(text)'.")
            }
            configuration.bcryptCost = value
        }

        var logger = Logger(label: "onthemap")
        let levelText = setting(logLevel, "LOG_LEVEL") ?? "info"
        guard let level = Logger.Level(rawValue: levelText.lowercased()) else {
            throw ValidationError("Unknown log level '\(levelText)'.")
        }
        logger.logLevel = level

        let host = configuration.host
        let app = try await buildApplication(configuration: configuration, logger: logger) { port in
            Self.say("OnTheMap is at http://\(host):\(port)/")
        }
        if configuration.demo {
            Self.say("Demo account: \(DemoAccount.email) / \(DemoAccount.password)")
        }
        if configuration.usesPostgreSQL {
            Self.say("Data in \(configuration.databaseDescription), photos in \(configuration.dataDirectory); Ctrl-C stops the server.")
        } else {
            Self.say("Data in \(configuration.dataDirectory); Ctrl-C stops the server.")
        }
        try await app.runService()
    }

    /// Unbuffered, so the lines show in order with the server's log, even through a pipe.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
