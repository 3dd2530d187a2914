import Foundation
import Logging
import ObjectStorage
import OnTheMapModels
import PhotoAlbums
import TestDatabases
import Testing

@testable import OnTheMapServer
@testable import Storage

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Travel on several servers: download claims and shared counters (on SQLite, and on
/// PostgreSQL under Scripts/with-postgres.sh), then the object store (under
/// Scripts/with-seaweedfs.sh).
@Suite("Travel on several servers")
struct SharedTravelTests {
    func withStore<T>(photoStorage: (any PhotoStorage)? = nil, _ body: (SQLStore, URL) async throws -> T) async throws -> T {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = TestDatabases.databaseURL(forDataDirectory: directory) ?? "sqlite://" + directory.appendingPathComponent("db.sqlite").path
        let store = try await SQLStore.open(url: url, dataDirectory: directory.path, photoStorage: photoStorage, logger: quietLogger())
        try await store.createAccount(
            Account(key: "1000000001", email: "a@example.com", passwordHash: "x", firstName: "A", lastName: "B", createdAt: Date()))
        do {
            let value = try await body(store, directory)
            try await store.close()
            return value
        } catch {
            try? await store.close()
            throw error
        }
    }

    func pendingAlbum(_ store: SQLStore, pinID: String = "pinAAAAAAA", count: Int) async throws -> [Photo] {
        try await store.createPin(
            Pin(id: pinID, ownerKey: "1000000001", latitude: 1, longitude: 2, placeName: "P", createdAt: Date(), updatedAt: Date()))
        let photos = (0..<count).map {
            Photo(
                id: "photo\(pinID.prefix(3))\($0)", pinID: pinID, collection: 1, position: $0, provider: "flickr", remoteID: "r\($0)",
                remoteURL: "https://example.com/\($0).jpg", title: "T", author: "A", attributionURL: nil, createdAt: Date(),
                updatedAt: Date())
        }
        _ = try await store.replaceAlbum(
            pinID: pinID, with: photos,
            state: AlbumState(
                pinID: pinID, provider: "flickr", collection: 1, page: 1, pages: 1, total: count, status: .downloading, updatedAt: Date()))
        return photos
    }

    /// A provider whose first `holdUntil` searches wait for each other, so two servers'
    /// fetches are both under way before either answers; each photo names where it was searched.
    actor GatedProvider: PhotoProvider {
        nonisolated let name = "flickr"
        nonisolated let displayName = "Flickr"
        let holdUntil: Int
        private var arrived = 0
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(holdUntil: Int) { self.holdUntil = holdUntil }

        nonisolated func pageLimit(perPage: Int) -> Int { 10 }

        func search(_ search: PhotoSearch) async throws -> PhotoPage {
            arrived += 1
            if arrived < holdUntil {
                await withCheckedContinuation { waiting.append($0) }
            } else if arrived == holdUntil {
                for continuation in waiting { continuation.resume() }
                waiting = []
            }
            let call = arrived
            let photos = (0..<4).map { index in
                RemotePhoto(
                    remoteID: "at\(search.latitude)-call\(call)-\(index)", imageURL: URL(string: "http://127.0.0.1:9/\(index).jpg")!,
                    title: "T", author: "A")
            }
            return PhotoPage(page: search.page, pages: 10, total: 40, photos: photos)
        }
    }

    func albumServer(_ store: SQLStore, provider: any PhotoProvider) -> AlbumService {
        let fetcher = HTTPFetcher()
        return AlbumService(
            store: store, provider: provider, downloader: ImageDownloader(fetcher: fetcher), fetcher: fetcher,
            events: AlbumEvents(), photosPerAlbum: 4, logger: quietLogger())
    }

    @Test("New Collection on one server while the pin moves on another: the album is one collection, searched where the pin is")
    func albumRaceAcrossServers() async throws {
        try await withStore { store, _ in
            let now = Date()
            try await store.createPin(
                Pin(
                    id: "pinAAAAAAA", ownerKey: "1000000001", latitude: 10, longitude: 20, placeName: "Old",
                    createdAt: now, updatedAt: now))
            let first = albumServer(store, provider: GatedProvider(holdUntil: 1))
            _ = try await first.fetchAlbum(pinID: "pinAAAAAAA", choice: .first)

            // Two servers, each with its own per-pin lock, share one database.
            let provider = GatedProvider(holdUntil: 2)
            let serverA = albumServer(store, provider: provider)
            let serverB = albumServer(store, provider: provider)
            async let newCollection = serverA.fetchAlbum(pinID: "pinAAAAAAA", choice: .another)
            async let moved: AlbumSnapshot = {
                _ = try await store.movePin(id: "pinAAAAAAA", latitude: 30, longitude: 40, placeName: "New", updatedAt: Date())
                return try await serverB.fetchAlbum(pinID: "pinAAAAAAA", choice: .first)
            }()
            _ = try await (newCollection, moved)

            let state = try #require(try await store.albumState(pinID: "pinAAAAAAA"))
            let photos = try await store.photos(pinID: "pinAAAAAAA")
            #expect(photos.count == 4, "one collection of 4, not two mixed: \(photos.map(\.remoteID))")
            #expect(Set(photos.map(\.collection)) == [state.collection])
            #expect(photos.allSatisfy { $0.remoteID.hasPrefix("at30.0-") }, "searched where the pin is now: \(photos.map(\.remoteID))")
            let rows = try await store.withDatabase { db in
                try await db.raw("SELECT COUNT(*) AS n FROM photos WHERE pin_id = 'pinAAAAAAA'").first()?.decode(column: "n", as: Int.self)
            }
            #expect(rows == 4, "no rows of the losing fetch are left behind")
        }
    }

    @Test("Of servers racing for a download exactly one wins the claim; an expired claim is taken over")
    func claims() async throws {
        try await withStore { store, _ in
            let photos = try await pendingAlbum(store, count: 3)
            let now = Date()
            // Eight servers race for each photo at once.
            for photo in photos {
                let winners = try await withThrowingTaskGroup(of: String?.self) { group in
                    for server in 0..<8 {
                        group.addTask {
                            try await store.claimPhoto(id: photo.id, owner: "server\(server)", until: now.addingTimeInterval(60), now: now)
                                == nil ? nil : "server\(server)"
                        }
                    }
                    return try await group.reduce(into: [String]()) { if let winner = $1 { $0.append(winner) } }
                }
                #expect(winners.count == 1)
            }
            // A live claim holds against others, not against its owner.
            let owner = try #require(try await store.photo(id: photos[0].id)).id
            _ = owner
            #expect(try await store.claimPhoto(id: photos[0].id, owner: "intruder", until: now.addingTimeInterval(60), now: now) == nil)
            #expect(try await store.abandonedPhotos(now: now, unclaimedBefore: now, limit: 10).isEmpty)
            // Time passes: every claim expired; they are abandoned and another server takes them.
            let later = now.addingTimeInterval(120)
            #expect(
                try await store.abandonedPhotos(now: later, unclaimedBefore: now, limit: 10).map(\.id).sorted() == photos.map(\.id).sorted()
            )
            #expect(try await store.claimPhoto(id: photos[0].id, owner: "heir", until: later.addingTimeInterval(60), now: later) != nil)
            // Renewing extends only the owner's claim; releasing frees it at once.
            try await store.renewClaims(ids: [photos[0].id], owner: "heir", until: later.addingTimeInterval(600))
            #expect(try await store.claimPhoto(id: photos[0].id, owner: "other", until: later, now: later.addingTimeInterval(300)) == nil)
            try await store.releaseClaim(id: photos[0].id, owner: "heir")
            #expect(try await store.claimPhoto(id: photos[0].id, owner: "other", until: later.addingTimeInterval(60), now: later) != nil)
            // A finished photo cannot be claimed, and its claim is gone.
            let image = StoredImage(
                filePath: "photos/pinAAAAAAA/\(photos[1].id).jpg", contentType: "image/jpeg", byteCount: 1, contentHash: "x")
            _ = try await store.markPhotoReady(id: photos[1].id, image: image, at: later)
            #expect(
                try await store.claimPhoto(
                    id: photos[1].id, owner: "late", until: later.addingTimeInterval(60), now: later.addingTimeInterval(999)) == nil)
        }
    }

    @Test("A search a stopped server left behind is taken over by exactly one server, and only once old")
    func staleSearches() async throws {
        try await withStore { store, _ in
            _ = try await pendingAlbum(store, count: 1)
            var state = try #require(try await store.albumState(pinID: "pinAAAAAAA"))
            state.status = .searching
            state.updatedAt = Date(timeIntervalSince1970: 1_800_000_000)
            try await store.saveAlbumState(state)
            let now = Date(timeIntervalSince1970: 1_800_000_100)
            #expect(
                try await store.staleSearches(before: now.addingTimeInterval(-200), limit: 10).isEmpty, "young: may be running elsewhere")
            let before = now.addingTimeInterval(-60)
            #expect(try await store.staleSearches(before: before, limit: 10).map(\.pinID) == ["pinAAAAAAA"])
            let takers = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<6 { group.addTask { try await store.takeStaleSearch(pinID: "pinAAAAAAA", before: before, now: now) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(takers == 1)
            #expect(try await store.staleSearches(before: before, limit: 10).isEmpty)
        }
    }

    @Test("A shared counter admits exactly its limit, however many servers ask at once")
    func sharedCounter() async throws {
        try await withStore { store, _ in
            let window = Date(timeIntervalSince1970: 1_800_000_000)
            let admitted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<40 { group.addTask { try await store.countUse(name: "provider:flickr:k", windowStart: window, limit: 25) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(admitted == 25)
            #expect(try await !store.countUse(name: "provider:flickr:k", windowStart: window, limit: 25))
            // Another window, another name: counted apart.
            #expect(try await store.countUse(name: "provider:flickr:k", windowStart: window.addingTimeInterval(3600), limit: 25))
            #expect(try await store.countUse(name: "search:someone", windowStart: window, limit: 1))
            try await store.pruneUsage(before: window.addingTimeInterval(1))
            #expect(try await store.countUse(name: "provider:flickr:k", windowStart: window, limit: 25))
        }
    }

    @Test("Forgetting old counters never forgets the window still being counted, however long it is")
    func pruningKeepsTheOpenWindow() async throws {
        try await withStore { store, _ in
            // 13:30 UTC: a day's window began 13.5 hours ago, far more than the two hours kept.
            let clock = ManualClock(Date(timeIntervalSince1970: 1_800_019_800))
            var allowance = SearchAllowance(store: store, clock: clock.clock, limit: 2, windowSeconds: 86_400)
            allowance.pruneOneIn = 1  // prune on every admission
            try await allowance.admit("someone")
            try await allowance.admit("someone")
            await #expect(throws: RateLimiter.RateLimited.self) { try await allowance.admit("someone") }
            // An hourly counter from three hours ago is forgotten by the same pruning.
            let old = clock.now.addingTimeInterval(-3 * 3600)
            #expect(try await store.countUse(name: "share:x", windowStart: old, limit: 1))
            clock.advance(by: 86_400)
            try await allowance.admit("someone")  // a new day: allowed again, and pruned
            #expect(try await store.countUse(name: "share:x", windowStart: old, limit: 1), "the old counter was forgotten")
        }
    }

    @Test("The Flickr key's hourly quota is counted for every account (and every server) together")
    func providerQuota() async throws {
        try await withTravelServer({ $0.flickrSearchesPerHour = 1 }) { context in
            let first = try await context.client.signUp()
            let firstPin = try #require(try await context.client.dropPin(first).string("id"))
            #expect(try await context.client.settledAlbum(first, firstPin).photos.count == 21)
            // Another account, its own allowance untouched, but the key's hour is used up.
            let second = try await context.client.signUp()
            let secondPin = try #require(try await context.client.dropPin(second, latitude: 35.0, longitude: 139.0).string("id"))
            let album = try await context.client.settledAlbum(second, secondPin)
            #expect(album.photos.isEmpty)
            #expect((album.albumStatus["error"] as? [String: Any])?["code"] as? String == "provider_rate_limited")
            #expect(context.stub.searches.count == 1, "the provider was not asked past the quota")
            try await context.client.execute(uri: "/api/pins/\(firstPin)/collection", method: .post, headers: first.headers) {
                response throws in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter].flatMap(Int.init).map { $0 >= 1 && $0 <= 3600 } == true)
            }
        }
    }

    @Test("--photo-store takes s3://bucket[/prefix] and nothing else; settings are checked at start, secrets never shown")
    func photoStoreSettings() throws {
        #expect(PhotoStoreLocation("s3://onthemap-photos") == PhotoStoreLocation("s3://onthemap-photos/"))
        #expect(PhotoStoreLocation("s3://onthemap-photos//community/a/")?.prefix == "community/a")
        #expect(PhotoStoreLocation("s3://onthemap-photos")?.prefix == "")
        for bad in [
            "onthemap-photos", "http://x/y", "s3://", "s3://Bad_Bucket", "s3://ab", "s3://b.u.c/../x", "s3://bucket/a b", "s3://-bucket",
        ] {
            #expect(PhotoStoreLocation(bad) == nil, "\(bad)")
        }
        var configuration = Configuration()
        configuration.photoStore = "s3://onthemap-photos/p"
        configuration.photoStoreEndpoint = "http://127.0.0.1:9/"
        #expect(throws: ConfigurationError.self) { try TravelFeature.makePhotoStorage(configuration: configuration) }
        configuration.photoStoreAccessKeyID = "AKIDTEST"
        configuration.photoStoreSecretAccessKey = "secret-that-must-not-show"
        let storage = try #require(try TravelFeature.makePhotoStorage(configuration: configuration))
        #expect(storage.isShared)
        #expect(!"\(storage)".contains("secret-that-must-not-show"))
        configuration.photoStoreEndpoint = "http://127.0.0.1:9/some/path"
        #expect(throws: ConfigurationError.self) { try TravelFeature.makePhotoStorage(configuration: configuration) }
        configuration.photoStoreEndpoint = "ftp://127.0.0.1:9"
        #expect(throws: ConfigurationError.self) { try TravelFeature.makePhotoStorage(configuration: configuration) }
        configuration.photoStore = nil
        #expect(try TravelFeature.makePhotoStorage(configuration: configuration) == nil)
    }

    /// What starting a server with this photo store throws (nil if it started), on a fresh
    /// database of its own.
    static func startError(_ adjust: (inout Configuration, URL) -> Void) async -> (any Error)? {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-store-check-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = Configuration()
        configuration.dataDirectory = directory.path
        configuration.databaseURL = TestDatabases.databaseURL(forDataDirectory: directory)
        configuration.bcryptCost = 4
        configuration.port = 0
        adjust(&configuration, directory)
        do {
            _ = try await buildApplication(configuration: configuration)
            return nil
        } catch {
            return error
        }
    }

    @Test("a photo store that is not answering stops the start with what to check, and leaves nothing open")
    func unreachableStoreSaysWhatToCheck() async throws {
        let failure = await Self.startError { configuration, _ in
            configuration.photoStore = "s3://onthemap-photos/p"
            configuration.photoStoreEndpoint = "http://127.0.0.1:9"  // discard: nothing listens
            configuration.photoStoreAccessKeyID = "AKIDTEST"
            configuration.photoStoreSecretAccessKey = "never-shown"
        }
        let error = try #require(failure as? PhotoStoreUnavailable, "\(String(describing: failure))")
        #expect(error.description.contains("Cannot reach the photo store at http://127.0.0.1:9"), "\(error)")
        #expect(!error.description.contains("never-shown"))
    }

    @Test(
        "a missing bucket or refused credentials stop the start with what to fix",
        .enabled(if: TestObjectStore.current != nil))
    func storeProblemsSayWhatToFix() async throws {
        let store = try #require(TestObjectStore.current)
        func startError(_ adjust: @escaping (inout Configuration) -> Void) async -> String {
            let failure = await Self.startError { configuration, directory in
                configuration.photoStore = "s3://\(store.bucket)/\(TestObjectStore.prefix(for: directory))"
                configuration.photoStoreEndpoint = store.endpoint.absoluteString
                configuration.photoStoreRegion = store.region
                configuration.photoStoreAccessKeyID = store.credentials.accessKeyID
                configuration.photoStoreSecretAccessKey = store.credentials.secretAccessKey
                adjust(&configuration)
            }
            return failure.map { String(describing: $0) } ?? "started"
        }
        let missing = await startError { $0.photoStore = "s3://onthemap-missing-bucket-\(UUID().uuidString.prefix(8).lowercased())/p" }
        #expect(missing.contains("does not exist at") && missing.contains("aws s3 mb"), "\(missing)")
        let refused = await startError { $0.photoStoreSecretAccessKey = "not-the-secret" }
        #expect(refused.contains("refused the credentials") && refused.contains("AWS_SECRET_ACCESS_KEY"), "\(refused)")
        #expect(!refused.contains("not-the-secret"))
    }

    // MARK: The object store

    static var s3: S3Client? { TestObjectStore.client() }

    @Test(
        "The S3 client stores, lists, reads, deletes; a presigned URL works alone and not once altered",
        .enabled(if: TestObjectStore.current != nil))
    func s3RoundTrip() async throws {
        let client = try #require(Self.s3)
        let prefix = "tests/client-\(UUID().uuidString)"
        let body = GeneratedImages.jpeg(seed: "s3")
        let etag = try await client.putObject(key: "\(prefix)/a b+é.jpg", data: body, contentType: "image/jpeg")
        try await client.putObject(key: "\(prefix)/b.jpg", data: Data("x".utf8), contentType: "image/jpeg")
        let head = try #require(try await client.headObject(key: "\(prefix)/a b+é.jpg"))
        #expect(head.size == body.count && head.etag == etag)
        #expect(try await client.getObject(key: "\(prefix)/a b+é.jpg")?.data == body)
        #expect(try await client.getObject(key: "\(prefix)/missing.jpg") == nil)
        let listed = try await client.listAllObjects(prefix: prefix + "/")
        #expect(listed.map(\.key).sorted() == ["\(prefix)/a b+é.jpg", "\(prefix)/b.jpg"])
        // Page by page.
        let first = try await client.listObjects(prefix: prefix + "/", maxKeys: 1)
        #expect(first.objects.count == 1 && first.nextToken != nil)

        let url = client.presignedGetURL(key: "\(prefix)/a b+é.jpg", expires: 120)
        let (data, response) = try await URLSession.shared.data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 200 && data == body)
        let tampered = URL(string: url.absoluteString.replacingOccurrences(of: "X-Amz-Expires=120", with: "X-Amz-Expires=9999"))!
        let (_, refused) = try await URLSession.shared.data(from: tampered)
        #expect((refused as? HTTPURLResponse)?.statusCode == 403)

        // Wrong keys are refused.
        var wrong = client.configuration
        wrong.credentials = AWSCredentials(accessKeyID: wrong.credentials.accessKeyID, secretAccessKey: "not-the-secret")
        await #expect(throws: S3Error.self) {
            try await S3Client(configuration: wrong).putObject(key: "\(prefix)/c.jpg", data: body, contentType: "image/jpeg")
        }
        #expect(try await client.headObject(key: "\(prefix)/c.jpg") == nil)

        for object in listed { try await client.deleteObject(key: object.key) }
        #expect(try await client.listAllObjects(prefix: prefix + "/").isEmpty)
    }

    @Test(
        "Repair on a shared object store: lost images fail, abandoned objects go, young ones stay",
        .enabled(if: TestObjectStore.current != nil))
    func objectStoreRepair() async throws {
        let client = try #require(Self.s3)
        let storage = S3PhotoStore(client: client, prefix: "tests/repair-\(UUID().uuidString)")
        try await withStore(photoStorage: storage) { store, _ in
            let photos = try await pendingAlbum(store, count: 3)
            for photo in photos {
                let bytes = GeneratedImages.jpeg(seed: photo.id)
                let path = try await storage.write(
                    bytes, pinID: photo.pinID, photoID: photo.id, fileExtension: "jpg", contentType: "image/jpeg")
                _ = try await store.markPhotoReady(
                    id: photo.id,
                    image: StoredImage(
                        filePath: path, contentType: "image/jpeg", byteCount: bytes.count,
                        contentHash: ContentHash.fnv1a(bytes)), at: Date())
            }
            // One image lost; one object nobody owns (another server's upload in flight, or a leftover).
            await storage.removeFile(relativePath: "photos/pinAAAAAAA/\(photos[0].id).jpg")
            _ = try await storage.write(
                Data([1, 2, 3]), pinID: "pinAAAAAAA", photoID: "inflight01", fileExtension: "jpg", contentType: "image/jpeg")

            // Judged as young: kept.
            let early = try await store.sweepPhotoFiles(abandonedBefore: Date().addingTimeInterval(-600))
            #expect(early.rowsMarkedFailed == 1 && early.filesDeleted == 0)
            #expect(try await store.photo(id: photos[0].id)?.state == .failed)
            #expect(try await storage.size(relativePath: "photos/pinAAAAAAA/inflight01.jpg") == 3)
            // Old enough to be abandoned: deleted; owned images stay.
            let late = try await store.sweepPhotoFiles(abandonedBefore: Date().addingTimeInterval(600))
            #expect(late.filesDeleted == 1)
            #expect(try await storage.size(relativePath: "photos/pinAAAAAAA/inflight01.jpg") == nil)
            #expect(
                try await storage.inventory().files.map(\.path).sorted()
                    == photos.dropFirst().map { "photos/pinAAAAAAA/\($0.id).jpg" }.sorted())
            // Deleting the pin deletes its objects.
            #expect(try await store.deletePin(id: "pinAAAAAAA"))
            #expect(try await storage.inventory().files.isEmpty)
        }
    }

    @Test(
        "Images from the object store: relayed with the entity tag, or redirected to a presigned URL",
        .enabled(if: TestObjectStore.current != nil))
    func objectStoreImages() async throws {
        try await withTravelServer({ $0.photoRedirectSeconds = 300 }) { context in
            let user = try await context.client.signUp()
            let pinID = try #require(try await context.client.dropPin(user).string("id"))
            let album = try await context.client.settledAlbum(user, pinID)
            let photoID = try #require(album.photos.first?.string("id"))
            let location = try await context.client.execute(uri: "/api/photos/\(photoID)/image", method: .get, headers: user.headers) {
                response throws in
                #expect(response.status == .found)
                return try #require(response.headers[.location])
            }
            let (data, response) = try await URLSession.shared.data(from: try #require(URL(string: location)))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(data.count == album.photos.first?["byteCount"] as? Int)
        }
        try await withTravelServer { context in
            let user = try await context.client.signUp()
            let pinID = try #require(try await context.client.dropPin(user).string("id"))
            let album = try await context.client.settledAlbum(user, pinID)
            let photoID = try #require(album.photos.first?.string("id"))
            let etag = try await context.client.execute(uri: "/api/photos/\(photoID)/image", method: .get, headers: user.headers) {
                response throws in
                #expect(response.status == .ok)
                #expect(response.body.readableBytes == album.photos.first?["byteCount"] as? Int)
                #expect(response.headers[.cacheControl]?.contains("immutable") == true)
                return try #require(response.headers[.eTag])
            }
            var headers = user.headers
            headers[.ifNoneMatch] = etag
            try await context.client.execute(uri: "/api/photos/\(photoID)/image", method: .get, headers: headers) { response throws in
                #expect(response.status == .notModified)
            }
        }
    }

    @Test(
        "copy-photos: copies, verifies, resumes, and refuses to overwrite a different object",
        .enabled(if: TestObjectStore.current != nil))
    func copyPhotos() async throws {
        let client = try #require(Self.s3)
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = PhotoFileStore(dataDirectory: directory)
        let images = (0..<3).map { GeneratedImages.jpeg(seed: "copy\($0)") }
        for (index, image) in images.enumerated() {
            _ = try folder.write(image, pinID: "pinCopy001", photoID: "photo\(index)", fileExtension: "jpg")
        }
        try Data([1]).write(to: directory.appendingPathComponent("photos/pinCopy001/.photo9.1.partial"))
        let target = S3PhotoStore(client: client, prefix: "tests/copy-\(UUID().uuidString)")
        // Already there: one identical object (an earlier, interrupted run), one different.
        _ = try await target.write(images[0], pinID: "pinCopy001", photoID: "photo0", fileExtension: "jpg", contentType: "image/jpeg")
        _ = try await target.write(
            Data("other".utf8), pinID: "pinCopy001", photoID: "photo2", fileExtension: "jpg", contentType: "image/jpeg")

        let report = try await PhotoCopy.copy(from: folder, to: target)
        #expect(report.copied == 1 && report.alreadyThere == 1 && report.skipped == 1 && report.failures.isEmpty)
        #expect(report.conflicts == [target.key("photos/pinCopy001/photo2.jpg")!])
        #expect(try await target.read(relativePath: "photos/pinCopy001/photo1.jpg") == images[1])
        #expect(try await target.read(relativePath: "photos/pinCopy001/photo2.jpg") == Data("other".utf8), "never overwritten")
        // Run again: nothing left to copy, the conflict still reported.
        let again = try await PhotoCopy.copy(from: folder, to: target)
        #expect(again.copied == 0 && again.alreadyThere == 2 && again.conflicts.count == 1)
        for entry in try await target.inventory().files { await target.removeEntry(entry) }
    }
}
