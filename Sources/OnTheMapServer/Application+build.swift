import Foundation
import Geocoding
import Hummingbird
import Logging
import OnTheMapModels
import ServiceLifecycle
import Storage

/// Builds the whole server from a configuration; `onthemap serve` runs it and tests call
/// the same function.
/// `onServerRunning` gets the port actually bound (useful with port 0) and what a host
/// starting it should hear.
public func buildApplication(
    configuration: Configuration, logger: Logger? = nil,
    onServerRunning: @escaping @Sendable (_ started: ServerStarted) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    try configuration.validate()
    let logger = logger ?? configuration.makeLogger()
    let trustedProxies = try TrustedProxies(configuration.trustedProxies)
    let limits = QueryLimits(timeout: configuration.queryTimeout, concurrentPatternQueries: configuration.concurrentPatternQueries)
    FreedMemory.keepLargeBlocksApart()
    // The gazetteer (half a second) loads on a thread of its own while the database opens:
    // the geocoder and the live map's first snapshot need it next.
    BundledGazetteer.loadAhead()
    let store = try await SQLStore.open(
        url: configuration.resolvedDatabaseURL, dataDirectory: configuration.dataDirectory,
        photoStorage: try TravelFeature.makePhotoStorage(configuration: configuration), limits: limits, logger: logger
    )
    do {
        return try await assemble(
            store: store, configuration: configuration, logger: logger, trustedProxies: trustedProxies,
            onServerRunning: onServerRunning)
    } catch {
        // The caller gets the error, not a trap: a pool released unclosed would assert.
        try? await store.close()
        throw error
    }
}

/// Everything past opening the database: the features, their services and the router.
private func assemble(
    store: SQLStore, configuration: Configuration, logger: Logger, trustedProxies: TrustedProxies,
    onServerRunning: @escaping @Sendable (_ started: ServerStarted) async -> Void
) async throws -> some ApplicationProtocol {
    let directory = ClassDirectory(store: store, defaultSlug: configuration.defaultClassSlug, clock: configuration.clock)
    let defaultClass = try await directory.ensureDefaultClass(now: configuration.clock.now())
    if defaultClass.visibility == .public {
        logger.notice(
            """
            The default class '\(defaultClass.slug)' is public: anyone, signed in or not, can read its map. \
            To make it members-only: onthemap admin class set \(defaultClass.slug) --visibility members
            """)
    }
    if configuration.demo {
        try await DemoSeeder.seed(store, classId: defaultClass.id, bcryptCost: configuration.bcryptCost, logger: logger)
    }
    let hasAccounts = try await store.hasAccounts()
    let geocoder = try makeGeocoder(configuration: configuration)
    let events = AlbumEvents()
    let metrics = ServerMetrics(samplers: [{ ("onthemap_album_live_viewers", Double(events.watcherCount)) }])
    let albums = try await TravelFeature.makeAlbumService(
        store: store, configuration: configuration, events: events, metrics: metrics,
        logger: logger)
    let hashing = PasswordHashing(threads: configuration.resolvedPasswordHashingThreads, queueLimit: configuration.passwordHashingQueue)
    var services: [any Service] = [
        StoreService(store: store), PasswordHashingService(hashing: hashing),
        SessionSweeper(sessions: store, clock: configuration.clock, logger: logger), albums,
    ]
    let mailWake = MailOutboxWake()
    if let transport = configuration.mailTransport {
        services.append(
            MailOutboxWorker(
                outbox: store, transport: transport, clock: configuration.clock, metrics: metrics, logger: logger, wake: mailWake,
                settings: configuration.mailOutbox))
        logger.info("email through \(transport.settings.description)")
    }
    var listCache: ListResponseCache?
    if configuration.cacheListResponses {
        if let feed = store.locationChangeFeed() {
            // Other servers may write: cache only while hearing about their writes.
            let cache = ListResponseCache(suspended: true, metrics: metrics)
            services.append(ListCacheInvalidation(feed: feed, cache: cache, logger: logger))
            listCache = cache
        } else {
            listCache = ListResponseCache(metrics: metrics)
        }
    }
    let cache = listCache
    let callers = configuration.callerCacheSeconds > 0 ? CallerCache(lifetime: configuration.callerCacheSeconds) : nil
    let live = LiveLocations(
        store: store, settings: configuration.liveMap, logger: logger,
        beforePublishing: { cache?.invalidate(classes: $0) },
        accessEnded: { callers?.forget(ended: $0, classId: $1) },
        teachersOf: { classId in Set((try? await store.memberKeys(classId: classId, role: .teacher)) ?? []) })
    try await live.start()
    services.append(LiveLocationsService(live: live, feed: store.locationChangeFeed(), warmClassId: defaultClass.id))
    let mailer = Mailer(configuration: configuration, wake: mailWake)
    if let mailer {
        services.append(ClassNoticeWorker(store: store, mailer: mailer, clock: configuration.clock, logger: logger))
    }
    let router = buildRouter(
        store: store, geocoder: geocoder, albums: albums, listCache: listCache, hashing: hashing,
        trustedProxies: trustedProxies, configuration: configuration, logger: logger, directory: directory, live: live, metrics: metrics,
        mailer: mailer, callers: callers
    )
    let bounds = ConnectionBounds(configuration: configuration, trustedProxies: trustedProxies)
    return Application(
        responder: RequestTaskResponder(wrapped: ClassPrefixResponder(wrapped: router.buildResponder(), directory: directory)),
        server: .http1(configuration: .init(additionalChannelHandlers: [ConnectionGuardHandler(bounds: bounds)])),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "onthemap"),
        // Shut down in reverse order: album downloads stop before the database closes.
        services: services,
        onServerRunning: { channel in
            await onServerRunning(ServerStarted(port: channel.localAddress?.port ?? configuration.port, hasAccounts: hasAccounts))
        },
        logger: logger
    )
}

