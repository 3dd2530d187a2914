import ArgumentParser
import Foundation
import ObjectStorage
import Storage

/// `onthemap copy-photos`: `copy-database`'s companion for the photo files, from the data
/// directory into an S3-compatible object store (see `PhotoCopy`).
struct CopyPhotosCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy-photos",
        abstract:
            "Copy the data directory's Travel photos into an S3-compatible object store (resumable, checksum-verified, never overwriting).",
        discussion: """
            Credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY. Run it again after an \
            interruption: what is already there with the same bytes is skipped. An object that exists \
            with different bytes is reported and left alone, and the command then exits 1. Example:
              onthemap copy-photos --to s3://onthemap-photos/community --endpoint http://127.0.0.1:8333
            Then serve with --photo-store s3://onthemap-photos/community (and the same endpoint).
            """
    )

    @Option(help: "The object store: s3://bucket or s3://bucket/prefix. [env: ONTHEMAP_PHOTO_STORE]")
    var to: String?
    @Option(help: "The store's endpoint, e.g. http://127.0.0.1:8333. [env: AWS_ENDPOINT_URL] (default: AWS S3 in the region)")
    var endpoint: String?
    @Option(help: "The store's region. [env: AWS_REGION] (default: us-east-1)")
    var region: String?
    @Option(help: "Data folder whose photos/ to copy. [env: ONTHEMAP_DATA_DIR] (default: ./onthemap-data)")
    var dataDir: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        func setting(_ flag: String?, _ name: String) -> String? { flag ?? environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let target = setting(to, "ONTHEMAP_PHOTO_STORE") else {
            throw ValidationError("Name the object store with --to s3://bucket/prefix.")
        }
        guard let location = PhotoStoreLocation(target) else {
            throw ValidationError("The object store must look like s3://bucket or s3://bucket/prefix, not '\(target)'.")
        }
        let regionName = setting(region, "AWS_REGION") ?? setting(nil, "AWS_DEFAULT_REGION") ?? "us-east-1"
        let endpointText = setting(endpoint, "AWS_ENDPOINT_URL") ?? "https://s3.\(regionName).amazonaws.com"
        guard let endpointURL = URL(string: endpointText), ["http", "https"].contains(endpointURL.scheme?.lowercased() ?? ""),
            endpointURL.host != nil
        else {
            throw ValidationError("The endpoint must be an http(s) URL like http://127.0.0.1:8333, not '\(endpointText)'.")
        }
        guard let keyID = setting(nil, "AWS_ACCESS_KEY_ID"), let secret = setting(nil, "AWS_SECRET_ACCESS_KEY") else {
            throw ValidationError("Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY for the object store.")
        }
        let folder = setting(dataDir, "ONTHEMAP_DATA_DIR") ?? "onthemap-data"
        let source = PhotoFileStore(dataDirectory: URL(fileURLWithPath: folder))
        guard FileManager.default.fileExists(atPath: source.photosDirectory.path) else {
            throw ValidationError("No photos folder at \(source.photosDirectory.path); pass --data-dir.")
        }
        let client = S3Client(
            configuration: S3Configuration(
                endpoint: endpointURL, region: regionName, bucket: location.bucket,
                credentials: AWSCredentials(accessKeyID: keyID, secretAccessKey: secret, sessionToken: setting(nil, "AWS_SESSION_TOKEN"))
            ))
        let report = try await PhotoCopy.copy(from: source, to: S3PhotoStore(client: client, prefix: location.prefix))
        print("copied: \(report.copied)")
        print("already there (same bytes): \(report.alreadyThere)")
        if report.skipped > 0 { print("skipped (temporary or not a photo): \(report.skipped)") }
        for key in report.conflicts { print("refused, different object already at \(key)") }
        for failure in report.failures { print("failed: \(failure)") }
        guard report.succeeded else {
            FileHandle.standardError.write(
                Data(
                    "onthemap: \(report.conflicts.count) conflicts, \(report.failures.count) failures; nothing was overwritten. Run again to resume.\n"
                        .utf8))
            throw ExitCode(1)
        }
        print("Done. Serve with --photo-store \(target).")
    }
}
