import Foundation
import Logging
import OnTheMapModels
import Storage

/// Everything `onthemap serve` can be told. Filled from flags, then environment variables,
/// then these defaults, as `Settings` declares each one; checked by `validate()`.
public struct Configuration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// Holds the SQLite file (and later the photo files).
    public var dataDirectory = "./onthemap-data"
    /// `sqlite:///path/file.sqlite`; nil means `<dataDirectory>/onthemap.sqlite`.
    public var databaseURL: String?
    /// Seed a demo account and a few hundred locations on start.
    public var demo = false
    /// The slug of the class the unprefixed routes serve (see `ClassDirectory`).
    public var defaultClassSlug = "main"
    /// Every account may create classes, not only administrators.
    public var anyoneCreatesClasses = false
    /// Parse credentials required under `/parse`; the defaults are the public values the
    /// original clients hard-code, so they work unchanged.
    public var parseApplicationID = ParseCredentials.applicationID
    public var parseRESTAPIKey = ParseCredentials.restAPIKey
    /// Anyone may write any StudentLocation, as the original Parse class allowed.
    public var legacyOpenWrites = false
    public var sessionLifetime: TimeInterval = 30 * 24 * 3600
    /// Every computer using this server is a shared one (school labs): every session cookie
    /// ends when the browser closes, and the web app's "This is a shared computer" starts checked.
    public var sharedComputers = false
    /// Origins besides the server's own whose pages may log in and write (see
    /// `CrossSiteRequestGuard`), as `scheme://host[:port]`.
    public var allowedOrigins: [String] = []
    /// Reverse proxies (IP addresses or CIDR blocks) whose `Forwarded` / `X-Forwarded-*`
    /// headers are believed; from anyone else they are ignored.
    public var trustedProxies: [String] = []
    /// The address students use, e.g. `https://map.example.org`: its origin may write, its
    /// scheme makes cookies `Secure`, and absolute URLs are built from it.
    public var publicURL: String?
    /// The SMTP relay emails go through (`SMTPSettings`); nil: email is not set up, and every
    /// feature that would send one says so.
    public var smtpURL: String?
    /// `ONTHEMAP_SMTP_PASSWORD`, which wins over a password in `smtpURL`. Never logged.
    public var smtpPassword: String?
    /// `On the Map <map@school.example>`; nil: `onthemap@` the public URL's host.
    public var mailFrom: String?
    /// The mail worker's timings (see `MailOutboxWorker.Settings`); tests shorten them.
    var mailOutbox = MailOutboxWorker.Settings()
    /// Login and sign-up throttling (see `LoginThrottle`).
    var loginThrottle = LoginThrottle.Settings()
    /// bcrypt work factor; tests lower it to stay fast.
    public var bcryptCost: UInt8 = 12
    /// Serve the web app from this folder instead of the bundled copy (for live editing).
    public var publicDirectory: String?
    /// A folder holding Leaflet (Debian's or npm's `dist` file names); nil uses Debian's
    /// `libjs-leaflet` package. Browsers never load it elsewhere.
    public var leafletDirectory: String?
    /// An OpenStreetMap-style tile URL template; nil keeps the offline vector basemap only.
    public var tileURL: String?
    /// A Nominatim-compatible geocoder asked only when the offline gazetteer has no
    /// confident answer (street addresses); nil keeps geocoding fully offline.
    public var geocoderUpstreamURL: String?
    /// Geocoding requests allowed per client address: sustained rate and burst.
    public var geocodeRatePerSecond: Double = 10
    public var geocodeBurst: Double = 30
    /// Keep encoded StudentLocation list answers until the next write. On PostgreSQL the
    /// cache also listens for other servers' writes (LISTEN/NOTIFY), so it stays correct
    /// when several servers share the database.
    public var cacheListResponses = true
    /// Photo searches (pin dropped or moved, New Collection) allowed per account in each
    /// window, counted in the database for every server together. A Flickr key allows 3,600
    /// searches an hour for all users together (counted separately).
    public var photoSearchesPerWindow = 20
    public var photoSearchWindowSeconds = 60
    /// Largest request body accepted, in bytes.
    public var maxBodySize = 64 * 1024
    /// Travel photos come from Flickr when this key is set (`FLICKR_API_KEY`), from
    /// Wikimedia Commons otherwise.
    public var flickrAPIKey: String?
    /// Base URLs of the photo providers, so a mirror, a proxy or a test stub can stand in.
    public var flickrAPIURL = "https://api.flickr.com/services/rest/"
    public var wikimediaAPIURL = "https://commons.wikimedia.org/w/api.php"
    /// Photos in a pin's album.
    public var photosPerAlbum = 21
    /// Image downloads in flight at once, across all albums (21 photos = 3 rounds of 7).
    public var photoDownloadConcurrency = 7
    /// Deadline for one provider search or image download, in seconds (one retry follows
    /// a failed download).
    public var photoRequestTimeout: TimeInterval = 15
    /// User-Agent sent to the photo providers; nil uses a descriptive default.
    public var photoUserAgent: String?
    /// `s3://bucket/prefix`: photo images go to an S3-compatible object store several
    /// servers share; nil keeps them under `<dataDirectory>/photos`.
    public var photoStore: String?
    /// The object store's endpoint (`AWS_ENDPOINT_URL`), e.g. http://127.0.0.1:8333; nil: AWS S3 in `photoStoreRegion`.
    public var photoStoreEndpoint: String?
    /// `AWS_REGION`.
    public var photoStoreRegion = "us-east-1"
    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`. Never logged.
    public var photoStoreAccessKeyID: String?
    public var photoStoreSecretAccessKey: String?
    public var photoStoreSessionToken: String?
    /// With an object store: answer image requests with a redirect to a presigned URL valid
    /// this many seconds, instead of relaying the bytes; nil relays.
    public var photoRedirectSeconds: Int?
    /// Seconds a server's claim on a photo download lasts unless renewed; a crashed
    /// server's downloads are taken over by another this long after.
    public var photoClaimSeconds: TimeInterval = 60
    /// Flickr searches an hour for one API key, every server together (Flickr allows 3,600).
    public var flickrSearchesPerHour = 3_600

    // MARK: Bounds: no query or connection pattern lets one client starve the rest.

    /// Seconds a database statement may run before the database cancels it (Parse answers
    /// code 124); also the longest wait for a pooled connection or a `$regex` turn.
    public var queryTimeout: TimeInterval = 2
    /// `$regex` queries running at once; the rest wait their turn within `queryTimeout`.
    public var concurrentPatternQueries = 2
    /// Seconds an open connection may sit with no request before it is closed (keep-alive).
    public var idleTimeout: TimeInterval = 30
    /// Seconds from a request's first byte to the end of its head (slow-header clients).
    public var requestHeadTimeout: TimeInterval = 10
    /// Seconds from the end of a request's head to the end of its body (slow-body clients).
    public var requestBodyTimeout: TimeInterval = 30
    /// Open connections allowed per client address; more are answered 503 and closed.
    public var maxConnectionsPerAddress = 256
    /// Open connections allowed in all; nil: 10,000, lowered to fit the file-descriptor limit.
    public var maxConnections: Int?
    /// Threads that hash passwords (bcrypt), apart from the pool database work uses; nil:
    /// half the cores, so a login flood leaves the rest to readers and writers.
    public var passwordHashingThreads: Int?
    /// Logins and sign-ups waiting for a hashing thread; past this they are answered 503 at once.
    public var passwordHashingQueue = 32
    /// When set, `/metrics` answers only `Authorization: Bearer <token>`.
    public var metricsToken: String?
    /// The time of day as the server reads it; tests move a `ManualClock` instead of waiting.
    public var clock = WallClock.system
    /// The server's log level and line format, for a logger `buildApplication` makes itself.
    public var logLevel = Logger.Level.info
    public var logFormat = LogFormat.text

    public enum LogFormat: String, Sendable {
        case text
        /// One JSON object a line (`JSONLogHandler`).
        case json
    }

    /// OpenID Connect providers students may sign in with (see `OIDCProviderSettings`).
    public var oidcProviders: [OIDCProviderSettings] = []
    /// Facebook Login, for the web app and old clients' `facebook_mobile` logins; nil: off.
    public var facebook: FacebookSettings?
    /// Seconds a browser may spend on a provider's pages before its sign-in expires; tests shorten it.
    var signInLifetime: TimeInterval = 600
    /// Least seconds between two fetches of a provider's keys for an unknown `kid` (so forged
    /// tokens cannot make us hammer the provider); tests set 0.
    var signInKeyRefetchInterval: TimeInterval = 30

    /// The live map's buffers and timings (see `LiveLocations.Settings`); tests shorten them.
    var liveMap = LiveLocations.Settings()
    /// How long a signed-in caller resolved for a read may answer the next reads without the
    /// database (`CallerCache`); 0 turns the cache off. What ends access empties it sooner.
    var callerCacheSeconds: TimeInterval = 2

    public init() {}

    /// `publicURL`'s origin (`https://map.example.org`); nil when unset or not an http(s) URL.
    public var publicOrigin: String? {
        guard let publicURL, var components = URLComponents(string: publicURL) else { return nil }
        components.path = ""
        components.query = nil
        components.fragment = nil
        return components.string.flatMap(Self.normalizedOrigin)
    }

    /// `text` as a comparable origin, or nil when it is not one.
    public static func normalizedOrigin(_ text: String) -> String? {
        CrossSiteRequestGuard<AppRequestContext>.normalizedOrigin(text)
    }

    /// `maxConnections` in effect: the setting, or 10,000 lowered to what the file-descriptor
    /// limit allows.
    public var resolvedMaxConnections: Int {
        if let maxConnections { return max(1, maxConnections) }
        guard let descriptors = FileDescriptorLimit.current else { return 10_000 }
        // Keep room for database connections, photo files and the listening socket.
        let available = descriptors - 256
        return max(64, min(10_000, available))
    }

    /// `passwordHashingThreads` in effect.
    public var resolvedPasswordHashingThreads: Int {
        max(1, passwordHashingThreads ?? min(4, ProcessInfo.processInfo.activeProcessorCount / 2))
    }

    public var usesPostgreSQL: Bool {
        resolvedDatabaseURL.lowercased().hasPrefix("postgres")
    }

    /// The database in effect, fit for logs: a password in the URL is masked.
    public var databaseDescription: String {
        SQLStore.redactedDatabaseURL(resolvedDatabaseURL)
    }

    /// The database URL in effect.
    public var resolvedDatabaseURL: String {
        if let databaseURL, !databaseURL.isEmpty { return databaseURL }
        let directory = URL(fileURLWithPath: dataDirectory, isDirectory: true)
        return "sqlite://" + directory.appendingPathComponent("onthemap.sqlite").path
    }
}
