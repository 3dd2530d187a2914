import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import OnTheMapServer

@Suite("Travel API")
struct TravelAPITests {
    @Test("Dropping a pin prefetches its whole album onto disk without opening it")
    func prefetchOnDrop() async throws {
        try await withTravelServer { context in
            let user = try await context.client.signUp()
            let pin = try await context.client.dropPin(user)
            let pinID = try #require(pin.string("id"))
            #expect(pin.string("placeName")?.contains("Paris") == true)
            // Nobody asks for the album; wait for the files themselves. The limit only ends a
            // wait that would never end: with the whole suite running on 2 cores, 21 downloads
            // once took longer than 15 s.
            let deadline = ContinuousClock.now + .seconds(90)
            while await storedPhotos(in: context.dataDirectory).count < 21, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            let files = await storedPhotos(in: context.dataDirectory)
            #expect(files.count == 21)
            #expect(files.allSatisfy { $0.hasPrefix("\(pinID)/") && $0.hasSuffix(".jpg") })
            let album = try await context.client.settledAlbum(user, pinID)
            #expect(album.photos.count == 21)
            #expect(album.photos.allSatisfy { $0.string("state") == "ready" })
            #expect(album.albumStatus["status"] as? String == "complete")
            #expect(album.albumStatus["provider"] as? String == "flickr")
            // Once settled, no half-written download is left behind.
            #expect(await storedPhotos(in: context.dataDirectory, includingPartial: true) == files)
            #expect(context.stub.searches.count == 1)
            let search = try #require(context.stub.searches.first)
            #expect(search["per_page"] == "21")
            #expect(search["extras"]?.split(separator: ",").contains("url_m") == true)
            #expect(search["lat"] == "48.858400" && search["lon"] == "2.294500")
            #expect(search["page"] == "1")
            let first = try #require(album.photos.first)
            #expect(first.string("author") == "Photographer 0")
            #expect(first.string("license") == "CC BY 2.0")
            #expect(first.string("attributionURL")?.hasPrefix("https://www.flickr.com/photos/") == true)
            #expect(context.stub.maxImagesInFlight <= 7)
        }
    }

    @Test("Wikimedia Commons album when no Flickr key is set, total as a number on Flickr too")
    func wikimediaAlbum() async throws {
        try await withTravelServer(provider: .wikimedia) { context in
            let user = try await context.client.signUp()
            let pinID = try #require(try await context.client.dropPin(user).string("id"))
            let album = try await context.client.settledAlbum(user, pinID)
            #expect(album.photos.count == 21)
            #expect(album.photos.allSatisfy { $0.string("state") == "ready" && $0.string("provider") == "wikimedia" })
            #expect(album.albumStatus["pages"] as? Int == 3)
            let first = try #require(album.photos.first)
            #expect(first.string("title") == "Stub photo 0")
            #expect(first.string("author") == "Artist & 0")
            #expect(first.string("license") == "CC BY-SA 4.0")
            #expect(await storedPhotos(in: context.dataDirectory).allSatisfy { $0.hasSuffix(".png") })
        }
        try await withTravelServer { context in
            context.stub.update { $0.totalAsNumber = true }
            let user = try await context.client.signUp()
            let pinID = try #require(try await context.client.dropPin(user).string("id"))
            let album = try await context.client.settledAlbum(user, pinID)
            #expect(album.photos.count == 21)
            #expect(album.albumStatus["total"] as? Int == 105)
        }
    }

