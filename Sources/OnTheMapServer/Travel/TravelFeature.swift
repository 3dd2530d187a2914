import Foundation
import Logging
import ObjectStorage
import PhotoAlbums
import Storage

/// Builds the Travel feature's long-lived parts from the configuration.
enum TravelFeature {
    /// Repairs photo files left inconsistent by a crash, then makes the album service
    /// (to be registered with the application's services).
    static func makeAlbumService(
        store: SQLStore, configuration: Configuration, events: AlbumEvents = AlbumEvents(), metrics: ServerMetrics? = nil, logger: Logger
    ) async throws -> AlbumService {
        // Beside other servers (a shared database or store), the repair judges only what was
        // left alone long enough to be abandoned: claims expired several times over.
        let sqlStore = store
        let shared = store.photoStorage.isShared || sqlStore.isPostgres
        // A store that cannot be used stops the start with what to fix, not with its raw error.
        try await store.photoStorage.checkAvailable()
        let abandonedBefore =
            shared
            ? configuration.clock.now().addingTimeInterval(-max(600, 4 * configuration.photoClaimSeconds)) : configuration.clock.now()
        let report = try await store.sweepPhotoFiles(abandonedBefore: abandonedBefore)
        if report != PhotoSweepReport() {
            logger.notice(
                "photo files repaired",
                metadata: [
                    "rowsMarkedFailed": "\(report.rowsMarkedFailed)", "filesDeleted": "\(report.filesDeleted)",
                    "foldersDeleted": "\(report.foldersDeleted)",
                ])
        }
        logger.info("travel photo store", metadata: ["store": "\(store.photoStorage)"])
        if sqlStore.isPostgres, !store.photoStorage.isShared {
            logger.notice(
                "Travel photos are in this server's data directory: to run several servers, give them all one --photo-store s3://bucket/prefix"
            )
        }
        let concurrency = max(1, configuration.photoDownloadConcurrency)
        let fetcher = HTTPFetcher(
            userAgent: configuration.photoUserAgent ?? HTTPFetcher.defaultUserAgent,
            maximumConnectionsPerHost: concurrency + 2)
        let provider = try makeProvider(configuration: configuration, fetcher: fetcher)
        logger.info("travel photos", metadata: ["provider": "\(provider.displayName)"])
        let downloader = ImageDownloader(fetcher: fetcher, concurrency: concurrency, timeout: configuration.photoRequestTimeout)
        var sharing = AlbumService.Sharing()
        sharing.claimDuration = max(1, configuration.photoClaimSeconds)
        // A search runs at most two provider requests (each with its deadline) before its state changes.
        sharing.sharedDatabase = sqlStore.isPostgres
        sharing.searchAbandonedAfter = max(4 * sharing.claimDuration, 4 * configuration.photoRequestTimeout + 30)
        if let feed = sqlStore.albumChangeFeed() {
            sharing.feed = feed
            sharing.announce = { payload in await sqlStore.announceAlbumChange(payload) }
        }
        if provider is FlickrProvider, let key = configuration.flickrAPIKey {
            // Counted per key (its digest: the key itself never reaches the database).
            sharing.providerSearchesPerHour = max(1, configuration.flickrSearchesPerHour)
            sharing.quotaName = "provider:flickr:" + String(SigV4Signer.sha256Hex(Data(key.utf8)).prefix(16))
        }
        return AlbumService(
            store: store, provider: provider, downloader: downloader, fetcher: fetcher, events: events,
            photosPerAlbum: configuration.photosPerAlbum, logger: logger, sharing: sharing, clock: configuration.clock, metrics: metrics
        )
    }

    /// The object store `photoStore` names, or nil for the data directory's folder.
    static func makePhotoStorage(configuration: Configuration) throws -> (any PhotoStorage)? {
        guard let text = configuration.photoStore, !text.isEmpty else { return nil }
        guard let location = PhotoStoreLocation(text) else {
            throw ConfigurationError("The photo store must look like s3://bucket or s3://bucket/prefix, not '\(text)'.")
        }
        let endpointText = configuration.photoStoreEndpoint ?? "https://s3.\(configuration.photoStoreRegion).amazonaws.com"
        guard let endpoint = URL(string: endpointText), ["http", "https"].contains(endpoint.scheme?.lowercased() ?? ""),
            endpoint.host != nil, endpoint.path.isEmpty || endpoint.path == "/", endpoint.query == nil, endpoint.user == nil
        else {
            throw ConfigurationError(
                "The photo store endpoint must be an http(s) URL with no path, like http://127.0.0.1:8333, not '\(endpointText)'.")
        }
        guard let keyID = configuration.photoStoreAccessKeyID, !keyID.isEmpty,
            let secret = configuration.photoStoreSecretAccessKey, !secret.isEmpty
        else {
            throw ConfigurationError("The photo store needs credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.")
        }
        let client = S3Client(
            configuration: S3Configuration(
                endpoint: endpoint, region: configuration.photoStoreRegion, bucket: location.bucket,
                credentials: AWSCredentials(accessKeyID: keyID, secretAccessKey: secret, sessionToken: configuration.photoStoreSessionToken)
            ),
            // The store's own deadline (30 s a call), not the photo providers': it is this server's
            // storage, and a listing at start-up can be long.
            maximumConnections: configuration.photoDownloadConcurrency + 4)
        return S3PhotoStore(client: client, prefix: location.prefix)
    }

    /// Flickr when a key is configured; the demo's own pictures when `--demo` names no photo
    /// service (so the demo works offline); Wikimedia Commons otherwise.
    static func makeProvider(configuration: Configuration, fetcher: HTTPFetcher) throws -> any PhotoProvider {
        if configuration.demo, configuration.flickrAPIKey?.isEmpty ?? true, configuration.wikimediaAPIURL == Configuration().wikimediaAPIURL
        {
            return GeneratedPhotoProvider()
        }
        if let key = configuration.flickrAPIKey, !key.isEmpty {
            return FlickrProvider(
                apiKey: key, baseURL: try httpURL(configuration.flickrAPIURL, "Flickr API"),
                fetcher: fetcher, timeout: configuration.photoRequestTimeout)
        }
        return WikimediaProvider(
            baseURL: try httpURL(configuration.wikimediaAPIURL, "Wikimedia API"),
            fetcher: fetcher, timeout: configuration.photoRequestTimeout)
    }

    static func httpURL(_ text: String, _ name: String) throws -> URL {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw ConfigurationError("The \(name) URL must be an http(s) URL, not '\(text)'.")
        }
        return url
    }
}
