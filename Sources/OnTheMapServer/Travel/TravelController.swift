import Foundation
import Geocoding
import HTTPTypes
import Hummingbird
import NIOCore
import OnTheMapModels
import PhotoAlbums
import ServiceLifecycle
import Storage

/// Travel: a signed-in user's pins and their photo albums, under `/api/pins` and
/// `/api/photos`. Every route needs a session (cookie or `X-Parse-Session-Token`); a pin
/// or photo of another account answers 404, exactly like one that does not exist.
struct TravelController: Sendable {
    let store: any OnTheMapStore
    let albums: AlbumService
    let geocoder: any Geocoder
    let configuration: Configuration
    /// Dropping, moving a pin and "New Collection" each cost one provider search, and a
    /// Flickr key's quota (3,600 an hour) is shared by every user: limit them per account,
    /// counted in the database so every server shares one allowance.
    let searchLimiter: SearchAllowance

    static let maximumPinsPerAccount = 500
    static let bodyLimit = 4 * 1024
    static let heartbeatInterval: Duration = .seconds(15)

    func addRoutes(to api: RouterGroup<AppRequestContext>) {
        let pins = api.group("pins")
        pins.get(use: listPins)
        pins.post(use: createPin)
        pins.get(":pinID", use: showPin)
        pins.patch(":pinID", use: movePin)
        pins.put(":pinID", use: movePin)
        pins.delete(":pinID", use: deletePin)
        pins.get(":pinID/photos", use: album)
        pins.post(":pinID/collection", use: newCollection)
        pins.get(":pinID/events", use: events)

        let photos = api.group("photos")
        photos.get(":photoID", use: showPhoto)
        photos.delete(":photoID", use: deletePhoto)
        photos.post(":photoID/retry", use: retryPhoto)
        photos.get(":photoID/image", use: image)
    }

    // MARK: Pins

    @Sendable func listPins(_ request: Request, context: AppRequestContext) async throws -> Response {
        let account = try signedIn(context)
        return try JSONResponse.make(PinListView(results: try await store.pins(ownerKey: account).map(PinView.init)))
    }

    @Sendable func createPin(_ request: Request, context: AppRequestContext) async throws -> Response {
        let account = try signedIn(context)
        let body = try await request.collectBody(limit: Self.bodyLimit) { APIError.tooLarge }
        let coordinates = try PinCoordinates.parse(body)
        try await searchLimiter.admit(account)
        guard try await store.countPins(ownerKey: account) < Self.maximumPinsPerAccount else {
            throw APIError(.conflict, "too_many_pins", "An account keeps at most \(Self.maximumPinsPerAccount) pins; delete some first.")
        }
        let now = configuration.clock.now()
        let pin = Pin(
            id: Identifiers.objectId(), ownerKey: account, latitude: coordinates.latitude, longitude: coordinates.longitude,
            placeName: await placeName(coordinates), createdAt: now, updatedAt: now
        )
        try await store.createPin(pin)
        // Prefetch: the album downloads now, not when it is first opened.
        albums.enqueue(.album(pinID: pin.id, choice: .first))
        context.logger.info("pin created", metadata: ["pin": "\(pin.id)"])
        var headers = HTTPFields()
        headers[.location] = "/api/pins/\(pin.id)"
        return try JSONResponse.make(PinView(pin), status: .created, headers: headers)
    }

    @Sendable func showPin(_ request: Request, context: AppRequestContext) async throws -> Response {
        try JSONResponse.make(PinView(try await ownedPin(request, context)))
    }

    /// Moves the pin; its album is fetched again for the new place (the old photos stay
    /// until the new ones are known).
    @Sendable func movePin(_ request: Request, context: AppRequestContext) async throws -> Response {
        let pin = try await ownedPin(request, context)
        let body = try await request.collectBody(limit: Self.bodyLimit) { APIError.tooLarge }
        let coordinates = try PinCoordinates.parse(body)
        try await searchLimiter.admit(pin.ownerKey)
        guard
            let moved = try await store.movePin(
                id: pin.id, latitude: coordinates.latitude, longitude: coordinates.longitude,
                placeName: await placeName(coordinates), updatedAt: configuration.clock.now()
            )
        else { throw Self.pinNotFound }
        try await albums.refetch(pinID: pin.id)
        return try JSONResponse.make(PinView(moved))
    }

    @Sendable func deletePin(_ request: Request, context: AppRequestContext) async throws -> Response {
        let pin = try await ownedPin(request, context)
        guard try await store.deletePin(id: pin.id) else { throw Self.pinNotFound }
        await albums.publish(.pinDeleted(id: pin.id), pinID: pin.id)
        context.logger.info("pin deleted", metadata: ["pin": "\(pin.id)"])
        return Response(status: .noContent)
    }

    // MARK: Albums

