import Foundation
import Logging

/// Every setting `onthemap serve` takes, declared once: its flag, its environment variables,
/// its default as people read it, its help, and how its text becomes a `Configuration` value.
/// `serve`'s flags and `--help`, the environment, and the settings table in the docs all come
/// from this list (a test holds the docs to it). Range checks are not here but in
/// `Configuration.validate()`, which `buildApplication` runs too, so a program that builds a
/// configuration by hand is refused exactly what the command line is.
///
/// A table of our own rather than swift-configuration: the values are few and flat, and the
/// table must also produce `--help` and the docs' table, which a provider chain does not.
public struct Setting: Sendable {
    public enum Kind: Sendable, Equatable {
        /// `--name VALUE` (or `--name=VALUE`); the placeholder names the value in help.
        case value(String)
        /// `--name` alone; an environment variable turns it on with `1`, `true` or `yes`.
        case flag
        /// `--name VALUE`, repeatable; the environment variable holds a list split at `separator`.
        case list(String, separator: Character)
    }

    /// Without the leading dashes; nil for a setting read only from the environment (secrets,
    /// which would show in `ps`).
    public let flag: String?
    /// Read in this order when the flag is absent.
    public let environment: [String]
    public let kind: Kind
    public let help: String
    /// The default as a person reads it.
    public let defaultText: String
    /// Stores the text given (one value; several for a list; none for a flag that is on); the
    /// environment is there for a value that names a variable (`client-secret-env=…`).
    let apply: @Sendable (inout Configuration, [String], [String: String]) throws -> Void

    init(
        _ flag: String?, env environment: [String], _ kind: Kind, default defaultText: String, _ help: String,
        apply: @escaping @Sendable (inout Configuration, [String], [String: String]) throws -> Void
    ) {
        self.flag = flag
        self.environment = environment
        self.kind = kind
        self.help = help
        self.defaultText = defaultText
        self.apply = apply
    }

    /// A single value, given to `set`.
    static func value(
        _ flag: String?, env: [String], _ placeholder: String, default defaultText: String, _ help: String,
        _ set: @escaping @Sendable (inout Configuration, String) throws -> Void
    ) -> Setting {
        Setting(flag, env: env, .value(placeholder), default: defaultText, help) { configuration, values, _ in
            if let value = values.last { try set(&configuration, value) }
        }
    }

    static func flag(
        _ flag: String, env: String, default defaultText: String = "off", _ help: String,
        _ set: @escaping @Sendable (inout Configuration) -> Void
    ) -> Setting {
        Setting(flag, env: [env], .flag, default: defaultText, help) { configuration, _, _ in set(&configuration) }
    }
}

extension Setting {
    /// A whole number, or a clear error naming the setting.
    static func integer(_ text: String, _ what: String) throws -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw ConfigurationError("\(what) must be a whole number, not '\(text.prefix(40))'.")
        }
        return value
    }

    static func number(_ text: String, _ what: String) throws -> Double {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
            throw ConfigurationError("\(what) must be a number, not '\(text.prefix(40))'.")
        }
        return value
    }
}

