import Foundation

/// Where photo images are kept: a folder on this machine (`PhotoFileStore`, the default) or
/// an S3-compatible bucket (`S3PhotoStore`) several servers share. Paths given and returned
/// are `photos/<pin>/<photo>.<ext>` whatever the store, which is what a Photo row holds, so
/// moving the images (`onthemap copy-photos`) never touches the database.
public protocol PhotoStorage: Sendable, CustomStringConvertible {
    /// Whether other servers may be writing here at the same time: the start-up repair then
    /// deletes only unowned objects old enough to be abandoned, never one being written.
    var isShared: Bool { get }
    /// Stores a whole image; it becomes visible under its final name only complete.
    func write(_ data: Data, pinID: String, photoID: String, fileExtension: String, contentType: String) async throws -> String
    /// The image's bytes; nil when it is missing.
    func read(relativePath: String) async throws -> Data?
    /// The stored size; nil when missing.
    func size(relativePath: String) async throws -> Int?
    /// Deletes one image; a missing one is not an error.
    func removeFile(relativePath: String) async
    /// Deletes everything of a pin.
    func removePin(pinID: String) async
    /// Tidies a pin left with nothing in it (a folder store's empty folder).
    func removePinIfEmpty(pinID: String) async
    /// Everything stored, for the start-up repair.
    func inventory() async throws -> PhotoInventory
    /// Deletes an inventory entry, whatever its name.
    func removeEntry(_ entry: PhotoInventory.Entry) async
    /// A URL the browser may fetch the image from directly for `expires` seconds; nil when
    /// the store cannot hand out such links (a folder).
    func directURL(relativePath: String, expires: Int) -> URL?
    /// Checked at start-up: throws `PhotoStoreUnavailable`, saying what to fix, when the store
    /// cannot be used (no such bucket, credentials refused, nothing answering).
    func checkAvailable() async throws
}

/// A photo store that cannot be used, in words that say what to do about it.
public struct PhotoStoreUnavailable: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// What a photo store holds.
public struct PhotoInventory: Sendable {
    public struct Entry: Sendable, Equatable {
        /// `photos/<pin>/<name>` (or `photos/<name>` for a stray at the top).
        public var path: String
        public var size: Int?
        public var modified: Date?
        /// A directory of its own (a folder store's pin folder).
        public var isFolder: Bool

        public init(path: String, size: Int?, modified: Date?, isFolder: Bool = false) {
            self.path = path
            self.size = size
            self.modified = modified
            self.isFolder = isFolder
        }

        /// The pin id of `photos/<pin>/...`, nil otherwise.
        public var pinID: String? {
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            return parts.count >= 2 && parts[0] == "photos" ? String(parts[1]) : nil
        }
    }

    public var files: [Entry]
    /// Pin folders (folder stores only; an object store has no folders).
    public var folders: [Entry]

    public init(files: [Entry], folders: [Entry]) {
        self.files = files
        self.folders = folders
    }
}

/// Paths that name a photo: `photos/<id>/<id>.<ext>` with ids of `[A-Za-z0-9_-]`.
public enum PhotoPath {
    public static let folder = "photos"

    public static func make(pinID: String, photoID: String, fileExtension: String) -> String {
        "\(folder)/\(pinID)/\(photoID).\(fileExtension)"
    }

    /// The pin and file name of a valid photo path; nil for anything else, so a bad row
    /// can never name something outside the photos.
    public static func parse(_ path: String) -> (pinID: String, fileName: String)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, parts[0] == folder, PhotoFileStore.isSafeComponent(parts[1]) else { return nil }
        let name = parts[2].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard name.count == 2, PhotoFileStore.isSafeComponent(name[0]), PhotoFileStore.isSafeComponent(name[1]) else { return nil }
        return (parts[1], parts[2])
    }
}
