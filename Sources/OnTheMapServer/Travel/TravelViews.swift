import Foundation
import OnTheMapModels
import Storage

/// A pin's album as the API shows it: the pin, how its last fetch went, its photos.
struct AlbumSnapshot: Sendable {
    var pin: Pin
    var state: AlbumState?
    var photos: [Photo]

    /// Nothing more will change without a new request: the album is complete (or its fetch
    /// failed) and no photo is pending. An album still `downloading` is not settled even when
    /// its last photo just arrived: it becomes so when `settleAlbum` marks it complete (and
    /// watchers hear `done` then), so `settled` never contradicts `status`.
    var isSettled: Bool {
        guard let state, state.status == .complete || state.status == .failed else { return false }
        return !photos.contains { $0.state == .pending }
    }
}

struct PinView: Encodable, Sendable {
    let id: String
    let latitude: Double
    let longitude: Double
    let placeName: String
    let createdAt: String
    let updatedAt: String

    init(_ pin: Pin) {
        id = pin.id
        latitude = pin.latitude
        longitude = pin.longitude
        placeName = pin.placeName
        createdAt = ParseDate.string(from: pin.createdAt)
        updatedAt = ParseDate.string(from: pin.updatedAt)
    }
}

struct PhotoView: Encodable, Sendable {
    let id: String
    let pinId: String
    /// pending, ready or failed.
    let state: String
    let title: String
    let author: String
    let license: String?
    /// The photo's page at the provider, for credits.
    let attributionURL: String?
    let provider: String
    let remoteId: String
    /// Where the kept image is served; only when `state` is ready.
    let imageURL: String?
    let contentType: String?
    let byteCount: Int?
    let failureReason: String?
    let createdAt: String
    let updatedAt: String

    init(_ photo: Photo) {
        id = photo.id
        pinId = photo.pinID
        state = photo.state.rawValue
        title = photo.title
        author = photo.author
        license = photo.license
        attributionURL = photo.attributionURL
        provider = photo.provider
        remoteId = photo.remoteID
        imageURL = photo.state == .ready ? "/api/photos/\(photo.id)/image" : nil
        contentType = photo.state == .ready ? photo.contentType : nil
        byteCount = photo.state == .ready ? photo.byteCount : nil
        failureReason = photo.failureReason
        createdAt = ParseDate.string(from: photo.createdAt)
        updatedAt = ParseDate.string(from: photo.updatedAt)
    }
}

struct AlbumStatusView: Encodable, Sendable {
    struct Problem: Encodable, Sendable {
        let code: String
        let message: String
    }

    /// searching, downloading, complete or failed.
    let status: String
    /// Complete or failed, nothing pending: the album will not change by itself.
    let settled: Bool
    let provider: String?
    /// Increases each time the album is replaced.
    let collection: Int
    let page: Int
    let pages: Int
    let total: Int
    let pending: Int
    let ready: Int
    let failed: Int
    /// Why the last fetch failed; the photos already kept stay.
    let error: Problem?

    init(_ snapshot: AlbumSnapshot) {
        let state = snapshot.state
        // No state yet: the prefetch job is queued.
        status = state?.status.rawValue ?? AlbumStatus.searching.rawValue
        settled = snapshot.isSettled
        provider = state?.provider
        collection = state?.collection ?? 0
        page = state?.page ?? 0
        pages = state?.pages ?? 0
        total = state?.total ?? 0
        pending = snapshot.photos.count { $0.state == .pending }
        ready = snapshot.photos.count { $0.state == .ready }
        failed = snapshot.photos.count { $0.state == .failed }
        if let state, state.status == .failed {
            error = Problem(code: state.errorCode ?? "provider_failed", message: state.errorMessage ?? "The photo search failed.")
        } else {
            error = nil
        }
    }
}

struct AlbumView: Encodable, Sendable {
    let pin: PinView
    let album: AlbumStatusView
    let photos: [PhotoView]

    init(_ snapshot: AlbumSnapshot) {
        pin = PinView(snapshot.pin)
        album = AlbumStatusView(snapshot)
        photos = snapshot.photos.map(PhotoView.init)
    }
}

struct PinListView: Encodable, Sendable {
    let results: [PinView]
}

/// `POST /api/pins` and `PATCH /api/pins/:id`: `{"latitude": 48.85, "longitude": 2.35}`.
struct PinCoordinates: Sendable {
    let latitude: Double
    let longitude: Double

    static func parse(_ data: Data) throws -> PinCoordinates {
        guard case .object(let object)? = JSONValue.parse(data) else {
            throw APIError(.badRequest, "invalid_json", #"Send a JSON object: {"latitude": 48.8584, "longitude": 2.2945}."#)
        }
        func number(_ key: String) throws -> Double {
            guard let value = object[key], value != .null else {
                throw APIError(.badRequest, "missing_\(key)", "\(key) is required.")
            }
            guard case .number(let number) = value, number.isFinite else {
                throw APIError(.badRequest, "invalid_\(key)", "\(key) must be a number, not a \(value.typeName).")
            }
            return number
        }
        let latitude = try number("latitude")
        var longitude = try number("longitude")
        guard (-90...90).contains(latitude) else {
            throw APIError(.badRequest, "invalid_latitude", "latitude must be between -90 and 90.")
        }
        // Maps that pan across the antimeridian report longitudes past ±180: wrap them.
        guard (-540...540).contains(longitude) else {
            throw APIError(.badRequest, "invalid_longitude", "longitude must be between -180 and 180.")
        }
        if longitude < -180 || longitude > 180 {
            longitude = (longitude + 180).truncatingRemainder(dividingBy: 360)
            if longitude < 0 { longitude += 360 }
            longitude -= 180
        }
        return PinCoordinates(latitude: latitude, longitude: longitude)
    }
}
