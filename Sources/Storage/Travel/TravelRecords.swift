import Foundation

/// A place a user dropped on the Travel map. Its album is the photos whose `pinID` is `id`.
public struct Pin: Sendable, Equatable {
    public var id: String
    /// The account that dropped the pin; only it may see or change the pin.
    public var ownerKey: String
    public var latitude: Double
    public var longitude: Double
    /// The geocoder's nearest place, or the coordinates written out when none is near.
    public var placeName: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: String, ownerKey: String, latitude: Double, longitude: Double, placeName: String, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.ownerKey = ownerKey
        self.latitude = latitude
        self.longitude = longitude
        self.placeName = placeName
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// Where a photo's image stands.
public enum PhotoState: String, Sendable, Codable, CaseIterable {
    /// Known from the provider, image not downloaded yet.
    case pending
    /// The image is on disk at `filePath`.
    case ready
    /// The download failed; `failureReason` says why. Retrying sets it back to pending.
    case failed
}

/// One photo of a pin's album: what the provider said about it, and the kept image.
public struct Photo: Sendable, Equatable {
    public var id: String
    public var pinID: String
    /// Which album of the pin this photo belongs to (the pin's `AlbumState.collection` when it was fetched).
    public var collection: Int
    /// Order within the album, as the provider listed it.
    public var position: Int
    /// `flickr` or `wikimedia`.
    public var provider: String
    public var remoteID: String
    public var remoteURL: String
    public var title: String
    /// Who took it, as the provider names them.
    public var author: String
    /// The licence the provider states, e.g. "CC BY-SA 4.0", when it states one.
    public var license: String?
    /// The photo's page at the provider (credits link).
    public var attributionURL: String?
    /// Relative to the data directory (`photos/<pin>/<photo>.<ext>`); set exactly when `state` is ready.
    public var filePath: String?
    public var contentType: String?
    public var byteCount: Int?
    /// A hash of the image bytes, the HTTP entity tag.
    public var contentHash: String?
    public var state: PhotoState
    public var failureReason: String?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: String, pinID: String, collection: Int, position: Int, provider: String, remoteID: String, remoteURL: String,
        title: String, author: String, license: String? = nil, attributionURL: String?, filePath: String? = nil, contentType: String? = nil,
        byteCount: Int? = nil, contentHash: String? = nil, state: PhotoState = .pending, failureReason: String? = nil,
        createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.pinID = pinID
        self.collection = collection
        self.position = position
        self.provider = provider
        self.remoteID = remoteID
        self.remoteURL = remoteURL
        self.title = title
        self.author = author
        self.license = license
        self.attributionURL = attributionURL
        self.filePath = filePath
        self.contentType = contentType
        self.byteCount = byteCount
        self.contentHash = contentHash
        self.state = state
        self.failureReason = failureReason
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What the last fetch of a pin's album did.
public enum AlbumStatus: String, Sendable, Codable, CaseIterable {
    /// Asking the provider for a page of photos.
    case searching
    /// The photo list is known; images are arriving.
    case downloading
    /// Every photo of the album is ready or failed.
    case complete
    /// The provider could not be asked or refused; the photos already kept stay.
    case failed
}

/// Per-pin provider state: which page of results the album shows, so "New Collection"
/// asks for a different one, and how the last fetch went. One row per pin.
public struct AlbumState: Sendable, Equatable {
    public var pinID: String
    public var provider: String
    /// Increases by one each time the album is replaced.
    public var collection: Int
    /// The provider's result page the current album came from (1-based).
    public var page: Int
    /// How many pages the provider reported for this place (0 when unknown or none).
    public var pages: Int
    /// How many results the provider reported.
    public var total: Int
    public var status: AlbumStatus
    /// Set when `status` is failed: a short machine code and a sentence for people.
    public var errorCode: String?
    public var errorMessage: String?
    public var updatedAt: Date

    public init(
        pinID: String, provider: String, collection: Int, page: Int, pages: Int, total: Int, status: AlbumStatus,
        errorCode: String? = nil, errorMessage: String? = nil, updatedAt: Date
    ) {
        self.pinID = pinID
        self.provider = provider
        self.collection = collection
        self.page = page
        self.pages = pages
        self.total = total
        self.status = status
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.updatedAt = updatedAt
    }
}

/// What a downloaded image left on disk, for `markPhotoReady`.
public struct StoredImage: Sendable, Equatable {
    public var filePath: String
    public var contentType: String
    public var byteCount: Int
    public var contentHash: String

    public init(filePath: String, contentType: String, byteCount: Int, contentHash: String) {
        self.filePath = filePath
        self.contentType = contentType
        self.byteCount = byteCount
        self.contentHash = contentHash
    }
}

/// What the start-up sweep found and fixed.
public struct PhotoSweepReport: Sendable, Equatable {
    /// Ready rows whose file was gone; now failed, so a retry downloads them again.
    public var rowsMarkedFailed = 0
    /// Photos of an album a crash interrupted replacing; deleted (their files with the rest).
    public var staleRowsDeleted = 0
    /// Files (and leftover temporary files) no row pointed at; deleted.
    public var filesDeleted = 0
    /// Empty or ownerless pin folders; deleted.
    public var foldersDeleted = 0

    public init() {}
}

/// What an album fetch started from: the album's collection and the pin's point.
public struct AlbumCondition: Sendable, Equatable {
    public var collection: Int
    public var latitude: Double
    public var longitude: Double

    public init(collection: Int, latitude: Double, longitude: Double) {
        self.collection = collection
        self.latitude = latitude
        self.longitude = longitude
    }
}

public enum AlbumReplacement: Sendable, Equatable {
    /// The album is the new one; these photos (and their files) went.
    case replaced([Photo])
    /// Another server replaced the album, or the pin moved, after the fetch began.
    case superseded
    case pinGone
}
