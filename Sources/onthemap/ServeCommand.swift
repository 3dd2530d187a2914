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
    @Option(help: "Database URL: sqlite:///path/file.sqlite, or postgres://user:password@host:5432/database (add ?schema=NAME for a schema of its own, ?sslmode=disable|prefer|require; SQLite: ?synchronous=normal trades the last writes before a power loss for speed). [env: ONTHEMAP_DATABASE_URL] (default: <data-dir>/onthemap.sqlite)")
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
    @Option(help: "A reverse proxy (IP address or CIDR block, e.g. 10.0.0.0/8) whose Forwarded / X-Forwarded-For / X-Forwarded-Proto headers are believed; repeatable. [env: ONTHEMAP_TRUSTED_PROXIES, comma-separated] (default: none, the headers are ignored)")
    var trustedProxy: [String] = []
    @Option(help: "The address students use, e.g. https://map.example.org: https makes cookies Secure, its origin may write. [env: ONTHEMAP_PUBLIC_URL]")
    var publicURL: String?
    @Option(help: "Session lifetime in days. [env: ONTHEMAP_SESSION_DAYS] (default: 30)")
    var sessionDays: Double?
    @Option(help: "Serve the web app from this folder instead of the bundled copy. [env: ONTHEMAP_PUBLIC_DIR]")
    var publicDir: String?
    @Option(help: "Tile URL template for street maps, e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png. [env: ONTHEMAP_TILE_URL] (default: offline basemap only)")
    var tileURL: String?
    @Option(help: "A folder with Leaflet 1.x (leaflet.js or leaflet.min.js, leaflet.css, images/), served from this server. [env: ONTHEMAP_LEAFLET_DIR] (default: Debian's libjs-leaflet, /usr/share/javascript/leaflet)")
    var leafletDir: String?
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
    @Option(help: "Keep Travel photos in an S3-compatible object store, s3://bucket/prefix (needed to run several servers with Travel; credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY). [env: ONTHEMAP_PHOTO_STORE] (default: <data-dir>/photos)")
    var photoStore: String?
    @Option(help: "The object store's endpoint, e.g. http://127.0.0.1:8333 (path-style addressing). [env: AWS_ENDPOINT_URL] (default: AWS S3 in the region)")
    var photoStoreEndpoint: String?
    @Option(help: "The object store's region. [env: AWS_REGION] (default: us-east-1)")
    var photoStoreRegion: String?
    @Option(help: "Answer photo image requests with a redirect to a presigned object-store URL valid this many seconds (60 to 604800) instead of relaying the image. [env: ONTHEMAP_PHOTO_REDIRECT_SECONDS] (default: relay)")
    var photoRedirectSeconds: Int?
    @Option(help: "Seconds a server's claim on a photo download lasts unless renewed; a crashed server's downloads move to another server after it. [env: ONTHEMAP_PHOTO_CLAIM_SECONDS] (default: 60)")
    var photoClaimSeconds: Double?
    @Option(help: "Seconds a database query may run before it is cancelled (Parse code 124). [env: ONTHEMAP_QUERY_TIMEOUT] (default: 2)")
    var queryTimeout: Double?
    @Option(help: "$regex queries that may run at once; others wait within the query timeout. [env: ONTHEMAP_REGEX_CONCURRENCY] (default: 2)")
    var regexConcurrency: Int?
    @Option(help: "Seconds a connection may stay open with no request (keep-alive). [env: ONTHEMAP_IDLE_TIMEOUT] (default: 30)")
    var idleTimeout: Double?
    @Option(help: "Seconds from a request's first byte to the end of its headers. [env: ONTHEMAP_REQUEST_HEAD_TIMEOUT] (default: 10)")
    var requestHeadTimeout: Double?
    @Option(help: "Seconds from the end of a request's headers to the end of its body. [env: ONTHEMAP_REQUEST_BODY_TIMEOUT] (default: 30)")
    var requestBodyTimeout: Double?
    @Option(help: "Open connections allowed per client address; more get 503. [env: ONTHEMAP_MAX_CONNECTIONS_PER_ADDRESS] (default: 256)")
    var maxConnectionsPerAddress: Int?
    @Option(help: "Open connections allowed in all; more get 503. [env: ONTHEMAP_MAX_CONNECTIONS] (default: 10000, or what the open-file limit allows)")
    var maxConnections: Int?
    @Option(help: "Threads that hash passwords, apart from database work. [env: ONTHEMAP_PASSWORD_HASHING_THREADS] (default: half the cores, at least 1)")
    var passwordHashingThreads: Int?
    @Option(help: "Logins and sign-ups that may wait for a hashing thread; more get 503. [env: ONTHEMAP_PASSWORD_HASHING_QUEUE] (default: 32)")
    var passwordHashingQueue: Int?
    @Option(help: "Token a Prometheus scraper must send as Authorization: Bearer <token> for /metrics. [env: ONTHEMAP_METRICS_TOKEN] (default: none, /metrics is open)")
    var metricsToken: String?
    @Option(name: .customLong("oidc-provider"), help: "An OpenID Connect provider students may sign in with: 'id=school,name=School account,issuer=https://accounts.google.com,client-id=…,client-secret-env=VAR' (client-secret=… also works but shows in ps; scopes='openid email profile'); repeatable. [env: ONTHEMAP_OIDC_PROVIDERS, specs separated by ;] (default: none)")
    var oidcProvider: [String] = []
    @Option(name: .customLong("facebook-app-id"), help: "Facebook app id for Facebook Login (the secret only from FACEBOOK_APP_SECRET). [env: ONTHEMAP_FACEBOOK_APP_ID] (default: none, Facebook off)")
    var facebookAppID: String?
    @Option(name: .customLong("facebook-dialog-url"), help: "Facebook's login dialog. [env: ONTHEMAP_FACEBOOK_DIALOG_URL] (default: https://www.facebook.com/v21.0/dialog/oauth)")
    var facebookDialogURL: String?
    @Option(name: .customLong("facebook-graph-url"), help: "Facebook's Graph API base. [env: ONTHEMAP_FACEBOOK_GRAPH_URL] (default: https://graph.facebook.com/v21.0)")
    var facebookGraphURL: String?
    @Option(help: "bcrypt work factor for new password hashes, 4 to 31; lower it only for tests and fuzzing. [env: ONTHEMAP_BCRYPT_COST] (default: 12)")
    var bcryptCost: Int?
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical. [env: LOG_LEVEL] (default: info)")
    var logLevel: String?
    @Option(help: "Log lines as text, or json (one object a line, for log collectors). [env: ONTHEMAP_LOG_FORMAT] (default: text)")
    var logFormat: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        func setting(_ flag: String?, _ name: String) -> String? {
            flag ?? environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        /// A repeatable flag, else the variable's comma-separated values.
        func list(_ flags: [String], _ name: String) -> [String] {
            guard flags.isEmpty else { return flags }
            return (environment[name] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
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
        let origins = list(allowedOrigin, "ONTHEMAP_ALLOWED_ORIGINS")
        for origin in origins where Configuration.normalizedOrigin(origin) == nil {
            throw ValidationError("Allowed origin '\(origin)' must look like https://host or http://host:port.")
        }
        configuration.allowedOrigins = origins
        configuration.trustedProxies = list(trustedProxy, "ONTHEMAP_TRUSTED_PROXIES")
        if let text = setting(publicURL, "ONTHEMAP_PUBLIC_URL") {
            configuration.publicURL = text
            guard configuration.publicOrigin != nil else {
                throw ValidationError("Public URL '\(text)' must be an http(s) URL like https://map.example.org.")
            }
        }
        if let text = setting(sessionDays.map { String($0) }, "ONTHEMAP_SESSION_DAYS") {
            guard let days = Double(text), days > 0 else { throw ValidationError("Session lifetime must be a positive number of days.") }
            configuration.sessionLifetime = days * 86_400
        }
        configuration.publicDirectory = setting(publicDir, "ONTHEMAP_PUBLIC_DIR")
        configuration.tileURL = setting(tileURL, "ONTHEMAP_TILE_URL")
        if let folder = setting(leafletDir, "ONTHEMAP_LEAFLET_DIR") {
            if let problem = WebAppRoutes.leafletProblem(in: folder) { throw ValidationError(problem) }
            configuration.leafletDirectory = folder
        }
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
        configuration.photoStore = setting(photoStore, "ONTHEMAP_PHOTO_STORE")
        configuration.photoStoreEndpoint = setting(photoStoreEndpoint, "AWS_ENDPOINT_URL")
        configuration.photoStoreRegion = setting(photoStoreRegion, "AWS_REGION") ?? setting(nil, "AWS_DEFAULT_REGION") ?? configuration.photoStoreRegion
        // Credentials only from the environment, so they never show in `ps`.
        configuration.photoStoreAccessKeyID = setting(nil, "AWS_ACCESS_KEY_ID")
        configuration.photoStoreSecretAccessKey = setting(nil, "AWS_SECRET_ACCESS_KEY")
        configuration.photoStoreSessionToken = setting(nil, "AWS_SESSION_TOKEN")
        if let text = setting(photoRedirectSeconds.map(String.init), "ONTHEMAP_PHOTO_REDIRECT_SECONDS") {
            guard let value = Int(text), (60...604_800).contains(value) else {
                throw ValidationError("Photo redirect seconds must be a number from 60 to 604800, not '\(text)'.")
            }
            configuration.photoRedirectSeconds = value
        }
        func seconds(_ flag: Double?, _ name: String, _ what: String) throws -> Double? {
            guard let text = setting(flag.map { String($0) }, name) else { return nil }
            guard let value = Double(text), value > 0, value <= 86_400 else {
                throw ValidationError("\(what) must be a positive number of seconds, not '\(text)'.")
            }
            return value
        }
        func count(_ flag: Int?, _ name: String, _ what: String, minimum: Int) throws -> Int? {
            guard let text = setting(flag.map(String.init), name) else { return nil }
            guard let value = Int(text), value >= minimum else {
                throw ValidationError("\(what) must be a whole number of at least \(minimum), not '\(text)'.")
            }
            return value
        }
        configuration.queryTimeout = try seconds(queryTimeout, "ONTHEMAP_QUERY_TIMEOUT", "The query timeout") ?? configuration.queryTimeout
        configuration.concurrentPatternQueries = try count(regexConcurrency, "ONTHEMAP_REGEX_CONCURRENCY", "Regex concurrency", minimum: 1)
            ?? configuration.concurrentPatternQueries
        configuration.idleTimeout = try seconds(idleTimeout, "ONTHEMAP_IDLE_TIMEOUT", "The idle timeout") ?? configuration.idleTimeout
        configuration.requestHeadTimeout = try seconds(requestHeadTimeout, "ONTHEMAP_REQUEST_HEAD_TIMEOUT", "The request head timeout")
            ?? configuration.requestHeadTimeout
        configuration.requestBodyTimeout = try seconds(requestBodyTimeout, "ONTHEMAP_REQUEST_BODY_TIMEOUT", "The request body timeout")
            ?? configuration.requestBodyTimeout
        configuration.maxConnectionsPerAddress = try count(
            maxConnectionsPerAddress, "ONTHEMAP_MAX_CONNECTIONS_PER_ADDRESS", "Connections per address", minimum: 1
        ) ?? configuration.maxConnectionsPerAddress
        configuration.maxConnections = try count(maxConnections, "ONTHEMAP_MAX_CONNECTIONS", "Maximum connections", minimum: 1)
        configuration.passwordHashingThreads = try count(
            passwordHashingThreads, "ONTHEMAP_PASSWORD_HASHING_THREADS", "Password hashing threads", minimum: 1
        )
        configuration.passwordHashingQueue = try count(
            passwordHashingQueue, "ONTHEMAP_PASSWORD_HASHING_QUEUE", "The password hashing queue", minimum: 0
        ) ?? configuration.passwordHashingQueue
        configuration.metricsToken = setting(metricsToken, "ONTHEMAP_METRICS_TOKEN")
        configuration.photoClaimSeconds = try seconds(photoClaimSeconds, "ONTHEMAP_PHOTO_CLAIM_SECONDS", "The photo claim time")
            ?? configuration.photoClaimSeconds
        let providerSpecs = oidcProvider.isEmpty
            ? (environment["ONTHEMAP_OIDC_PROVIDERS"] ?? "").split(separator: ";").map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            : oidcProvider
        do {
            configuration.oidcProviders = try providerSpecs.map { try OIDCProviderSettings.parse($0, environment: environment) }
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
        guard Set(configuration.oidcProviders.map(\.id)).count == configuration.oidcProviders.count else {
            throw ValidationError("Two --oidc-provider entries have the same id.")
        }
        if let appID = setting(facebookAppID, "ONTHEMAP_FACEBOOK_APP_ID") {
            guard let secret = setting(nil, "FACEBOOK_APP_SECRET") else {
                throw ValidationError("Facebook Login needs the app secret in the FACEBOOK_APP_SECRET environment variable.")
            }
            var facebook = FacebookSettings(appID: appID, appSecret: secret)
            facebook.dialogURL = setting(facebookDialogURL, "ONTHEMAP_FACEBOOK_DIALOG_URL") ?? facebook.dialogURL
            facebook.graphURL = setting(facebookGraphURL, "ONTHEMAP_FACEBOOK_GRAPH_URL") ?? facebook.graphURL
            for url in [facebook.dialogURL, facebook.graphURL] where URL(string: url)?.scheme.map({ ["http", "https"].contains($0) }) != true {
                throw ValidationError("Facebook URL '\(url)' must be an http(s) URL.")
            }
            configuration.facebook = facebook
        }
        // Let the connection cap, not the kernel's open-file limit, decide when to refuse.
        FileDescriptorLimit.raiseToHardLimit()
        if let text = setting(bcryptCost.map(String.init), "ONTHEMAP_BCRYPT_COST") {
            guard let value = UInt8(text), (4...31).contains(value) else {
                throw ValidationError("The bcrypt cost must be a number from 4 to 31, not '\(text)'.")
            }
            configuration.bcryptCost = value
        }

        var logger: Logger
        switch setting(logFormat, "ONTHEMAP_LOG_FORMAT")?.lowercased() ?? "text" {
        case "text": logger = Logger(label: "onthemap")
        case "json": logger = Logger(label: "onthemap") { JSONLogHandler(label: $0) }
        case let other: throw ValidationError("Unknown log format '\(other)': use text or json.")
        }
        let levelText = setting(logLevel, "LOG_LEVEL") ?? "info"
        guard let level = Logger.Level(rawValue: levelText.lowercased()) else {
            throw ValidationError("Unknown log level '\(levelText)'.")
        }
        logger.logLevel = level
        if configuration.bcryptCost < 10 {
            logger.warning("bcrypt cost \(configuration.bcryptCost) makes stolen password hashes cheap to crack; use it only for tests")
        }

        do {
            try checkDataDirectory(configuration.dataDirectory)
            try await checkCanListen(host: configuration.host, port: configuration.port)
        } catch let error as ListenError {
            FileHandle.standardError.write(Data("onthemap: \(error.description)\n".utf8))
            throw ExitCode(1)
        }
        let host = configuration.host
        let photosWhere = configuration.photoStore.flatMap { $0.isEmpty ? nil : $0 } ?? configuration.dataDirectory
        let dataLine = configuration.usesPostgreSQL || configuration.photoStore?.isEmpty == false
            ? "Data in \(configuration.databaseDescription), photos in \(photosWhere)"
            : "Data in \(configuration.dataDirectory)"
        let demo = configuration.demo
        let app = try await buildApplication(configuration: configuration, logger: logger) { port in
            if demo { Self.say("Demo account: \(DemoAccount.email) / \(DemoAccount.password)") }
            Self.say("\(dataLine); Ctrl-C stops the server.")
            Self.say("OnTheMap is at http://\(host):\(port)/")
        }
        try await app.runService()
        Self.say("OnTheMap stopped.")
    }

    /// Unbuffered, so the lines show in order with the server's log, even through a pipe.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