/// The list itself, in the order `--help` and the docs show it.
public enum Settings {
    public static let all: [Setting] = [
        .value("host", env: ["ONTHEMAP_HOST"], "address", default: "127.0.0.1", "Address to listen on.") { $0.host = $1 },
        .value("port", env: ["ONTHEMAP_PORT"], "port", default: "8080", "Port to listen on; 0 picks a free one.") {
            $0.port = try Setting.integer($1, "The port")
        },
        .value("data-dir", env: ["ONTHEMAP_DATA_DIR"], "folder", default: "./onthemap-data", "Folder for the database and photos.") {
            $0.dataDirectory = $1
        },
        .value(
            "database-url", env: ["ONTHEMAP_DATABASE_URL"], "url", default: "sqlite://<data-dir>/onthemap.sqlite",
            "Database URL: sqlite:///path/file.sqlite, or postgres://user:password@host:5432/database (?schema=NAME for a schema of its own, ?sslmode=disable|prefer|require; SQLite: ?synchronous=normal trades the last writes before a power loss for speed)."
        ) {
            $0.databaseURL = $1
        },
        .flag("demo", env: "ONTHEMAP_DEMO", "Seed a demo account and a few hundred student locations, once.") { $0.demo = true },
        .value(
            "default-class", env: ["ONTHEMAP_DEFAULT_CLASS"], "slug", default: "main",
            "The class the unprefixed routes (and old apps pointed at the server itself) serve; made at start, members-only and open, when no class has this slug."
        ) {
            $0.defaultClassSlug = $1
        },
        .flag(
            "anyone-creates-classes", env: "ONTHEMAP_ANYONE_CREATES_CLASSES", default: "off: only administrators create classes",
            "Let every account create classes (it becomes their teacher)."
        ) { $0.anyoneCreatesClasses = true },
        .value(
            "parse-app-id", env: ["ONTHEMAP_PARSE_APP_ID"], "id", default: "the original clients' public value",
            "X-Parse-Application-Id required under /parse."
        ) { $0.parseApplicationID = $1 },
        .value(
            "parse-rest-key", env: ["ONTHEMAP_PARSE_REST_KEY"], "key", default: "the original clients' public value",
            "X-Parse-REST-API-Key required under /parse."
        ) { $0.parseRESTAPIKey = $1 },
        .flag(
            "legacy-open-writes", env: "ONTHEMAP_LEGACY_OPEN_WRITES", default: "off: only a record's owner may change it",
            "Let anyone create, change and delete any location, as the original Parse class did."
        ) { $0.legacyOpenWrites = true },
        .value("session-days", env: ["ONTHEMAP_SESSION_DAYS"], "days", default: "30", "Session lifetime in days.") {
            $0.sessionLifetime = try Setting.number($1, "The session lifetime") * 86_400
        },
        .flag(
            "shared-computers", env: "ONTHEMAP_SHARED_COMPUTERS", default: "off: each login chooses",
            "Treat every computer as shared (school labs): every session cookie ends when the browser closes, and the web app's \"This is a shared computer\" starts ticked."
        ) { $0.sharedComputers = true },
        Setting(
            "allowed-origin", env: ["ONTHEMAP_ALLOWED_ORIGINS"], .list("origin", separator: ","),
            default: "none: only the server's own origin may log in and write from a browser",
            "An origin besides this server's own whose pages may log in and write, e.g. https://map.example.org when a proxy rewrites Host; links the server hands out may name it. Repeatable."
        ) {
            configuration, values, _ in configuration.allowedOrigins = values
        },
        .value(
            "public-url", env: ["ONTHEMAP_PUBLIC_URL"], "url", default: "none",
            "The address people use, e.g. https://map.example.org: every link the server hands out starts with it, https makes cookies Secure, its origin may write."
        ) {
            $0.publicURL = $1
        },
        .value(
            "smtp-url", env: ["ONTHEMAP_SMTP_URL"], "url", default: "none: email is not set up",
            "The SMTP relay emails (forgotten passwords, invitations) go through: smtp://user@host:587 (STARTTLS when offered; ?tls=required insists), or smtps://user@host:465 (TLS); ?ca-file=PATH trusts a private CA. Needs --public-url."
        ) { $0.smtpURL = $1 },
        .value(
            nil, env: ["ONTHEMAP_SMTP_PASSWORD"], "password", default: "none, or the one in --smtp-url",
            "The SMTP relay's password (environment only, never logged)."
        ) { $0.smtpPassword = $1 },
        .value(
            "mail-from", env: ["ONTHEMAP_MAIL_FROM"], "address", default: "On the Map <onthemap@the public URL's host>",
            "Who emails come from, e.g. \"On the Map <map@school.example>\" (an address the relay lets this server send as)."
        ) { $0.mailFrom = $1 },
        Setting(
            "trusted-proxy", env: ["ONTHEMAP_TRUSTED_PROXIES"], .list("address", separator: ","),
            default: "none: Forwarded / X-Forwarded-* headers are ignored",
            "A reverse proxy (IP address or CIDR block, e.g. 10.0.0.0/8) whose Forwarded / X-Forwarded-For / X-Forwarded-Proto headers are believed. Repeatable."
        ) {
            configuration, values, _ in configuration.trustedProxies = values
        },
        .value(
            "geocoder-upstream-url", env: ["ONTHEMAP_GEOCODER_UPSTREAM_URL"], "url", default: "none: geocoding is fully offline",
            "A Nominatim-compatible geocoder asked only when the offline gazetteer is unsure (street addresses)."
        ) {
            $0.geocoderUpstreamURL = $1
        },
        .flag(
            "no-list-cache", env: "ONTHEMAP_NO_LIST_CACHE", default: "cache on (on PostgreSQL it hears other servers' writes)",
            "Do not cache StudentLocation list answers between writes."
        ) { $0.cacheListResponses = false },
        .value(
            nil, env: ["FLICKR_API_KEY"], "key", default: "none: Wikimedia Commons",
            "Flickr API key for Travel photos (environment only, so it never shows in ps)."
        ) { $0.flickrAPIKey = $1 },
        .value(
            "flickr-api-url", env: ["ONTHEMAP_FLICKR_API_URL"], "url", default: "https://api.flickr.com/services/rest/",
            "Flickr API base URL for Travel photos (used when FLICKR_API_KEY is set)."
        ) { $0.flickrAPIURL = $1 },
        .value(
            "wikimedia-api-url", env: ["ONTHEMAP_WIKIMEDIA_API_URL"], "url", default: "https://commons.wikimedia.org/w/api.php",
            "Wikimedia Commons API base URL for Travel photos when no Flickr key is set."
        ) { $0.wikimediaAPIURL = $1 },
        .value("photos-per-album", env: ["ONTHEMAP_PHOTOS_PER_ALBUM"], "count", default: "21", "Photos per Travel album, 1 to 100.") {
            $0.photosPerAlbum = try Setting.integer($1, "Photos per album")
        },
        .value(
            "photo-store", env: ["ONTHEMAP_PHOTO_STORE"], "s3://bucket/prefix", default: "none: photos under <data-dir>/photos",
            "Keep Travel photos in an S3-compatible object store (needed to run several servers with Travel)."
        ) { $0.photoStore = $1 },
        .value(
            "photo-store-endpoint", env: ["AWS_ENDPOINT_URL"], "url", default: "AWS S3 in the region",
            "The object store's endpoint, e.g. http://127.0.0.1:8333 (path-style addressing)."
        ) { $0.photoStoreEndpoint = $1 },
        .value(
            "photo-store-region", env: ["AWS_REGION", "AWS_DEFAULT_REGION"], "region", default: "us-east-1",
            "The object store's region."
        ) { $0.photoStoreRegion = $1 },
        .value(nil, env: ["AWS_ACCESS_KEY_ID"], "id", default: "none", "Object store access key id (environment only, never logged).") {
            $0.photoStoreAccessKeyID = $1
        },
        .value(nil, env: ["AWS_SECRET_ACCESS_KEY"], "secret", default: "none", "Object store secret key (environment only, never logged).")
        {
            $0.photoStoreSecretAccessKey = $1
        },
        .value(nil, env: ["AWS_SESSION_TOKEN"], "token", default: "none", "Object store session token (environment only, never logged).") {
            $0.photoStoreSessionToken = $1
        },
        .value(
            "photo-redirect-seconds", env: ["ONTHEMAP_PHOTO_REDIRECT_SECONDS"], "seconds", default: "none: the server relays images",
            "Answer photo image requests with a redirect to a presigned object-store URL valid this many seconds (60 to 604800)."
        ) {
            $0.photoRedirectSeconds = try Setting.integer($1, "Photo redirect seconds")
        },
        .value(
            "photo-claim-seconds", env: ["ONTHEMAP_PHOTO_CLAIM_SECONDS"], "seconds", default: "60",
            "Seconds a server's claim on a photo download lasts unless renewed; a crashed server's downloads move to another after it."
        ) {
            $0.photoClaimSeconds = try Setting.number($1, "The photo claim time")
        },
        .value(
            "tile-url", env: ["ONTHEMAP_TILE_URL"], "template", default: "none: the bundled offline world map only",
            "Tile URL template for street maps, e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png."
        ) { $0.tileURL = $1 },
        .value(
            "leaflet-dir", env: ["ONTHEMAP_LEAFLET_DIR"], "folder", default: "Debian's libjs-leaflet (/usr/share/javascript/leaflet)",
            "A folder with Leaflet 1.x (leaflet.js or leaflet.min.js, leaflet.css, images/), served from this server."
        ) {
            $0.leafletDirectory = $1
        },
        .value(
            "public-dir", env: ["ONTHEMAP_PUBLIC_DIR"], "folder", default: "the bundled web app",
            "Serve the web app from this folder instead of the bundled copy."
        ) { $0.publicDirectory = $1 },
        .value(
            "query-timeout", env: ["ONTHEMAP_QUERY_TIMEOUT"], "seconds", default: "2",
            "Seconds a database query may run before it is cancelled (Parse code 124)."
        ) {
            $0.queryTimeout = try Setting.number($1, "The query timeout")
        },
        .value(
            "regex-concurrency", env: ["ONTHEMAP_REGEX_CONCURRENCY"], "count", default: "2",
            "$regex queries that may run at once; others wait within the query timeout."
        ) {
            $0.concurrentPatternQueries = try Setting.integer($1, "Regex concurrency")
        },
        .value(
            "idle-timeout", env: ["ONTHEMAP_IDLE_TIMEOUT"], "seconds", default: "30",
            "Seconds a connection may stay open with no request (keep-alive)."
        ) {
            $0.idleTimeout = try Setting.number($1, "The idle timeout")
        },
        .value(
            "request-head-timeout", env: ["ONTHEMAP_REQUEST_HEAD_TIMEOUT"], "seconds", default: "10",
            "Seconds from a request's first byte to the end of its headers."
        ) {
            $0.requestHeadTimeout = try Setting.number($1, "The request head timeout")
        },
        .value(
            "request-body-timeout", env: ["ONTHEMAP_REQUEST_BODY_TIMEOUT"], "seconds", default: "30",
            "Seconds from the end of a request's headers to the end of its body."
        ) {
            $0.requestBodyTimeout = try Setting.number($1, "The request body timeout")
        },
        .value(
            "max-connections-per-address", env: ["ONTHEMAP_MAX_CONNECTIONS_PER_ADDRESS"], "count", default: "256",
            "Open connections allowed per client address; more get 503."
        ) {
            $0.maxConnectionsPerAddress = try Setting.integer($1, "Connections per address")
        },
        .value(
            "max-connections", env: ["ONTHEMAP_MAX_CONNECTIONS"], "count", default: "10000, lowered to the open-file limit minus 256",
            "Open connections allowed in all; more get 503."
        ) {
            $0.maxConnections = try Setting.integer($1, "Maximum connections")
        },
        .value(
            "password-hashing-threads", env: ["ONTHEMAP_PASSWORD_HASHING_THREADS"], "count",
            default: "half the cores (at least 1, at most 4)",
            "Threads that hash passwords, apart from database work."
        ) {
            $0.passwordHashingThreads = try Setting.integer($1, "Password hashing threads")
        },
        .value(
            "password-hashing-queue", env: ["ONTHEMAP_PASSWORD_HASHING_QUEUE"], "count", default: "32",
            "Logins and sign-ups that may wait for a hashing thread; more get 503."
        ) {
            $0.passwordHashingQueue = try Setting.integer($1, "The password hashing queue")
        },
        .value(
            "bcrypt-cost", env: ["ONTHEMAP_BCRYPT_COST"], "4-31", default: "12",
            "bcrypt work factor for new password hashes; below 10 only for tests (serve warns)."
        ) {
            guard let cost = UInt8(exactly: try Setting.integer($1, "The bcrypt cost")) else {
                throw ConfigurationError("The bcrypt cost must be a number from 4 to 31, not '\($1.prefix(40))'.")
            }
            $0.bcryptCost = cost
        },
        Setting(
            "oidc-provider", env: ["ONTHEMAP_OIDC_PROVIDERS"], .list("spec", separator: ";"), default: "none",
            "An OpenID Connect provider students may sign in with: 'id=school,name=School account,issuer=https://accounts.google.com,client-id=…,client-secret-env=VAR' (client-secret=… also works but shows in ps; scopes='openid email profile'). Repeatable."
        ) {
            configuration, specs, environment in
            configuration.oidcProviders = try specs.map { try OIDCProviderSettings.parse($0, environment: environment) }
        },
        .value(
            "facebook-app-id", env: ["ONTHEMAP_FACEBOOK_APP_ID"], "id", default: "none: Facebook off",
            "Facebook app id for Facebook Login (the secret only from FACEBOOK_APP_SECRET)."
        ) {
            $0.facebook = FacebookSettings(appID: $1, appSecret: "")
        },
        .value(nil, env: ["FACEBOOK_APP_SECRET"], "secret", default: "none", "Facebook app secret (environment only, never logged).") {
            $0.facebook?.appSecret = $1
        },
        .value(
            "facebook-dialog-url", env: ["ONTHEMAP_FACEBOOK_DIALOG_URL"], "url", default: FacebookSettings.defaultDialogURL,
            "Facebook's login dialog."
        ) { $0.facebook?.dialogURL = $1 },
        .value(
            "facebook-graph-url", env: ["ONTHEMAP_FACEBOOK_GRAPH_URL"], "url", default: FacebookSettings.defaultGraphURL,
            "Facebook's Graph API base."
        ) { $0.facebook?.graphURL = $1 },
        .value(
            "metrics-token", env: ["ONTHEMAP_METRICS_TOKEN"], "token", default: "none: /metrics is open",
            "Token a Prometheus scraper must send as Authorization: Bearer <token> for /metrics."
        ) { $0.metricsToken = $1 },
        .value(
            "log-level", env: ["LOG_LEVEL"], "level", default: "info", "Log level: trace, debug, info, notice, warning, error, critical."
        ) {
            guard let level = Logger.Level(rawValue: $1.lowercased()) else {
                throw ConfigurationError("Unknown log level '\($1.prefix(40))'.")
            }
            $0.logLevel = level
        },
        .value(
            "log-format", env: ["ONTHEMAP_LOG_FORMAT"], "text|json", default: "text",
            "Log lines as text, or json (one object a line with time, level, message and every metadata field)."
        ) {
            guard let format = Configuration.LogFormat(rawValue: $1.lowercased()) else {
                throw ConfigurationError("Unknown log format '\($1.prefix(40))': use text or json.")
            }
            $0.logFormat = format
        },
    ]