    @Sendable func album(_ request: Request, context: AppRequestContext) async throws -> Response {
        let pin = try await ownedPin(request, context)
        return try JSONResponse.make(AlbumView(try await albums.snapshot(pin: pin)))
    }

    /// Replaces the album with another page of photos. Answers once the provider has
    /// named the new photos (they are pending; watch `/events` for the images). When the
    /// provider fails, the album is unchanged and the error says why.
    @Sendable func newCollection(_ request: Request, context: AppRequestContext) async throws -> Response {
        let pin = try await ownedPin(request, context)
        try await searchLimiter.admit(pin.ownerKey)
        do {
            return try JSONResponse.make(AlbumView(try await albums.fetchAlbum(pinID: pin.id, choice: .another)))
        } catch let error as PhotoProviderError {
            throw ProviderFailure(error)
        } catch let error as AlbumServiceError {
            throw APIError(.conflict, "no_more_photos", error.description)
        } catch AlbumService.Failure.pinGone {
            throw Self.pinNotFound
        } catch AlbumService.Failure.superseded {
            throw APIError(
                .conflict, "album_busy",
                "The album kept changing on other servers while this one fetched; it is as they left it. Try again.")
        }
    }

    /// Server-Sent Events for one album, for `EventSource`. First an `album` event with the
    /// whole album, then `photo` (one photo changed), `photo-removed` and `album` events as
    /// they happen; `done` when nothing is pending (the stream then ends: close the
    /// EventSource, or it reconnects), `pin-deleted` if the pin goes.
    @Sendable func events(_ request: Request, context: AppRequestContext) async throws -> Response {
        let pin = try await ownedPin(request, context)
        let albums = self.albums
        let body = ResponseBody { writer in
            let subscription = albums.events.subscribe(pinID: pin.id)
            defer { albums.events.unsubscribe(pinID: pin.id, id: subscription.id) }
            let snapshot = try await albums.snapshot(pin: pin)
            try await writer.write(Self.frame("album", AlbumView(snapshot), retry: 5000))
            if snapshot.isSettled {
                try await writer.write(Self.frame("done", AlbumView(snapshot)))
                try await writer.finish(nil)
                return
            }
            let heartbeat = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.heartbeatInterval)
                    albums.events.publish(.heartbeat, pinID: pin.id)
                }
            }
            defer { heartbeat.cancel() }
            try await withGracefulShutdownHandler {
                for await event in subscription.stream {
                    switch event {
                    case .album(let snapshot):
                        try await writer.write(Self.frame("album", AlbumView(snapshot)))
                    case .photo(let photo):
                        try await writer.write(Self.frame("photo", PhotoView(photo)))
                    case .photoRemoved(let id):
                        try await writer.write(Self.frame("photo-removed", ["id": id]))
                    case .done(let snapshot):
                        try await writer.write(Self.frame("done", AlbumView(snapshot)))
                        return
                    case .pinDeleted(let id):
                        try await writer.write(Self.frame("pin-deleted", ["id": id]))
                        return
                    case .heartbeat:
                        try await writer.write(ServerSentEvents.keepAlive)
                    }
                }
            } onGracefulShutdown: {
                albums.events.unsubscribe(pinID: pin.id, id: subscription.id)
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: ServerSentEvents.headers, body: body)
    }

    static func frame(_ name: String, _ value: some Encodable, retry: Int? = nil) throws -> ByteBuffer {
        try ServerSentEvents.event(name, json: value, retry: retry)
    }

    // MARK: Photos

    @Sendable func showPhoto(_ request: Request, context: AppRequestContext) async throws -> Response {
        try JSONResponse.make(PhotoView(try await ownedPhoto(request, context)))
    }

    @Sendable func deletePhoto(_ request: Request, context: AppRequestContext) async throws -> Response {
        let photo = try await ownedPhoto(request, context)
        guard try await store.deletePhoto(id: photo.id) != nil else { throw Self.photoNotFound }
        await albums.publish(.photoRemoved(id: photo.id), pinID: photo.pinID)
        await albums.settle(pinID: photo.pinID)
        return Response(status: .noContent)
    }

    @Sendable func retryPhoto(_ request: Request, context: AppRequestContext) async throws -> Response {
        let photo = try await ownedPhoto(request, context)
        guard let pending = try await albums.retry(photoID: photo.id) else {
            throw APIError(.conflict, "not_failed", "Only a failed photo can be retried; this one is \(photo.state.rawValue).")
        }
        return try JSONResponse.make(PhotoView(pending), status: .accepted)
    }

    /// The kept image. Its bytes never change under one entity tag, so browsers may keep it
    /// for a year and revalidate with If-None-Match. With an object store and
    /// `photoRedirectSeconds` set, the answer is a redirect to a short-lived presigned URL.
    @Sendable func image(_ request: Request, context: AppRequestContext) async throws -> Response {
        let photo = try await ownedPhoto(request, context)
        let storage = store.photoStorage
        guard photo.state == .ready, let path = photo.filePath, PhotoPath.parse(path) != nil else {
            throw APIError(
                .notFound, "image_not_ready",
                photo.state == .failed
                    ? "This photo's image could not be downloaded: \(photo.failureReason ?? "unknown reason")"
                    : "This photo's image has not arrived yet.")
        }
        var headers = HTTPFields()
        headers[.contentType] = photo.contentType ?? "application/octet-stream"
        headers[.cacheControl] = "private, max-age=31536000, immutable"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        let etag = "\"\(photo.contentHash ?? photo.id)\""
        headers[.eTag] = etag
        if let match = request.headers[.ifNoneMatch],
            match.split(separator: ",").contains(where: {
                $0.trimmingCharacters(in: .whitespaces) == etag || $0.trimmingCharacters(in: .whitespaces) == "*"
            })
        {
            return Response(status: .notModified, headers: headers)
        }
        if let seconds = configuration.photoRedirectSeconds, let url = storage.directURL(relativePath: path, expires: seconds) {
            var redirect = HTTPFields()
            redirect[.location] = url.absoluteString
            // The link expires: a browser may reuse it only while it is valid.
            redirect[.cacheControl] = "private, max-age=\(max(0, seconds - 30))"
            return Response(status: .found, headers: redirect)
        }
        if let files = storage as? PhotoFileStore, let url = files.url(forRelativePath: path) {
            guard files.fileSize(relativePath: path) != nil else { throw Self.imageMissing }
            if let count = photo.byteCount { headers[.contentLength] = String(count) }
            let body = try await FileIO().loadFile(path: url.path, context: context)
            return Response(status: .ok, headers: headers, body: body)
        }
        let data: Data?
        do {
            data = try await storage.read(relativePath: path)
        } catch {
            context.logger.warning("photo store read failed", metadata: ["photo": "\(photo.id)", "error": "\(error)"])
            throw APIError(.badGateway, "photo_store_unavailable", "The photo store did not answer; try again shortly.")
        }
        guard let data else { throw Self.imageMissing }
        headers[.contentLength] = String(data.count)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: data)))
    }

    static let imageMissing = APIError(.notFound, "image_missing", "This photo's image file is missing; it is repaired at the next start.")

    // MARK: Helpers

    static let pinNotFound = APIError(.notFound, "pin_not_found", "No such pin.")
    static let photoNotFound = APIError(.notFound, "photo_not_found", "No such photo.")

    static let signInRequired = SignInRequired(
        missing: APIError(.unauthorized, "login_required", "Log in to use Travel: send the session cookie or X-Parse-Session-Token."),
        invalid: APIError(.unauthorized, "invalid_session", "Your session has ended or is not valid; log in again."))

    private func signedIn(_ context: AppRequestContext) throws -> String {
        try context.requireSignedIn(Self.signInRequired).accountKey
    }

    /// The pin named in the path, if the signed-in account owns it; 404 otherwise.
    private func ownedPin(_ request: Request, _ context: AppRequestContext) async throws -> Pin {
        let account = try signedIn(context)
        guard let id = context.parameters.get("pinID"), PhotoFileStore.isSafeComponent(id),
            let pin = try await store.pin(id: id), pin.ownerKey == account
        else { throw Self.pinNotFound }
        return pin
    }

    private func ownedPhoto(_ request: Request, _ context: AppRequestContext) async throws -> Photo {
        let account = try signedIn(context)
        guard let id = context.parameters.get("photoID"), PhotoFileStore.isSafeComponent(id),
            let photo = try await store.photo(id: id),
            let pin = try await store.pin(id: photo.pinID), pin.ownerKey == account
        else { throw Self.photoNotFound }
        return photo
    }

    /// The nearest place the geocoder knows, else the coordinates written out.
    private func placeName(_ coordinates: PinCoordinates) async -> String {
        if let place = try? await geocoder.reverse(latitude: coordinates.latitude, longitude: coordinates.longitude) {
            return place.name
        }
        let latitude = String(format: "%.4f", abs(coordinates.latitude)) + "° " + (coordinates.latitude >= 0 ? "N" : "S")
        let longitude = String(format: "%.4f", abs(coordinates.longitude)) + "° " + (coordinates.longitude >= 0 ? "E" : "W")
        return "\(latitude), \(longitude)"
    }
}

/// A provider failure in our API format: 503 with Retry-After when the provider is rate
/// limiting us, 502 otherwise (the provider, not the client, is at fault).
struct ProviderFailure: HTTPResponseError {
    let error: PhotoProviderError

    init(_ error: PhotoProviderError) { self.error = error }

    var status: HTTPResponse.Status {
        if case .rateLimited = error { return .serviceUnavailable }
        return .badGateway
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        if case .rateLimited(_, let retryAfter?) = error { headers[.retryAfter] = String(retryAfter) }
        return try JSONResponse.make(APIErrorBody(code: error.code, message: error.description), status: status, headers: headers)
    }
}
