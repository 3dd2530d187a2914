import Foundation
import ObjectStorage

/// Photo images in an S3-compatible bucket, under `<prefix>/photos/<pin>/<photo>.<ext>`.
/// A PUT is atomic in S3 (the key shows the old object or the whole new one, never part),
/// and the image is entirely in memory before it is sent, so it goes straight to its final
/// key: no temporary key, no copy, nothing half-written for anyone to see.
public struct S3PhotoStore: PhotoStorage {
    public let client: S3Client
    /// Without slashes at either end; may be empty.
    public let prefix: String

    public init(client: S3Client, prefix: String) {
        self.client = client
        self.prefix = prefix.split(separator: "/").joined(separator: "/")
    }

    public var isShared: Bool { true }

    /// One listing of at most one key under the prefix: it needs the bucket, the credentials
    /// and the endpoint, and reads nothing else.
    public func checkAvailable() async throws {
        let bucket = client.configuration.bucket
        let endpoint = client.configuration.endpoint.absoluteString
        do {
            _ = try await client.listObjects(prefix: photosPrefix, maxKeys: 1)
        } catch let error as S3Error {
            switch (error.status, error.code) {
            case (0, _):
                throw PhotoStoreUnavailable(
                    """
                    Cannot reach the photo store at \(endpoint) (\(error.message ?? "no answer")). Check --photo-store-endpoint \
                    (AWS_ENDPOINT_URL) and that the store is running.
                    """)
            case (404, _), (_, "NoSuchBucket"):
                throw PhotoStoreUnavailable(
                    """
                    The photo store's bucket '\(bucket)' does not exist at \(endpoint). Create it (for example \
                    `aws s3 mb s3://\(bucket) --endpoint-url \(endpoint)`), or name another in --photo-store.
                    """)
            case (401, _), (403, _):
                throw PhotoStoreUnavailable(
                    """
                    The photo store at \(endpoint) refused the credentials for bucket '\(bucket)' (\(error.code ?? "HTTP \(error.status)")). \
                    Check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN, if you use one), and the region \
                    (--photo-store-region).
                    """)
            default:
                throw PhotoStoreUnavailable("The photo store at \(endpoint) could not list bucket '\(bucket)': \(error.description)")
            }
        }
    }
    public var description: String { "s3://\(client.configuration.bucket)/\(prefix) at \(client.configuration.endpoint.absoluteString)" }

    /// The object key of a photo path; nil for a path that is not one.
    public func key(_ relativePath: String) -> String? {
        guard PhotoPath.parse(relativePath) != nil else { return nil }
        return prefix.isEmpty ? relativePath : "\(prefix)/\(relativePath)"
    }

    /// The photo path of an object key under the prefix.
    func relative(_ key: String) -> String {
        prefix.isEmpty ? key : String(key.dropFirst(prefix.count + 1))
    }

    var photosPrefix: String { (prefix.isEmpty ? "" : "\(prefix)/") + "\(PhotoPath.folder)/" }

    public func write(_ data: Data, pinID: String, photoID: String, fileExtension: String, contentType: String) async throws -> String {
        let relative = PhotoPath.make(pinID: pinID, photoID: photoID, fileExtension: fileExtension)
        guard let key = key(relative) else { throw PhotoFileError.invalidName(relative) }
        try await client.putObject(key: key, data: data, contentType: contentType)
        return relative
    }

    public func read(relativePath: String) async throws -> Data? {
        guard let key = key(relativePath) else { return nil }
        return try await client.getObject(key: key)?.data
    }

    public func size(relativePath: String) async throws -> Int? {
        guard let key = key(relativePath) else { return nil }
        return try await client.headObject(key: key)?.size
    }

    public func removeFile(relativePath: String) async {
        guard let key = key(relativePath) else { return }
        try? await client.deleteObject(key: key)
    }

    public func removePin(pinID: String) async {
        guard PhotoFileStore.isSafeComponent(pinID),
            let objects = try? await client.listAllObjects(prefix: photosPrefix + "\(pinID)/")
        else { return }
        for object in objects { try? await client.deleteObject(key: object.key) }
    }

    public func removePinIfEmpty(pinID _: String) async {}

    public func inventory() async throws -> PhotoInventory {
        let objects = try await client.listAllObjects(prefix: photosPrefix)
        return PhotoInventory(
            files: objects.map { PhotoInventory.Entry(path: relative($0.key), size: $0.size, modified: $0.lastModified) },
            folders: []
        )
    }

    public func removeEntry(_ entry: PhotoInventory.Entry) async {
        guard entry.path.hasPrefix("\(PhotoPath.folder)/"), !entry.path.split(separator: "/").contains("..") else { return }
        try? await client.deleteObject(key: prefix.isEmpty ? entry.path : "\(prefix)/\(entry.path)")
    }

    public func directURL(relativePath: String, expires: Int) -> URL? {
        key(relativePath).map { client.presignedGetURL(key: $0, expires: expires) }
    }
}

/// `s3://bucket/prefix` as `--photo-store` takes it.
public struct PhotoStoreLocation: Sendable, Equatable {
    public var bucket: String
    public var prefix: String

    /// Nil for anything but `s3://<valid bucket>[/<prefix>]`.
    public init?(_ text: String) {
        guard text.lowercased().hasPrefix("s3://") else { return nil }
        let rest = text.dropFirst(5)
        let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bucket = parts.first.map(String.init), S3Configuration.isValidBucket(bucket) else { return nil }
        let prefix = parts.count > 1 ? String(parts[1]).split(separator: "/").joined(separator: "/") : ""
        guard prefix.utf8.count <= 200, !prefix.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }),
            prefix.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F })
        else { return nil }
        self.bucket = bucket
        self.prefix = prefix
    }
}