    @Test("New Collection brings different photos and removes the old files")
    func newCollection() async throws {
        try await withTravelServer { context in
            let user = try await context.client.signUp()
            let pinID = try #require(try await context.client.dropPin(user).string("id"))
            let first = try await context.client.settledAlbum(user, pinID)
            let firstRemote = Set(first.photos.compactMap { $0.string("remoteId") })
            let firstFiles = Set(await storedPhotos(in: context.dataDirectory))
            let replaced = try await context.client.execute(uri: "/api/pins/\(pinID)/collection", method: .post, headers: user.headers) {
                response throws in
                #expect(response.status == .ok)
                return try response.object
            }
            #expect(replaced.photos.count == 21)
            #expect(replaced.albumStatus["collection"] as? Int == 2)
            let second = try await context.client.settledAlbum(user, pinID)
            let secondRemote = Set(second.photos.compactMap { $0.string("remoteId") })
            #expect(secondRemote.count == 21)
            #expect(firstRemote.isDisjoint(with: secondRemote))
            #expect(second.photos.allSatisfy { $0.string("state") == "ready" })
            let pages = context.stub.searches.compactMap { $0["page"] }
            #expect(pages.count == 2 && pages[0] == "1" && pages[1] != "1")
            let secondFiles = Set(await storedPhotos(in: context.dataDirectory))
            #expect(secondFiles.count == 21)
            #expect(firstFiles.isDisjoint(with: secondFiles))
        }
    }

    @Test("Photo searches are limited per account: over the burst answers 429 and changes nothing")
    func searchRateLimit() async throws {
        try await withTravelServer({
            $0.photoSearchesPerWindow = 2
            $0.photoSearchWindowSeconds = 86_400
        }) { context in
            let user = try await context.client.signUp()
            let pinID = try #require(try await context.client.dropPin(user).string("id"))
            _ = try await context.client.settledAlbum(user, pinID)
            var statuses: [Int] = []
            for _ in 0..<2 {
                try await context.client.execute(uri: "/api/pins/\(pinID)/collection", method: .post, headers: user.headers) {
                    response throws in
                    statuses.append(Int(response.status.code))
                    if response.status == .tooManyRequests { #expect(response.headers[.retryAfter] != nil) }
                }
            }
            #expect(statuses == [200, 429])
            #expect(context.stub.searches.count == 2)
            // Another account has its own allowance.
            let other = try await context.client.signUp()
            _ = try await context.client.dropPin(other)
        }
    }

    @Test("A provider failure is a clear error and keeps every kept photo")
    func providerFailureKeepsPhotos() async throws {
        try await withTravelServer({ $0.photoRequestTimeout = 4 }) { context in
            let user = try await context.client.signUp()
            let pinID = try #require(try await context.client.dropPin(user).string("id"))
            let before = try await context.client.settledAlbum(user, pinID)
            let filesBefore = await storedPhotos(in: context.dataDirectory)

            context.stub.update { $0.searchFailure = .statFail }
            try await context.client.execute(uri: "/api/pins/\(pinID)/collection", method: .post, headers: user.headers) {
                response throws in
                #expect(response.status == .badGateway)
                let error = try response.object["error"] as? [String: Any]
                #expect(error?["code"] as? String == "provider_rejected")
                #expect((error?["message"] as? String)?.contains("Invalid API Key") == true)
            }
            context.stub.update { $0.searchFailure = .rateLimited }
            try await context.client.execute(uri: "/api/pins/\(pinID)/collection", method: .post, headers: user.headers) {
                response throws in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "120")
                let error = try response.object["error"] as? [String: Any]
                #expect(error?["code"] as? String == "provider_rate_limited")
            }
            context.stub.update { $0.searchFailure = .garbage }
            try await context.client.execute(uri: "/api/pins/\(pinID)/collection", method: .post, headers: user.headers) {
                response throws in
                #expect(response.status == .badGateway)
                #expect(try (response.object["error"] as? [String: Any])?["code"] as? String == "provider_bad_response")
            }
            let after = try await context.client.settledAlbum(user, pinID)
            #expect(after.photos.compactMap { $0.string("id") } == before.photos.compactMap { $0.string("id") })
            #expect(after.albumStatus["status"] as? String == "failed")
            #expect((after.albumStatus["error"] as? [String: Any])?["code"] as? String == "provider_bad_response")
            #expect(await storedPhotos(in: context.dataDirectory) == filesBefore)

            // Slow provider: the deadline turns into the same kind of error.
            context.stub.update {
                $0.searchFailure = nil
                $0.searchDelay = .seconds(8)
            }
            try await context.client.execute(uri: "/api/pins/\(pinID)/collection", method: .post, headers: user.headers) {
                response throws in
                #expect(response.status == .badGateway)
                #expect(try (response.object["error"] as? [String: Any])?["code"] as? String == "provider_unavailable")
            }
            #expect(await storedPhotos(in: context.dataDirectory) == filesBefore)
        }
    }