    /// A configuration from command-line arguments (without the command name), then the
    /// environment, then the defaults; validated. Unknown or incomplete options are errors.
    public static func configuration(arguments: [String], environment: [String: String]) throws -> Configuration {
        var given: [String: [String]] = [:]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw ConfigurationError(
                    "Unexpected argument '\(argument.prefix(60))': settings are --name value; `onthemap serve --help` lists them.")
            }
            var name = String(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let setting = all.first(where: { $0.flag == name }) else {
                throw ConfigurationError("Unknown option '--\(name.prefix(60))'; `onthemap serve --help` lists them.")
            }
            switch setting.kind {
            case .flag:
                guard inline == nil else { throw ConfigurationError("--\(name) takes no value.") }
                given[name, default: []] = []
            case .value, .list:
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard index < arguments.count else { throw ConfigurationError("--\(name) needs a value.") }
                    value = arguments[index]
                    index += 1
                }
                given[name, default: []].append(value)
            }
        }
        var configuration = Configuration()
        for setting in all {
            if let flag = setting.flag, let values = given[flag] {
                try setting.apply(&configuration, values, environment)
                continue
            }
            guard let text = setting.environment.lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) else { continue }
            switch setting.kind {
            case .flag:
                if ["1", "true", "yes"].contains(text.lowercased()) { try setting.apply(&configuration, [], environment) }
            case .value:
                try setting.apply(&configuration, [text], environment)
            case .list(_, let separator):
                let values = text.split(separator: separator).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                try setting.apply(&configuration, values, environment)
            }
        }
        try configuration.validate()
        return configuration
    }

    /// What `onthemap serve --help` lists.
    public static var helpText: String {
        var lines = wrap("Settings (a flag wins over its environment variable, which wins over the default):", indent: 0) + [""]
        for setting in all {
            let name: String
            switch setting.kind {
            case .flag: name = setting.flag.map { "--\($0)" } ?? ""
            case .value(let placeholder), .list(let placeholder, _):
                name = setting.flag.map { "--\($0) <\(placeholder)>" } ?? "(environment only)"
            }
            var environment = setting.environment.joined(separator: " or ")
            switch setting.kind {
            case .flag: environment += "=1"
            case .list(_, let separator): environment += ", separated by \(separator)"
            case .value: break
            }
            lines.append("  \(name)")
            lines += wrap("\(setting.help) [env: \(environment)] (default: \(setting.defaultText))", indent: 6)
        }
        return lines.joined(separator: "\n")
    }

    /// Lines of at most 78 characters (ArgumentParser would otherwise wrap them without the indent).
    static func wrap(_ text: String, indent: Int, width: Int = 78) -> [String] {
        let prefix = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = prefix
        for word in text.split(separator: " ") {
            if line.count > indent, line.count + 1 + word.count > width {
                lines.append(line)
                line = prefix
            }
            line += (line.count > indent ? " " : "") + word
        }
        if line.count > indent { lines.append(line) }
        return lines
    }

    /// The docs' settings table (the hosting guide holds it between markers; a test checks).
    public static var markdownTable: String {
        var lines = ["| flag | environment | default | meaning |", "|---|---|---|---|"]
        for setting in all {
            let flag: String
            switch setting.kind {
            case .flag: flag = "`--\(setting.flag ?? "")`"
            case .value, .list: flag = setting.flag.map { "`--\($0)`" } ?? "(environment only)"
            }
            var environment = setting.environment.map { "`\($0)`" }.joined(separator: " or ")
            if case .list(_, let separator) = setting.kind { environment += " (`\(separator)`-separated)" }
            if case .flag = setting.kind { environment += " `=1`" }
            let cells = [flag, environment, setting.defaultText, setting.help].map {
                $0.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(
                    of: ">", with: "&gt;")
            }
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }
}
