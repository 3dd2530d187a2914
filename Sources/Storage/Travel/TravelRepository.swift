import Foundation

/// Pins, their photos and per-pin album state. Photo files are part of the store: every
/// method that removes a photo row removes its image file too, and `sweepPhotoFiles`
/// repairs what a crash between a row and a file left behind.
public protocol TravelRepository: Sendable {
    /// Where the images live.
    var photoStorage: any PhotoStorage { get }

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
    /// `replaceAlbum` for a fetch that started from the album `condition.collection` with the
    /// pin at `condition`'s point, in one transaction: when another server replaced the
    /// album meanwhile, or the pin moved, nothing changes and the answer is `.superseded`
    /// (fetch again). Two servers fetching one pin's album can never mix their photos.
    func replaceAlbum(pinID: String, with photos: [Photo], state: AlbumState, if condition: AlbumCondition) async throws -> AlbumReplacement
    /// Marks the pin's album as searching (making its state when it has none), keeping its
    /// collection and photos; false when the pin no longer exists.
    @discardableResult func markAlbumSearching(pinID: String, provider: String, at date: Date) async throws -> Bool
    /// Records that a fetch failed and why; the album and its collection stay.
    func markAlbumFailed(pinID: String, code: String, message: String, at date: Date) async throws

    /// Records a downloaded image for a pending photo. When the photo was deleted (or
    /// replaced) meanwhile, deletes the file instead and returns nil.
    func markPhotoReady(id: String, image: StoredImage, at date: Date) async throws -> Photo?
    /// Marks a pending photo failed with a reason; nil when it no longer exists.
    func markPhotoFailed(id: String, reason: String, at date: Date) async throws -> Photo?
    /// Sets a failed photo back to pending, for a retry; nil when it is not failed.
    func markPhotoPending(id: String, at date: Date) async throws -> Photo?

    /// Start-up repair, to run before downloads start: ready rows whose file is missing or
    /// the wrong size become failed (retryable); files and folders no row owns are deleted.
    /// With other servers at work (a shared database or store), only what was last touched
    /// before `abandonedBefore` is judged: a younger row or object may be another server's
    /// work in progress.
    func sweepPhotoFiles(abandonedBefore: Date) async throws -> PhotoSweepReport

    // MARK: Several servers

    /// Claims a pending photo's download for `owner` until `until`: one conditional UPDATE,
    /// so of servers racing for it exactly one wins. Succeeds when the photo is pending and
    /// unclaimed, claimed by `owner` already, or its claim expired before `now`.
    func claimPhoto(id: String, owner: String, until: Date, now: Date) async throws -> Photo?
    /// Extends `owner`'s claims on these photos (a download still running).
    func renewClaims(ids: [String], owner: String, until: Date) async throws
    /// Gives up `owner`'s claim on a photo left pending (shutting down), so another server
    /// may take it at once.
    func releaseClaim(id: String, owner: String) async throws
    /// Pending photos nobody is working on: claimed with an expired claim, or never claimed
    /// and last changed before `unclaimedBefore`. Oldest first, at most `limit`.
    func abandonedPhotos(now: Date, unclaimedBefore: Date, limit: Int) async throws -> [Photo]
    /// Album searches left `searching` since before `before` (their server stopped mid-search).
    func staleSearches(before: Date, limit: Int) async throws -> [AlbumState]
    /// Takes over a stale search: one conditional UPDATE touching its time, so of servers
    /// racing for it exactly one gets true.
    func takeStaleSearch(pinID: String, before: Date, now: Date) async throws -> Bool
    /// Counts one use against `limit` uses of `name` in the window starting at `windowStart`
    /// (every server together); false, counting nothing, when the window is used up.
    func countUse(name: String, windowStart: Date, limit: Int) async throws -> Bool
    /// Forgets counter windows that started before `date`.
    func pruneUsage(before date: Date) async throws
}