/// A server that has just started listening.
public struct ServerStarted: Sendable {
    /// The port bound (the one asked for, or the free one picked for port 0).
    public let port: Int
    /// False on a new server: its first sign-up becomes the administrator.
    public let hasAccounts: Bool
}

func makeGeocoder(configuration: Configuration) throws -> any Geocoder {
    let gazetteer = try BundledGazetteer.shared.get()
    guard let text = configuration.geocoderUpstreamURL, !text.isEmpty, let url = Configuration.httpURL(text) else { return gazetteer }
    return FallbackGeocoder(primary: gazetteer, upstream: UpstreamGeocoder(baseURL: url))
}

func buildRouter(
    store: any OnTheMapStore, geocoder: any Geocoder, albums: AlbumService, listCache: ListResponseCache?,
    hashing: PasswordHashing, trustedProxies: TrustedProxies, configuration: Configuration, logger: Logger,
    directory: ClassDirectory, live: LiveLocations? = nil, metrics: ServerMetrics = ServerMetrics(), mailer: Mailer? = nil,
    callers: CallerCache? = nil
) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    router.add(
        middleware: ForwardedClientMiddleware(
            trusted: trustedProxies, publicURLIsHTTPS: configuration.publicOrigin?.hasPrefix("https:") == true))
    router.add(middleware: RequestLoggingMiddleware())
    router.add(middleware: MetricsMiddleware(metrics: metrics))
    router.add(middleware: ErrorFormatMiddleware())
    router.add(
        middleware: CrossSiteRequestGuard(allowedOrigins: configuration.allowedOrigins + [configuration.publicOrigin].compactMap { $0 }))
    // The request's class (`/c/<slug>/…` or the default), before anything reads the caller.
    router.add(middleware: ClassMiddleware(directory: directory, metrics: metrics))

    router.get("health") { _, _ in
        JSONResponse.raw(Data(#"{"status":"ok"}"#.utf8))
    }
    OpenAPIDocument.addRoute(to: router)
    MetricsRoute(metrics: metrics, token: configuration.metricsToken).register(on: router)

    // Who is asking is resolved once per request, on the routes that read it (`context.caller`).
    let caller = CallerMiddleware(sessions: store, clock: configuration.clock, cache: callers)
    let root = router.group().add(middleware: caller)
    let api = router.group("api").add(middleware: caller)
    let accounts = AccountsService(store: store, configuration: configuration, hashing: hashing)
    let signInProviders = SignInProviders(configuration: configuration)
    SignInController(accounts: accounts, providers: signInProviders, store: store).addRoutes(root: root, api: api)
    IdentityController(store: store, providers: signInProviders).addRoutes(to: api)

    let sessions = SessionController(accounts: accounts, store: store, facebook: signInProviders.facebook)
    for prefix in ["api", "v1"] {
        sessions.addRoutes(to: router.group(RouterPath(prefix)).add(middleware: caller))
    }
    AccountController(accounts: accounts, store: store).addRoutes(to: api)
    PasswordResetController(accounts: accounts, store: store).addRoutes(to: api)
    ForgotPasswordController(store: store, mailer: mailer, configuration: configuration).addRoutes(to: api)
    ClassNoticeController(store: store, directory: directory, mailer: mailer, configuration: configuration).addRoutes(to: api)
    let writes = LocationWrites(store: store, cache: listCache, live: live)
    ModerationController(accounts: accounts, store: store, writes: writes).addRoutes(to: api)
    let classWrites = ClassWrites(store: store, directory: directory, locations: writes)
    ClassController(accounts: accounts, store: store, directory: directory, classes: classWrites, writes: writes).addRoutes(to: api)
    ClassInviteController(store: store, directory: directory, mailer: mailer, configuration: configuration).addRoutes(to: api)
    ClassReminderController(store: store, directory: directory, mailer: mailer, configuration: configuration).addRoutes(to: api)
    ClassExportController(store: store, directory: directory).addRoutes(to: api)
    PersonalDataController(accounts: accounts, store: store, writes: writes).addRoutes(to: api)
    AccountNameController(configuration: configuration, writes: writes).addRoutes(to: api)

    let ltiHTTP = URLSessionSignInClient()
    let ltiPlatforms = LTIPlatforms(store: store, http: ltiHTTP, clock: configuration.clock)
    let ltiKeys = LTIToolKeys(store: store, clock: configuration.clock)
    let lti = LTIController(
        accounts: accounts, platforms: ltiPlatforms, keys: ltiKeys,
        provisioning: LTIProvisioning(accounts: accounts, directory: directory, classes: classWrites, store: store),
        roster: LTIRosterSync(store: store, keys: ltiKeys, http: ltiHTTP, writes: writes, clock: configuration.clock), store: store)
    lti.addRoutes(root: root)
    lti.addRoutes(api: api)
    LTIRegistration(store: store, platforms: ltiPlatforms, publicOrigin: accounts.publicOrigin, clock: configuration.clock).addRoutes(
        root: root)

    StudentLocationController(store: store, configuration: configuration, allowsUniqueKeyShortcut: false, cache: listCache, writes: writes)
        .addRoutes(
            to: router.group("parse/classes/StudentLocation")
                .add(
                    middleware: ParseCredentialsMiddleware(
                        applicationID: configuration.parseApplicationID, restAPIKey: configuration.parseRESTAPIKey)
                )
                .add(middleware: caller)
                .group(context: ClassRequestContext.self))
    StudentLocationController(store: store, configuration: configuration, allowsUniqueKeyShortcut: true, cache: listCache, writes: writes)
        .addRoutes(to: router.group("v1/StudentLocation").add(middleware: caller).group(context: ClassRequestContext.self))

    // The class's map: its routes run in the class's own context (`ClassRequestContext`).
    let locations = router.group("api/locations").add(middleware: caller).group(context: ClassRequestContext.self)
    if let live {
        LiveMapController(live: live, store: store).addRoutes(to: locations)
    }
    PlacementController().addRoutes(to: locations)
    StudentSearchController(store: store, places: try? BundledGazetteer.shared.get()).addRoutes(to: locations)
    GeocodeController(
        geocoder: geocoder, limiter: RateLimiter(perSecond: configuration.geocodeRatePerSecond, burst: configuration.geocodeBurst)
    )
    .addRoutes(to: router.group("api/geocode"))
    TravelController(
        store: store, albums: albums, geocoder: geocoder, configuration: configuration,
        searchLimiter: SearchAllowance(
            store: store, clock: configuration.clock, limit: max(1, configuration.photoSearchesPerWindow),
            windowSeconds: max(1, configuration.photoSearchWindowSeconds))
    )
    .addRoutes(to: api)

    WebAppRoutes(configuration: configuration, logger: logger).register(on: router, framing: ltiPlatforms, embedding: directory)
    return router
}

/// Closes the database when the server shuts down.
struct StoreService: Service {
    let store: SQLStore

    func run() async throws {
        try? await gracefulShutdown()
        try await store.close()
    }
}

/// Deletes expired sessions, stale login counters, sign-ins and LTI launches that were never
/// finished, and spent LTI keys, hourly, so the tables do not grow forever.
struct SessionSweeper: Service {
    let sessions: any SessionRepository & LoginThrottleRepository & SignInRepository & LTIRepository
    let clock: WallClock
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let now = clock.now()
                let removed = try await sessions.deleteExpiredSessions(now: now)
                if removed > 0 { logger.info("expired sessions removed", metadata: ["count": "\(removed)"]) }
                // Counters of guesses that stopped a day ago, so spraying emails cannot grow the table.
                try await sessions.deleteStaleLoginFailures(before: now.addingTimeInterval(-86_400))
                try await sessions.deleteExpiredPendingSignIns(now: now)
                try await sessions.deleteExpiredLTILogins(now: now)
                try await sessions.deleteToolKeys(retiredBefore: now.addingTimeInterval(-LTIToolKeys.retiredKeyLifetime))
            } catch {
                logger.warning("session sweep failed", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(3600)) }
        }
    }
}
