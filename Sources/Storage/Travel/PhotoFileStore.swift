import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Photo images on disk (the default `PhotoStorage`): `<dataDirectory>/photos/<pin>/<photo>.<ext>`. Paths given to and
/// returned by this type are relative to the data directory (`photos/<pin>/<photo>.jpg`),
/// which is what a Photo row stores, so the data directory can move.
public struct PhotoFileStore: PhotoStorage {
    public let dataDirectory: URL
    static let folder = "photos"
    static let temporarySuffix = ".partial"

    public init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory.standardizedFileURL
    }

    public var photosDirectory: URL { dataDirectory.appendingPathComponent(Self.folder, isDirectory: true) }

    /// Ids become path components: only `[A-Za-z0-9_-]`, 1 to 64 characters.
    public static func isSafeComponent(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 64
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
                    || byte == 0x2D
            }
    }

    public func relativePath(pinID: String, photoID: String, fileExtension: String) -> String {
        "\(Self.folder)/\(pinID)/\(photoID).\(fileExtension)"
    }

    /// The absolute location of a stored relative path; nil for anything that is not
    /// `photos/<id>/<id>.<ext>` (so a bad row can never point outside the photo folder).
    public func url(forRelativePath path: String) -> URL? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, parts[0] == Self.folder, Self.isSafeComponent(parts[1]) else { return nil }
        let name = parts[2].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard name.count == 2, Self.isSafeComponent(name[0]), Self.isSafeComponent(name[1]) else { return nil }
        return photosDirectory.appendingPathComponent(parts[1], isDirectory: true).appendingPathComponent(parts[2])
    }

    public var isShared: Bool { false }

    /// The folder is made when the first photo is written; nothing to check before.
    public func checkAvailable() async throws {}
    public var description: String { "the folder \(photosDirectory.path)" }

    public func write(_ data: Data, pinID: String, photoID: String, fileExtension: String, contentType _: String) async throws -> String {
        try write(data, pinID: pinID, photoID: photoID, fileExtension: fileExtension)
    }

    public func read(relativePath: String) async throws -> Data? {
        guard let url = url(forRelativePath: relativePath), fileSize(relativePath: relativePath) != nil else { return nil }
        return try Data(contentsOf: url)
    }

    public func size(relativePath: String) async throws -> Int? {
        fileSize(relativePath: relativePath)
    }

    public func removeFile(relativePath: String) async {
        deleteFile(relativePath: relativePath)
    }

    public func removePin(pinID: String) async { removeFolder(pinID: pinID) }

    public func removePinIfEmpty(pinID: String) async { removeFolderIfEmpty(pinID: pinID) }

    public func inventory() async throws -> PhotoInventory {
        let found = listing()
        let manager = FileManager.default
        func entry(_ relative: String, folder: Bool = false) -> PhotoInventory.Entry {
            let attributes = try? manager.attributesOfItem(atPath: dataDirectory.appendingPathComponent(relative).path)
            return PhotoInventory.Entry(
                path: relative, size: (attributes?[.size] as? NSNumber)?.intValue,
                modified: attributes?[.modificationDate] as? Date, isFolder: folder)
        }
        return PhotoInventory(
            files: found.files.map { entry($0) } + found.strays.map { entry("\(Self.folder)/\($0.lastPathComponent)") },
            folders: found.folders.map { entry("\(Self.folder)/\($0)", folder: true) }
        )
    }

    public func removeEntry(_ entry: PhotoInventory.Entry) async {
        let parts = entry.path.split(separator: "/", omittingEmptySubsequences: false)
        // Only under photos/, and never `..`.
        guard parts.first == "photos", parts.count >= 2, !parts.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) else { return }
        removeInventoryEntry(entry.path)
    }

    public func directURL(relativePath _: String, expires _: Int) -> URL? { nil }

    /// Writes the image under a temporary name in the pin's folder, then renames it into
    /// place, so the final name only ever holds a whole file. Returns the relative path.
    public func write(_ data: Data, pinID: String, photoID: String, fileExtension: String) throws -> String {
        let relative = relativePath(pinID: pinID, photoID: photoID, fileExtension: fileExtension)
        guard let destination = url(forRelativePath: relative) else { throw PhotoFileError.invalidName(relative) }
        let folder = destination.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent(".\(photoID).\(UInt32.random(in: 0...UInt32.max))\(Self.temporarySuffix)")
        do {
            try data.write(to: temporary)
            guard rename(temporary.path, destination.path) == 0 else { throw PhotoFileError.renameFailed(relative, errno) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        return relative
    }

    /// Deletes a stored file; a missing file is not an error.
    public func deleteFile(relativePath: String) {
        guard let url = url(forRelativePath: relativePath) else { return }
        try? FileManager.default.removeItem(at: url)
    }

    /// Deletes a pin's whole folder.
    public func removeFolder(pinID: String) {
        guard Self.isSafeComponent(pinID) else { return }
        try? FileManager.default.removeItem(at: photosDirectory.appendingPathComponent(pinID, isDirectory: true))
    }

    /// Deletes a pin's folder if nothing is in it (a download that lost its row made it).
    public func removeFolderIfEmpty(pinID: String) {
        guard Self.isSafeComponent(pinID) else { return }
        _ = rmdir(photosDirectory.appendingPathComponent(pinID, isDirectory: true).path)
    }

    /// The size of a stored file, nil when it does not exist or is not a regular file.
    public func fileSize(relativePath: String) -> Int? {
        guard let url = url(forRelativePath: relativePath),
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            attributes[.type] as? FileAttributeType == .typeRegular
        else { return nil }
        return (attributes[.size] as? NSNumber)?.intValue
    }

    /// What is on disk under `photos/`: every entry of every pin folder, as relative paths,
    /// plus entries at the top that are not folders.
    func listing() -> (folders: [String], files: [String], strays: [URL]) {
        let manager = FileManager.default
        guard let top = try? manager.contentsOfDirectory(atPath: photosDirectory.path) else { return ([], [], []) }
        var folders: [String] = []
        var files: [String] = []
        var strays: [URL] = []
        for entry in top {
            let url = photosDirectory.appendingPathComponent(entry)
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                strays.append(url)
                continue
            }
            folders.append(entry)
            for name in (try? manager.contentsOfDirectory(atPath: url.path)) ?? [] {
                files.append("\(Self.folder)/\(entry)/\(name)")
            }
        }
        return (folders, files, strays)
    }

    /// Deletes a relative path found by `inventory`, whatever its name looks like.
    func removeInventoryEntry(_ relative: String) {
        try? FileManager.default.removeItem(at: dataDirectory.appendingPathComponent(relative))
    }
}

public enum PhotoFileError: Error, CustomStringConvertible {
    case invalidName(String)
    case renameFailed(String, Int32)

    public var description: String {
        switch self {
        case .invalidName(let path): "Not a valid photo file path: \(path)"
        case .renameFailed(let path, let code): "Could not move the downloaded image into place at \(path) (errno \(code))."
        }
    }
}

/// FNV-1a, 64 bits: a cheap fingerprint of an image's bytes for its entity tag.
public enum ContentHash {
    public static func fnv1a(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        let text = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
