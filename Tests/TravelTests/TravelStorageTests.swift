import Foundation
import Logging
import OnTheMapModels
import TestDatabases
import Testing

@testable import OnTheMapServer
@testable import Storage

@Suite("Travel storage")
struct TravelStorageTests {
    /// A store on a fresh database with one account.
    func withStore<T>(_ body: (SQLStore, URL) async throws -> T) async throws -> T {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = TestDatabases.databaseURL(forDataDirectory: directory) ?? "sqlite://" + directory.appendingPathComponent("db.sqlite").path
        let store = try await SQLStore.open(url: url, dataDirectory: directory.path, logger: quietLogger())
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

    func makePin(_ store: SQLStore, id: String = "pinAAAAAAA") async throws -> Pin {
        let pin = Pin(
            id: id, ownerKey: "1000000001", latitude: 1, longitude: 2, placeName: "Somewhere", createdAt: Date(), updatedAt: Date())
        try await store.createPin(pin)
        return pin
    }

    func makePhoto(_ pinID: String, _ id: String, position: Int = 0, collection: Int = 1) -> Photo {
        Photo(
            id: id, pinID: pinID, collection: collection, position: position, provider: "flickr", remoteID: "r\(id)",
            remoteURL: "https://example.com/\(id).jpg", title: "T", author: "A", attributionURL: nil, createdAt: Date(), updatedAt: Date())
    }

    func state(_ pinID: String, collection: Int = 1) -> AlbumState {
        AlbumState(
            pinID: pinID, provider: "flickr", collection: collection, page: 1, pages: 5, total: 100, status: .downloading, updatedAt: Date()
        )
    }

    /// Stores an image for a pending photo the way the downloader does.
    func keep(_ store: SQLStore, _ photo: Photo, bytes: Data = GeneratedImages.jpeg(seed: "x")) async throws -> Photo? {
        let path = try await store.photoStorage.write(
            bytes, pinID: photo.pinID, photoID: photo.id, fileExtension: "jpg", contentType: "image/jpeg")
        return try await store.markPhotoReady(
            id: photo.id,
            image: StoredImage(filePath: path, contentType: "image/jpeg", byteCount: bytes.count, contentHash: ContentHash.fnv1a(bytes)),
            at: Date())
    }

    @Test("Photos belong to a pin; deleting the pin deletes rows, state and folder")
    func cascade() async throws {
        try await withStore { store, directory in
            let pin = try await makePin(store)
            let photos = (0..<3).map { makePhoto(pin.id, "photo00000\($0)", position: $0) }
            #expect(try await store.replaceAlbum(pinID: pin.id, with: photos, state: state(pin.id)) == [])
            for photo in photos { #expect(try await keep(store, photo)?.state == .ready) }
            #expect(try await store.photos(pinID: pin.id).map(\.id) == photos.map(\.id))
            #expect(photoFiles(in: directory).count == 3)
            #expect(try await store.deletePin(id: pin.id))
            #expect(try await store.photo(id: photos[0].id) == nil)
            #expect(try await store.albumState(pinID: pin.id) == nil)
            #expect(photoFiles(in: directory).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("photos/\(pin.id)").path))
            #expect(try await store.deletePin(id: pin.id) == false)
            #expect(try await store.replaceAlbum(pinID: pin.id, with: photos, state: state(pin.id)) == nil)
        }
    }

    @Test("Deleting or replacing photos removes their files; a late download is discarded")
    func filesFollowRows() async throws {
        try await withStore { store, directory in
            let pin = try await makePin(store)
            let photos = (0..<3).map { makePhoto(pin.id, "photo00000\($0)", position: $0) }
            _ = try await store.replaceAlbum(pinID: pin.id, with: photos, state: state(pin.id))
            _ = try await keep(store, photos[0])
            _ = try await keep(store, photos[1])
            #expect(try await store.deletePhoto(id: photos[0].id)?.id == photos[0].id)
            #expect(photoFiles(in: directory) == ["\(pin.id)/\(photos[1].id).jpg"])
            // Replacing the album removes the old files once the new rows are in.
            let next = [makePhoto(pin.id, "photo00010", collection: 2)]
            let removed = try await store.replaceAlbum(pinID: pin.id, with: next, state: state(pin.id, collection: 2))
            #expect(removed?.map(\.id).sorted() == [photos[1].id, photos[2].id])
            #expect(photoFiles(in: directory).isEmpty)
            // photos[2] was still downloading: its image arrives after its row is gone.
            #expect(try await keep(store, photos[2]) == nil)
            #expect(photoFiles(in: directory).isEmpty)
            // Only pending photos become ready or failed; only failed ones pending again.
            #expect(try await store.markPhotoFailed(id: next[0].id, reason: "HTTP 500", at: Date())?.failureReason == "HTTP 500")
            #expect(try await store.markPhotoFailed(id: next[0].id, reason: "again", at: Date()) == nil)
            #expect(try await store.markPhotoPending(id: next[0].id, at: Date())?.state == .pending)
            #expect(try await store.pendingPhotos().map(\.id) == [next[0].id])
            #expect(try await store.settleAlbum(pinID: pin.id, at: Date()) == nil)
            _ = try await keep(store, next[0])
            #expect(try await store.settleAlbum(pinID: pin.id, at: Date())?.status == .complete)
        }
    }

    @Test("Start-up sweep: rows without files fail, files without rows go")
    func sweep() async throws {
        try await withStore { store, directory in
            let pin = try await makePin(store)
            let photos = (0..<4).map { makePhoto(pin.id, "photo00000\($0)", position: $0) }
            _ = try await store.replaceAlbum(pinID: pin.id, with: photos, state: state(pin.id))
            for photo in photos { _ = try await keep(store, photo) }
            let root = directory.appendingPathComponent("photos")
            // A crash lost one file and cut another short...
            try FileManager.default.removeItem(at: root.appendingPathComponent("\(pin.id)/\(photos[0].id).jpg"))
            try Data([0xFF, 0xD8]).write(to: root.appendingPathComponent("\(pin.id)/\(photos[1].id).jpg"))
            // ...and left files nobody owns: a deleted photo's, a temporary one, a deleted pin's folder, a stray.
            try Data([1]).write(to: root.appendingPathComponent("\(pin.id)/ghost00001.jpg"))
            try Data([1]).write(to: root.appendingPathComponent("\(pin.id)/.photo000002.123.partial"))
            try FileManager.default.createDirectory(at: root.appendingPathComponent("gonePin001"), withIntermediateDirectories: true)
            try Data([1]).write(to: root.appendingPathComponent("gonePin001/x.jpg"))
            try Data([1]).write(to: root.appendingPathComponent("stray.txt"))

            // A replacement cut short: an older collection's ready photo is still there.
            let old = makePhoto(pin.id, "oldPhoto01", collection: 0)
            try await store.withDatabase { db in
                try await db.raw(
                    """
                    INSERT INTO photos (id, pin_id, collection, position, provider, remote_id, remote_url, title, author, file_path,
                                        byte_count, state, created_at, updated_at)
                    VALUES (\(bind: old.id), \(bind: pin.id), 0, 0, 'flickr', 'r', 'https://example.com/r.jpg', 'T', 'A',
                            \(bind: "photos/\(pin.id)/\(old.id).jpg"), 1, 'ready', '2020-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z')
                    """
                ).run()
            }
            try Data([1]).write(to: root.appendingPathComponent("\(pin.id)/\(old.id).jpg"))
            #expect(try await store.photos(pinID: pin.id).count == 4)

            let report = try await store.sweepPhotoFiles(abandonedBefore: Date())
            #expect(report.staleRowsDeleted == 1)
            #expect(report.rowsMarkedFailed == 2)
            #expect(report.filesDeleted == 6)
            #expect(report.foldersDeleted == 1)
            #expect(photoFiles(in: directory) == ["\(pin.id)/\(photos[2].id).jpg", "\(pin.id)/\(photos[3].id).jpg"])
            let lost = try #require(try await store.photo(id: photos[0].id))
            #expect(lost.state == .failed && lost.filePath == nil && lost.failureReason?.contains("missing") == true)
            #expect(try await store.photo(id: photos[1].id)?.state == .failed)
            #expect(try await store.photo(id: photos[2].id)?.state == .ready)
            // A second sweep finds nothing.
            #expect(try await store.sweepPhotoFiles(abandonedBefore: Date()) == PhotoSweepReport())
        }
    }

    @Test("File paths are confined to the photo folder")
    func pathSafety() {
        let files = PhotoFileStore(dataDirectory: URL(fileURLWithPath: "/data"))
        #expect(files.url(forRelativePath: "photos/abc/def.jpg")?.path == "/data/photos/abc/def.jpg")
        for bad in [
            "photos/../etc/passwd", "photos/abc/../../x.jpg", "/etc/passwd", "photos/abc/def", "photos/a b/c.jpg", "other/abc/def.jpg",
        ] {
            #expect(files.url(forRelativePath: bad) == nil, "\(bad)")
        }
    }
}

/// Folder-store repair (the object store's, which spares young objects, is in `SharedTravelTests`).
@Suite("Travel start-up", .enabled(if: TestObjectStore.current == nil))
struct TravelStartupTests {
    @Test("The server sweeps orphans when it starts, and resumes pending downloads")
    func sweepAndResumeOnStart() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await PhotoStub.run { stub in
            let configuration = travelConfiguration(stub: stub, provider: .flickr, dataDirectory: directory)
            // First run: the server stops while the album is still downloading.
            stub.update { $0.imageDelay = .seconds(60) }
            let first = try await buildApplication(configuration: configuration, logger: quietLogger())
            let (user, pinID) = try await first.test(.router) { client in
                let user = try await client.signUp()
                let pinID = try #require(try await client.dropPin(user).string("id"))
                let deadline = ContinuousClock.now + .seconds(10)
                while try await client.album(user, pinID).photos.isEmpty, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                return (user, pinID)
            }
            stub.update { $0.imageDelay = .zero }
            #expect(photoFiles(in: directory).isEmpty)
            let orphan = directory.appendingPathComponent("photos/\(pinID)/orphan0001.jpg")
            try FileManager.default.createDirectory(at: orphan.deletingLastPathComponent(), withIntermediateDirectories: true)
            try GeneratedImages.jpeg(seed: "orphan").write(to: orphan)

            // Second run: the orphan goes before anything else happens; the album completes.
            let second = try await buildApplication(configuration: configuration, logger: quietLogger())
            #expect(!FileManager.default.fileExists(atPath: orphan.path))
            try await second.test(.router) { client in
                let album = try await client.settledAlbum(user, pinID)
                #expect(album.photos.count == 21)
                #expect(album.photos.allSatisfy { $0.string("state") == "ready" })
                #expect(stub.searches.count == 1)
                #expect(photoFiles(in: directory).count == 21)
            }
        }
    }
}

@Suite("Album settling")
struct AlbumSettlingTests {
    /// Seen with the object store: the last image was kept, but the album had not yet been
    /// marked complete, and the API said `settled: true` beside `status: downloading`.
    @Test("an album is settled only once its status says so and nothing is pending", arguments: AlbumStatus.allCases)
    func settledFollowsTheStatus(status: AlbumStatus) {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let pin = Pin(id: "pin0000001", ownerKey: "1000000001", latitude: 1, longitude: 2, placeName: "P", createdAt: now, updatedAt: now)
        var photo = Photo(
            id: "photo00001", pinID: pin.id, collection: 1, position: 0, provider: "flickr", remoteID: "r",
            remoteURL: "https://example.com/1.jpg", title: "T", author: "A", attributionURL: nil, createdAt: now, updatedAt: now)
        photo.state = .ready
        let state = AlbumState(
            pinID: pin.id, provider: "flickr", collection: 1, page: 1, pages: 1, total: 1, status: status, updatedAt: now)
        let snapshot = AlbumSnapshot(pin: pin, state: state, photos: [photo])
        #expect(snapshot.isSettled == (status == .complete || status == .failed))
        #expect(AlbumView(snapshot).album.settled == snapshot.isSettled)
        photo.state = .pending
        #expect(AlbumSnapshot(pin: pin, state: state, photos: [photo]).isSettled == false)
    }
}
