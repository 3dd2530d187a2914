import Foundation
import Logging
import PhotoAlbums
import Storage

/// Builds the Travel feature's long-lived parts from the configuration.
enum TravelFeature {
    /// Repairs photo files left inconsistent by a crash, then makes the album service
    /// (to be registered with the application's services).
    static func makeAlbumService(store: any OnTheMapStore, configuration: Configuration, logger: Logger) async throws -> AlbumService {
        let report = try await store.sweepPhotoFiles()
        if report != PhotoSweepReport() {
            logger.notice("photo files repaired", metadata: [
                "rowsMarkedFailed": "\(report.rowsMarkedFailed)", "filesDeleted": "\(report.filesDeleted)",
                "foldersDeleted": "\(report.foldersDeleted)",
            ])
        }
        let concurrency = max(1, configuration.photoDownloadConcurrency)
        let fetcher = HTTPFetcher(userAgent: configuration.photoUserAgent ?? HTTPFetcher.defaultUserAgent,
                                  maximumConnectionsPerHost: concurrency + 2)
        let provider = try makeProvider(configuration: configuration, fetcher: fetcher)
        logger.info("travel photos", metadata: ["provider": "\(provider.displayName)"])
        let downloader = ImageDownloader(fetcher: fetcher, concurrency: concurrency, timeout: configuration.photoRequestTimeout)
        return AlbumService(
            store: store, provider: provider, downloader: downloader, fetcher: fetcher, events: AlbumEvents(),
            photosPerAlbum: configuration.photosPerAlbum, logger: logger
        )
    }

    /// Flickr when a key is configured; the demo's own pictures when `--demo` names no photo
    /// service (so the demo works offline); Wikimedia Commons otherwise.
    static func makeProvider(configuration: Configuration, fetcher: HTTPFetcher) throws -> any PhotoProvider {
        if configuration.demo, configuration.flickrAPIKey?.isEmpty ?? true, configuration.wikimediaAPIURL == Configuration().wikimediaAPIURL {
            return GeneratedPhotoProvider()
        }
        if let key = configuration.flickrAPIKey, !key.isEmpty {
            return FlickrProvider(apiKey: key, baseURL: try httpURL(configuration.flickrAPIURL, "Flickr API"),
                                  fetcher: fetcher, timeout: configuration.photoRequestTimeout)
        }
        return WikimediaProvider(baseURL: try httpURL(configuration.wikimediaAPIURL, "Wikimedia API"),
                                 fetcher: fetcher, timeout: configuration.photoRequestTimeout)
    }

    static func httpURL(_ text: String, _ name: String) throws -> URL {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw ConfigurationError("The \(name) URL must be an http(s) URL, not '\(text)'.")
        }
        return url
    }
}