    @Test("A failed first search leaves an empty album that says why")
    func failedPrefetch() async throws {
        try await withTravelServer { context in
            context.stub.update { $0.searchFailure = .statFail }
            let user = try await context.client.signUp()
            let pinID = try #require(try await context.client.dropPin(user).string("id"))
            let album = try await context.client.settledAlbum(user, pinID)
            #expect(album.photos.isEmpty)
            #expect(album.albumStatus["status"] as? String == "failed")
            let message = (album.albumStatus["error"] as? [String: Any])?["message"] as? String
            #expect(message == "Flickr refused the photo search: Invalid API Key (Key has invalid format) (code 100).")
            // The next try works once Flickr does.
            context.stub.update { $0.searchFailure = nil }
            try await context.client.execute(uri: "/api/pins/\(pinID)/collection", method: .post, headers: user.headers) {
                response throws in
                #expect(response.status == .ok)
            }
            #expect(try await context.client.settledAlbum(user, pinID).photos.count == 21)
        }
    }

    @Test("Truncated and missing images fail with a reason; a retry downloads them")
    func brokenImages() async throws {
        try await withTravelServer { context in
            context.stub.update {
                $0.truncated = ["f1-0"]
                $0.missing = ["f1-1"]
            }
            let user = try await context.client.signUp()
            let pinID = try #require(try await context.client.dropPin(user).string("id"))
            let album = try await context.client.settledAlbum(user, pinID)
            let failed = album.photos.filter { $0.string("state") == "failed" }
            #expect(failed.count == 2)
            let truncated = try #require(album.photos.first { $0.string("remoteId") == "f1-0" })
            #expect(truncated.string("failureReason") == "The JPEG image arrived cut short.")
            #expect(truncated["imageURL"] == nil)
            let missing = try #require(album.photos.first { $0.string("remoteId") == "f1-1" })
            #expect(missing.string("failureReason") == "The image server answered HTTP 404.")
            // Transient failures are retried once; a 404 is not.
            #expect(context.stub.imageRequests.filter { $0 == "f1-0" }.count == 2)
            #expect(context.stub.imageRequests.filter { $0 == "f1-1" }.count == 1)
            #expect(await storedPhotos(in: context.dataDirectory).count == 19)

            context.stub.update {
                $0.truncated = []
                $0.missing = []
            }
            let id = try #require(truncated.string("id"))
            try await context.client.execute(uri: "/api/photos/\(id)/retry", method: .post, headers: user.headers) { response throws in
                #expect(response.status == .accepted)
                #expect(try response.object["state"] as? String == "pending")
            }
            let repaired = try await context.client.settledAlbum(user, pinID)
            #expect(repaired.photos.first { $0.string("id") == id }?.string("state") == "ready")
            try await context.client.execute(uri: "/api/photos/\(id)/retry", method: .post, headers: user.headers) { response throws in
                #expect(response.status == .conflict)
            }
        }
    }

    @Test("Slow image downloads hit the deadline and fail with a reason")
    func slowImages() async throws {
        try await withTravelServer({
            $0.photoRequestTimeout = 0.5
            $0.photosPerAlbum = 3
        }) { context in
            context.stub.update { $0.imageDelay = .seconds(2) }
            let user = try await context.client.signUp()
            let pinID = try #require(try await context.client.dropPin(user).string("id"))
            let album = try await context.client.settledAlbum(user, pinID)
            #expect(album.photos.count == 3)
            #expect(album.photos.allSatisfy { $0.string("state") == "failed" })
            #expect(album.photos.first?.string("failureReason") == "The image could not be downloaded: no answer within 0.5 s.")
        }
    }

