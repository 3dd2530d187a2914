import Foundation

/// Pins, their photos and per-pin album state. Photo files are part of the store: every
/// method that removes a photo row removes its image file too, and `sweepPhotoFiles`
/// repairs what a crash between a row and a file left behind.
public protocol TravelRepository: Sendable {
    /// Where the images live.
    var photoFiles: PhotoFileStore { get }

    func createPin(_ pin: Pin) async throws
    /// The account's pins, oldest first.
    func pins(ownerKey: String) async throws -> [Pin]
    func countPins(ownerKey: String) async throws -> Int
    func pin(id: String) async throws -> Pin?
    /// Moves a pin; nil when it does not exist.
    func movePin(id: String, latitude: Double, longitude: Double, placeName: String, updatedAt: Date) async throws -> Pin?
    /// Deletes the pin, its photos, its album state and its image folder. Returns whether it existed.
    @discardableResult func deletePin(id: String) async throws -> Bool

    /// The pin's current album (the collection its album state names), in provider order.
    func photos(pinID: String) async throws -> [Photo]
    func photo(id: String) async throws -> Photo?
    /// Photos still waiting for their image, oldest first (to resume after a restart).
    func pendingPhotos() async throws -> [Photo]
    /// Deletes the photo row and its image file; returns the deleted photo.
    @discardableResult func deletePhoto(id: String) async throws -> Photo?

    func albumState(pinID: String) async throws -> AlbumState?
    /// Album states in one status (for example `searching` ones a restart interrupted).
    func albumStates(status: AlbumStatus) async throws -> [AlbumState]
    /// Inserts or replaces the pin's album state; false when the pin no longer exists.
    @discardableResult func saveAlbumState(_ state: AlbumState) async throws -> Bool
    /// When the album is not searching and none of its photos is pending: marks a
    /// downloading album complete and returns the album state. Nil while work remains.
    func settleAlbum(pinID: String, at date: Date) async throws -> AlbumState?
    /// Makes `photos` (whose `collection` is `state.collection`) the pin's album and stores
    /// `state`; then deletes the previous photos and their files. Readers see either the old
    /// album or the new one, never a mix. Returns the removed photos, or nil when the pin no
    /// longer exists.
    func replaceAlbum(pinID: String, with photos: [Photo], state: AlbumState) async throws -> [Photo]?

    /// Records a downloaded image for a pending photo. When the photo was deleted (or
    /// replaced) meanwhile, deletes the file instead and returns nil.
    func markPhotoReady(id: String, image: StoredImage, at date: Date) async throws -> Photo?
    /// Marks a pending photo failed with a reason; nil when it no longer exists.
    func markPhotoFailed(id: String, reason: String, at date: Date) async throws -> Photo?
    /// Sets a failed photo back to pending, for a retry; nil when it is not failed.
    func markPhotoPending(id: String, at date: Date) async throws -> Photo?

    /// Start-up repair, to run before downloads start: ready rows whose file is missing or
    /// the wrong size become failed (retryable); files and folders no row owns are deleted.
    func sweepPhotoFiles() async throws -> PhotoSweepReport
}
