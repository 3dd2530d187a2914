import Crypto
import Foundation
import ObjectStorage

/// `onthemap copy-photos`: a data directory's photo files into an object store, under the
/// same `photos/<pin>/<photo>.<ext>` names, so the database's rows stay valid unchanged.
/// Resumable (an object already there with the same bytes counts as copied), verified (the
/// store checks each body against its Content-MD5, and the answered ETag against ours), and
/// never overwriting: an object already there with other bytes is reported and left alone.
public enum PhotoCopy {
    public struct Report: Sendable, Equatable {
        public var copied = 0
        public var alreadyThere = 0
        /// Keys that hold different bytes in the store; left as they are.
        public var conflicts: [String] = []
        /// Files that could not be copied, with why.
        public var failures: [String] = []
        /// Temporary or unrecognised files skipped.
        public var skipped = 0

        public init() {}
        public var succeeded: Bool { conflicts.isEmpty && failures.isEmpty }
    }

    public static func copy(
        from source: PhotoFileStore, to destination: S3PhotoStore,
        progress: (@Sendable (String) -> Void)? = nil
    ) async throws -> Report {
        var report = Report()
        let inventory = try await source.inventory()
        for entry in inventory.files.sorted(by: { $0.path < $1.path }) {
            guard PhotoPath.parse(entry.path) != nil, let key = destination.key(entry.path) else {
                report.skipped += 1
                continue
            }
            guard let data = try await source.read(relativePath: entry.path) else {
                report.failures.append("\(entry.path): vanished while copying")
                continue
            }
            let md5 = SigV4Signer.hex(Insecure.MD5.hash(data: data))
            do {
                if let existing = try await destination.client.headObject(key: key) {
                    if existing.etag.lowercased() == md5, existing.size == data.count {
                        report.alreadyThere += 1
                    } else {
                        report.conflicts.append(key)
                    }
                    continue
                }
                let contentType = contentType(for: entry.path)
                let etag = try await destination.client.putObject(key: key, data: data, contentType: contentType)
                guard etag.lowercased() == md5, try await destination.client.headObject(key: key)?.size == data.count else {
                    report.failures.append("\(entry.path): the store's checksum did not match after upload")
                    continue
                }
                report.copied += 1
                progress?(entry.path)
            } catch {
                report.failures.append("\(entry.path): \(error)")
            }
        }
        return report
    }

    static func contentType(for path: String) -> String {
        switch path.split(separator: ".").last?.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "gif": "image/gif"
        case "webp": "image/webp"
        default: "application/octet-stream"
        }
    }
}