    @Test("Deleting a photo removes its row and its file")
    func deletePhoto() async throws {
        try await withTravelServer { context in
            let user = try await context.client.signUp()
            let pinID = try #require(try await context.client.dropPin(user).string("id"))
            let album = try await context.client.settledAlbum(user, pinID)
            let photo = try #require(album.photos.first)
            let photoID = try #require(photo.string("id"))
            #expect(await storedPhotoExists(context.dataDirectory, "photos/\(pinID)/\(photoID).jpg"))
            try await context.client.execute(uri: "/api/photos/\(photoID)", method: .delete, headers: user.headers) { response throws in
                #expect(response.status == .noContent)
            }
            #expect(!(await storedPhotoExists(context.dataDirectory, "photos/\(pinID)/\(photoID).jpg")))
            #expect(try await context.client.album(user, pinID).photos.count == 20)
            try await context.client.execute(uri: "/api/photos/\(photoID)", method: .get, headers: user.headers) { response throws in
                #expect(response.status == .notFound)
            }
            try await context.client.execute(uri: "/api/photos/\(photoID)", method: .delete, headers: user.headers) { response throws in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test("Deleting a pin removes its photos, album state and folder")
    func deletePin() async throws {
        try await withTravelServer { context in
            let user = try await context.client.signUp()
            let pinID = try #require(try await context.client.dropPin(user).string("id"))
            let keep = try #require(try await context.client.dropPin(user, latitude: 35.68, longitude: 139.69).string("id"))
            let album = try await context.client.settledAlbum(user, pinID)
            _ = try await context.client.settledAlbum(user, keep)
            let photoID = try #require(album.photos.first?.string("id"))
            try await context.client.execute(uri: "/api/pins/\(pinID)", method: .delete, headers: user.headers) { response throws in
                #expect(response.status == .noContent)
            }
            #expect(!FileManager.default.fileExists(atPath: context.dataDirectory.appendingPathComponent("photos/\(pinID)").path))
            #expect(await storedPhotos(in: context.dataDirectory).allSatisfy { !$0.hasPrefix("\(pinID)/") })
            #expect(await storedPhotos(in: context.dataDirectory).count == 21)
            #expect(await storedPhotos(in: context.dataDirectory).allSatisfy { $0.hasPrefix(keep) })
            for uri in ["/api/pins/\(pinID)", "/api/pins/\(pinID)/photos", "/api/photos/\(photoID)", "/api/photos/\(photoID)/image"] {
                try await context.client.execute(uri: uri, method: .get, headers: user.headers) { response throws in
                    #expect(response.status == .notFound, "\(uri)")
                }
            }
            try await context.client.execute(uri: "/api/pins", method: .get, headers: user.headers) { response throws in
                let results = try response.object["results"] as? [[String: Any]] ?? []
                #expect(results.compactMap { $0.string("id") } == [keep])
            }
        }
    }

    @Test("Deleting an account deletes every one of its photos where they are kept (folder or bucket), and no one else's")
    func deleteAccountPhotos() async throws {
        try await withTravelServer { context in
            // The first account is the server's administrator, who cannot leave this way.
            let staying = try await context.client.signUp()
            let leaving = try await context.client.signUp()
            let first = try #require(try await context.client.dropPin(leaving).string("id"))
            let second = try #require(try await context.client.dropPin(leaving, latitude: 35.68, longitude: 139.69).string("id"))
            let kept = try #require(try await context.client.dropPin(staying).string("id"))
            for (user, pin) in [(leaving, first), (leaving, second), (staying, kept)] {
                _ = try await context.client.settledAlbum(user, pin)
            }
            let before = await storedPhotos(in: context.dataDirectory)
            #expect(before.contains { $0.hasPrefix("\(first)/") } && before.contains { $0.hasPrefix("\(second)/") })

            try await context.client.execute(
                uri: "/api/account/delete", method: .post, headers: leaving.headers,
                body: json(["password": "correct horse"])
            ) { response throws in
                #expect(response.status == .ok, "\(response.text)")
            }
            let after = await storedPhotos(in: context.dataDirectory)
            #expect(after.allSatisfy { $0.hasPrefix("\(kept)/") })
            #expect(after == before.filter { $0.hasPrefix("\(kept)/") })
            #expect(!FileManager.default.fileExists(atPath: context.dataDirectory.appendingPathComponent("photos/\(first)").path))
            try await context.client.execute(uri: "/api/pins/\(kept)/photos", method: .get, headers: staying.headers) { response throws in
                #expect(response.status == .ok)
            }
        }
    }

    @Test("Another user's pins and photos answer 404 for every route")
    func ownership() async throws {
        try await withTravelServer { context in
            let owner = try await context.client.signUp()
            let other = try await context.client.signUp()
            let pinID = try #require(try await context.client.dropPin(owner).string("id"))
            let album = try await context.client.settledAlbum(owner, pinID)
            let photoID = try #require(album.photos.first?.string("id"))
            let routes: [(String, HTTPRequest.Method, ByteBuffer?)] = [
                ("/api/pins/\(pinID)", .get, nil), ("/api/pins/\(pinID)", .patch, json(["latitude": 1, "longitude": 2])),
                ("/api/pins/\(pinID)", .put, json(["latitude": 1, "longitude": 2])), ("/api/pins/\(pinID)", .delete, nil),
                ("/api/pins/\(pinID)/photos", .get, nil), ("/api/pins/\(pinID)/collection", .post, nil),
                ("/api/pins/\(pinID)/events", .get, nil), ("/api/photos/\(photoID)", .get, nil),
                ("/api/photos/\(photoID)", .delete, nil), ("/api/photos/\(photoID)/image", .get, nil),
                ("/api/photos/\(photoID)/retry", .post, nil),
            ]
            for (uri, method, body) in routes {
                try await context.client.execute(uri: uri, method: method, headers: other.tokenHeaders, body: body) { response throws in
                    #expect(response.status == .notFound, "\(method) \(uri)")
                    #expect(try (response.object["error"] as? [String: Any])?["code"] as? String != nil)
                }
            }
            try await context.client.execute(uri: "/api/pins", method: .get, headers: other.headers) { response throws in
                #expect(try (response.object["results"] as? [Any])?.isEmpty == true)
            }
            // Nothing changed for the owner.
            #expect(try await context.client.album(owner, pinID).photos.count == 21)
            #expect(await storedPhotos(in: context.dataDirectory).count == 21)
        }
    }

    @Test("Sessions and bodies are checked")
    func validation() async throws {
        try await withTravelServer { context in
            try await context.client.execute(uri: "/api/pins", method: .get) { response throws in
                #expect(response.status == .unauthorized)
                #expect(try (response.object["error"] as? [String: Any])?["code"] as? String == "login_required")
            }
            try await context.client.execute(uri: "/api/pins", method: .get, headers: [.cookie: "onthemap_session=nope"]) {
                response throws in
                #expect(response.status == .unauthorized)
                #expect(try (response.object["error"] as? [String: Any])?["code"] as? String == "invalid_session")
            }
            let user = try await context.client.signUp()
            let cases: [(Any, String)] = [
                (["latitude": 91, "longitude": 0], "invalid_latitude"),
                (["latitude": 0, "longitude": 600], "invalid_longitude"),
                (["latitude": "48", "longitude": 2], "invalid_latitude"),
                (["latitude": true, "longitude": 2], "invalid_latitude"),
                (["longitude": 2], "missing_latitude"),
                ([1, 2], "invalid_json"),
            ]
            for (body, code) in cases {
                try await context.client.execute(uri: "/api/pins", method: .post, headers: user.headers, body: json(body)) {
                    response throws in
                    #expect(response.status == .badRequest)
                    #expect(try (response.object["error"] as? [String: Any])?["code"] as? String == code, "\(body)")
                }
            }
            let big = ByteBuffer(string: "{\"latitude\": 1, \"longitude\": 2, \"pad\": \"" + String(repeating: "x", count: 8000) + "\"}")
            try await context.client.execute(uri: "/api/pins", method: .post, headers: user.headers, body: big) { response throws in
                #expect(response.status == .contentTooLarge)
            }
            try await context.client.execute(uri: "/api/pins/..%2F..%2Fetc", method: .get, headers: user.headers) { response throws in
                #expect(response.status == .notFound)
            }
            // Longitudes past the antimeridian wrap.
            let wrapped = try await context.client.dropPin(user, latitude: 10, longitude: 190)
            #expect(wrapped["longitude"] as? Double == -170)
        }
    }

    @Test("Moving a pin renames it and fetches a new album for the new place")
    func movePin() async throws {
        try await withTravelServer { context in
            let user = try await context.client.signUp()
            let pinID = try #require(try await context.client.dropPin(user).string("id"))
            let before = try await context.client.settledAlbum(user, pinID)
            let moved = try await context.client.execute(
                uri: "/api/pins/\(pinID)", method: .patch, headers: user.headers,
                body: json(["latitude": 35.6762, "longitude": 139.6503])
            ) { response throws in
                #expect(response.status == .ok)
                return try response.object
            }
            #expect(moved["latitude"] as? Double == 35.6762)
            #expect(moved.string("placeName")?.contains("Tokyo") == true)
            // Read straight after the move, the album is never the old one, settled.
            let rightAfter = try await context.client.execute(uri: "/api/pins/\(pinID)/photos", method: .get, headers: user.headers) {
                response throws in
                try response.object
            }
            let state = try #require(rightAfter["album"] as? [String: Any])
            #expect(state["settled"] as? Bool == false || state["collection"] as? Int == 2)
            let deadline = ContinuousClock.now + .seconds(10)
            var after = try await context.client.settledAlbum(user, pinID)
            while after.albumStatus["collection"] as? Int != 2, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                after = try await context.client.settledAlbum(user, pinID)
            }
            #expect(after.albumStatus["collection"] as? Int == 2)
            #expect(Set(after.photos.compactMap { $0.string("id") }).isDisjoint(with: before.photos.compactMap { $0.string("id") }))
            #expect(context.stub.searches.last?["lat"] == "35.676200")
        }
    }

    @Test("The image route serves the kept file with caching headers")
    func imageRoute() async throws {
        try await withTravelServer(provider: .wikimedia) { context in
            let user = try await context.client.signUp()
            let pinID = try #require(try await context.client.dropPin(user).string("id"))
            let album = try await context.client.settledAlbum(user, pinID)
            let photo = try #require(album.photos.first)
            let imageURL = try #require(photo.string("imageURL"))
            let etag = try await context.client.execute(uri: imageURL, method: .get, headers: user.headers) { response throws in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                #expect(response.headers[.cacheControl]?.contains("max-age=31536000") == true)
                #expect(Data(buffer: response.body) == GeneratedImages.png(seed: "w0"))
                return try #require(response.headers[.eTag])
            }
            var conditional = user.headers
            conditional[.ifNoneMatch] = etag
            try await context.client.execute(uri: imageURL, method: .get, headers: conditional) { response throws in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
        }
    }

    @Test("The live event stream sends the album, each photo as it lands, then done")
    func eventStream() async throws {
        try await withTravelServer({ $0.photosPerAlbum = 5 }) { context in
            context.stub.update {
                $0.searchDelay = .milliseconds(100)
                $0.imageDelay = .milliseconds(50)
            }
            let user = try await context.client.signUp()
            let pinID = try #require(try await context.client.dropPin(user).string("id"))
            let text = try await context.client.execute(uri: "/api/pins/\(pinID)/events", method: .get, headers: user.headers) {
                response throws in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/event-stream") == true)
                return response.text
            }
            let events = text.components(separatedBy: "\n\n").compactMap { block -> String? in
                block.split(separator: "\n").first { $0.hasPrefix("event: ") }.map { String($0.dropFirst(7)) }
            }
            #expect(events.first == "album")
            #expect(events.last == "done")
            #expect(events.filter { $0 == "photo" }.count == 5)
            let doneData = try #require(
                text.components(separatedBy: "\n\n").last { $0.contains("event: done") }?
                    .split(separator: "\n").first { $0.hasPrefix("data: ") }?.dropFirst(6))
            let done = try #require(try JSONSerialization.jsonObject(with: Data(doneData.utf8)) as? [String: Any])
            #expect(done.photos.count == 5 && done.photos.allSatisfy { $0.string("state") == "ready" })
            // A settled album answers at once: the album, then done.
            let again = try await context.client.execute(uri: "/api/pins/\(pinID)/events", method: .get, headers: user.headers) { $0.text }
            #expect(again.components(separatedBy: "event: ").count == 3)
        }
    }
}
