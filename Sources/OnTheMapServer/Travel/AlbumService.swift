import Foundation
import Logging
import PhotoAlbums
import ServiceLifecycle
import Storage
import Synchronization

/// Fetches pin albums in the background: asks the provider for a page of photos, stores
/// them as pending, downloads their images (bounded by the downloader), marks each ready
/// or failed and tells live watchers. Registered with the application's services so a
/// shutdown cancels downloads cleanly; photos still pending resume on the next start.
final class AlbumService: Service, Sendable {
    /// Which page a fetch asks for.
    enum PageChoice: Sendable, Equatable {
        /// Page 1: a new pin, or a moved one.
        case first
        /// A random page other than the current one ("New Collection").
        case another
    }

    enum Job: Sendable {
        case album(pinID: String, choice: PageChoice)
        case download(Photo)
    }

    enum Failure: Error {
        case pinGone
        /// Other servers kept replacing the album while this one fetched.
        case superseded
    }

    let store: any TravelRepository
    let provider: any PhotoProvider
    let downloader: ImageDownloader
    let fetcher: HTTPFetcher
    let events: AlbumEvents
    let photosPerAlbum: Int
    let logger: Logger
    /// Several servers share the work (see `AlbumService.Sharing`).
    let sharing: Sharing
    /// Downloads this server holds a claim on (renewed while they run).
    /// Photo downloads this server is running (their claims are renewed while they run).
    let active = Mutex<Set<String>>([])
    /// Counts downloads and failures for `/metrics` (nil in benchmarks).
    let metrics: ServerMetrics?
    private let jobs: AsyncStream<Job>
    private let queue: AsyncStream<Job>.Continuation
    private let serializer = KeyedSerializer()

    /// Album states' and photos' times, and download claims' leases.
    let clock: WallClock

    init(
        store: any TravelRepository, provider: any PhotoProvider, downloader: ImageDownloader, fetcher: HTTPFetcher,
        events: AlbumEvents, photosPerAlbum: Int, logger: Logger, sharing: Sharing = Sharing(), clock: WallClock = .system,
        metrics: ServerMetrics? = nil
    ) {
        self.sharing = sharing
        self.metrics = metrics
        self.clock = clock
        self.store = store
        self.provider = provider
        self.downloader = downloader
        self.fetcher = fetcher
        self.events = events
        self.photosPerAlbum = max(1, photosPerAlbum)
        self.logger = logger
        (jobs, queue) = AsyncStream<Job>.makeStream()
    }

    // MARK: Service

    func run() async throws {
        await resumeInterruptedWork()
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.keepClaims() }
                if let feed = self.sharing.feed {
                    group.addTask { await self.relay(feed) }
                }
                for await job in self.jobs {
                    group.addTask { await self.perform(job) }
                }
                group.cancelAll()
            }
        }
        queue.finish()
        events.finishAll()
        fetcher.shutdown()
    }

    /// Queues work for the background; returns at once.
    func enqueue(_ job: Job) {
        queue.yield(job)
    }

    /// Queues a new fetch of a pin's album, first marking the album as searching, so a
    /// client that reads it right after the request that asked for it (a moved pin) sees
    /// work under way instead of the old album, settled.
    func refetch(pinID: String) async throws {
        if try await store.albumState(pinID: pinID) != nil {
            try await store.markAlbumSearching(pinID: pinID, provider: provider.name, at: clock.now())
            await publishAlbum(pinID: pinID)
        }
        enqueue(.album(pinID: pinID, choice: .first))
    }

    private func perform(_ job: Job) async {
        switch job {
        case .album(let pinID, let choice):
            do {
                _ = try await fetchAlbum(pinID: pinID, choice: choice)
            } catch is CancellationError {
            } catch Failure.pinGone {
            } catch Failure.superseded {
                logger.notice("album fetch gave way to other servers", metadata: ["pin": "\(pinID)"])
            } catch let error as PhotoProviderError {
                logger.notice("album fetch failed", metadata: ["pin": "\(pinID)", "error": "\(error)"])
            } catch {
                logger.error("album fetch failed", metadata: ["pin": "\(pinID)", "error": "\(String(reflecting: error))"])
            }
        case .download(let photo):
            await download(photo)
        }
    }

    /// After a restart: searches that were cut off run again, pending photos download.
    private func resumeInterruptedWork() async {
        do {
            if sharing.sharedDatabase {
                await resumeStaleSearches()
            } else {
                for state in try await store.albumStates(status: .searching) {
                    enqueue(.album(pinID: state.pinID, choice: state.collection == 0 ? .first : .another))
                }
            }
            let pending = try await store.pendingPhotos()
            for photo in pending { enqueue(.download(photo)) }
            for state in try await store.albumStates(status: .downloading) {
                await settle(pinID: state.pinID)
            }
            if !pending.isEmpty { logger.info("resuming photo downloads", metadata: ["count": "\(pending.count)"]) }
        } catch {
            logger.error("could not resume album work", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    // MARK: Albums

    /// Replaces the pin's album with a page of photos from the provider and queues their
    /// downloads; returns the new album (photos pending). One fetch per pin at a time.
    /// Provider errors are recorded in the album state and rethrown; kept photos stay.
    func fetchAlbum(pinID: String, choice: PageChoice) async throws -> AlbumSnapshot {
        try await serializer.run(pinID) {
            // The serializer keeps this server's fetches of a pin in line; another server's
            // (or a move there) can still replace the album first: then fetch again, from the
            // album and the place as they are now.
            for _ in 1..<Self.fetchAttempts {
                if let snapshot = try await self.fetchAlbumNow(pinID: pinID, choice: choice) { return snapshot }
                self.logger.info("album replaced elsewhere meanwhile; fetching again", metadata: ["pin": "\(pinID)"])
            }
            guard let snapshot = try await self.fetchAlbumNow(pinID: pinID, choice: choice) else { throw Failure.superseded }
            return snapshot
        }
    }

    static let fetchAttempts = 3

    /// One fetch; nil when another server replaced the album, or the pin moved, meanwhile.
    private func fetchAlbumNow(pinID: String, choice: PageChoice) async throws -> AlbumSnapshot? {
        guard let pin = try await store.pin(id: pinID) else { throw Failure.pinGone }
        guard try await store.markAlbumSearching(pinID: pinID, provider: provider.name, at: clock.now()) else { throw Failure.pinGone }
        let previous = try await store.albumState(pinID: pinID)
        let startedFrom = AlbumCondition(collection: previous?.collection ?? 0, latitude: pin.latitude, longitude: pin.longitude)
        await publishAlbum(pinID: pinID)

        let limit = provider.pageLimit(perPage: photosPerAlbum)
        var page = Self.page(for: choice, previous: previous, provider: provider.name, limit: limit)
        let result: PhotoPage
        do {
            try await admitProviderSearch()
            var found = try await provider.search(
                PhotoSearch(latitude: pin.latitude, longitude: pin.longitude, perPage: photosPerAlbum, page: page))
            if found.photos.isEmpty, page > 1 {
                // Fewer results than last time: pick again within what there is now.
                let pages = min(found.pages, limit)
                page = pages > 1 ? Int.random(in: 1...pages) : 1
                try await admitProviderSearch()
                found = try await provider.search(
                    PhotoSearch(latitude: pin.latitude, longitude: pin.longitude, perPage: photosPerAlbum, page: page))
            }
            result = found
        } catch let error as PhotoProviderError {
            try await recordFailure(pinID: pinID, code: error.code, message: error.description)
            throw error
        }

        let kept = try await store.photos(pinID: pinID)
        if result.photos.isEmpty, choice == .another, !kept.isEmpty {
            try await recordFailure(
                pinID: pinID, code: "no_more_photos",
                message: "\(provider.displayName) has no other photos near \(pin.placeName); the album is unchanged.")
            throw AlbumServiceError.noMorePhotos(provider: provider.displayName, place: pin.placeName)
        }

        let now = clock.now()
        let collection = startedFrom.collection + 1
        var seen = Set<String>()
        let photos = result.photos.filter { seen.insert($0.remoteID).inserted }.enumerated().map { index, remote in
            Photo(
                id: Identifiers.objectId(), pinID: pinID, collection: collection, position: index, provider: provider.name,
                remoteID: remote.remoteID, remoteURL: remote.imageURL.absoluteString, title: remote.title, author: remote.author,
                license: remote.license, attributionURL: remote.pageURL?.absoluteString, createdAt: now, updatedAt: now
            )
        }
        let state = AlbumState(
            pinID: pinID, provider: provider.name, collection: collection, page: result.page, pages: result.pages,
            total: result.total, status: photos.isEmpty ? .complete : .downloading, updatedAt: now
        )
        let removed: [Photo]
        switch try await store.replaceAlbum(pinID: pinID, with: photos, state: state, if: startedFrom) {
        case .replaced(let old): removed = old
        case .superseded: return nil
        case .pinGone: throw Failure.pinGone
        }
        for photo in photos { enqueue(.download(photo)) }
        let snapshot = AlbumSnapshot(pin: pin, state: state, photos: photos)
        await publish(.album(snapshot), pinID: pinID)
        if snapshot.isSettled { await publish(.done(snapshot), pinID: pinID) }
        logger.info(
            "album fetched",
            metadata: [
                "pin": "\(pinID)", "provider": "\(provider.name)", "page": "\(result.page)", "pages": "\(result.pages)",
                "photos": "\(photos.count)", "replaced": "\(removed.count)",
            ])
        return snapshot
    }

    /// The album stays as it was; its state says the fetch failed and why.
    private func recordFailure(pinID: String, code: String, message: String) async throws {
        try await store.markAlbumFailed(pinID: pinID, code: code, message: message, at: clock.now())
        await publishAlbum(pinID: pinID)
        await settle(pinID: pinID)
    }

    static func page(for choice: PageChoice, previous: AlbumState?, provider: String, limit: Int) -> Int {
        guard choice == .another, let previous, previous.provider == provider else { return 1 }
        let pages = min(previous.pages, limit)
        guard pages > 1 else { return 1 }
        guard (1...pages).contains(previous.page) else { return Int.random(in: 1...pages) }
        let pick = Int.random(in: 1...(pages - 1))
        return pick >= previous.page ? pick + 1 : pick
    }

    // MARK: Photos

    /// Queues a failed photo's download again; nil when it is not failed.
    func retry(photoID: String) async throws -> Photo? {
        guard let photo = try await store.markPhotoPending(id: photoID, at: clock.now()) else { return nil }
        await publish(.photo(photo), pinID: photo.pinID)
        enqueue(.download(photo))
        return photo
    }

    private func download(_ photo: Photo) async {
        let store = self.store
        // One server per photo: the claim is taken here and renewed by `keepClaims`; a
        // photo claimed by a live server elsewhere (or already done) is not ours to fetch.
        guard active.withLock({ $0.insert(photo.id).inserted }) else { return }
        defer { _ = active.withLock { $0.remove(photo.id) } }
        let claimed: Photo?
        do {
            claimed = try await store.claimPhoto(
                id: photo.id, owner: sharing.serverID,
                until: clock.now().addingTimeInterval(sharing.claimDuration), now: clock.now())
        } catch {
            logger.warning("could not claim a photo download", metadata: ["photo": "\(photo.id)", "error": "\(String(reflecting: error))"])
            return
        }
        guard claimed != nil else { return }
        do {
            guard let url = URL(string: photo.remoteURL),
                ["http", "https", GeneratedPhotoProvider.scheme].contains(url.scheme?.lowercased() ?? "")
            else {
                throw AlbumServiceError.badImageURL(photo.remoteURL)
            }
            // Skip photos deleted (or replaced) while they waited for a download slot.
            let image = try await downloader.download(url) {
                (try? await store.photo(id: photo.id))?.state == .pending
            }
            guard let image else { return }
            let path = try await store.photoStorage.write(
                image.data, pinID: photo.pinID, photoID: photo.id,
                fileExtension: image.format.fileExtension, contentType: image.format.contentType)
            let stored = StoredImage(
                filePath: path, contentType: image.format.contentType, byteCount: image.data.count,
                contentHash: ContentHash.fnv1a(image.data))
            metrics?.photoDownloads.increment()
            if let ready = try await store.markPhotoReady(id: photo.id, image: stored, at: clock.now()) {
                await publish(.photo(ready), pinID: photo.pinID)
            }
        } catch is CancellationError {
            // Shutting down: the photo stays pending and downloads after the next start, or
            // at once on another server, free to take it.
            try? await store.releaseClaim(id: photo.id, owner: sharing.serverID)
            return
        } catch {
            let reason = String(describing: error)
            logger.debug("photo download failed", metadata: ["photo": "\(photo.id)", "reason": "\(reason)"])
            metrics?.photoFailures.increment()
            if let failed = try? await store.markPhotoFailed(id: photo.id, reason: reason, at: clock.now()) {
                await publish(.photo(failed), pinID: photo.pinID)
            }
        }
        await settle(pinID: photo.pinID)
    }

    /// When nothing is pending any more: completes the album and tells watchers.
    func settle(pinID: String) async {
        guard let state = try? await store.settleAlbum(pinID: pinID, at: clock.now()),
            let pin = try? await store.pin(id: pinID),
            let photos = try? await store.photos(pinID: pinID)
        else { return }
        await publish(.done(AlbumSnapshot(pin: pin, state: state, photos: photos)), pinID: pinID)
    }

    // MARK: Reading

    func snapshot(pin: Pin) async throws -> AlbumSnapshot {
        AlbumSnapshot(pin: pin, state: try await store.albumState(pinID: pin.id), photos: try await store.photos(pinID: pin.id))
    }

    private func publishAlbum(pinID: String) async {
        guard let pin = try? await store.pin(id: pinID), let snapshot = try? await snapshot(pin: pin) else { return }
        await publish(.album(snapshot), pinID: pinID)
    }
}

enum AlbumServiceError: Error, CustomStringConvertible {
    case noMorePhotos(provider: String, place: String)
    case badImageURL(String)

    var description: String {
        switch self {
        case .noMorePhotos(let provider, let place): "\(provider) has no other photos near \(place); the album is unchanged."
        case .badImageURL(let text): "The provider gave an image address that cannot be downloaded: \(text)"
        }
    }
}

/// Runs operations one at a time per key, in arrival order.
actor KeyedSerializer {
    private var tails: [String: Task<Void, Never>] = [:]

    func run<T: Sendable>(_ key: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let previous = tails[key]
        let task = Task<T, any Error> {
            await previous?.value
            return try await body()
        }
        let tail = Task<Void, Never> { _ = await task.result }
        tails[key] = tail
        let result = await withTaskCancellationHandler {
            await task.result
        } onCancel: {
            task.cancel()
        }
        if tails[key] == tail { tails[key] = nil }
        return try result.get()
    }
}
