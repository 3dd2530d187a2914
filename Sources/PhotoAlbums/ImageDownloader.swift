import Foundation

/// A downloaded, checked image.
public struct DownloadedImage: Sendable {
    public var data: Data
    public var format: ImageFormat
}

/// Why an image could not be downloaded, as a sentence for the photo's failure reason.
public enum ImageDownloadError: Error, Equatable, CustomStringConvertible {
    case http(Int)
    case network(String)
    case notAnImage(contentType: String?)
    case truncated(ImageFormat)
    case tooLarge(Int)
    case empty

    public var description: String {
        switch self {
        case .http(let status): "The image server answered HTTP \(status)."
        case .network(let reason): "The image could not be downloaded: \(reason)."
        case .notAnImage(let type): "The download was not an image" + (type.map { " (\($0))" } ?? "") + "."
        case .truncated(let format): "The \(format.rawValue.uppercased()) image arrived cut short."
        case .tooLarge(let limit): "The image is larger than \(limit / 1_048_576) MB."
        case .empty: "The image server sent an empty file."
        }
    }

    /// Worth a second try: the network, a busy server, a cut connection.
    var isTransient: Bool {
        switch self {
        case .http(let status): status == 408 || status == 429 || status >= 500
        case .network, .truncated, .empty: true
        case .notAnImage, .tooLarge: false
        }
    }
}

/// Downloads images with at most `concurrency` requests in flight across the whole server,
/// a deadline per request and one retry for transient failures.
public final class ImageDownloader: Sendable {
    let fetcher: HTTPFetcher
    let limiter: ConcurrencyLimiter
    public let timeout: TimeInterval
    public let maximumBytes: Int
    let retries: Int
    let retryDelay: Duration

    public init(
        fetcher: HTTPFetcher, concurrency: Int = 6, timeout: TimeInterval = 15,
        maximumBytes: Int = 15 * 1_048_576, retries: Int = 1, retryDelay: Duration = .milliseconds(250)
    ) {
        self.fetcher = fetcher
        self.limiter = ConcurrencyLimiter(limit: concurrency)
        self.timeout = timeout
        self.maximumBytes = maximumBytes
        self.retries = max(0, retries)
        self.retryDelay = retryDelay
    }

    /// Downloads and checks one image. `shouldStart` runs once a slot is free, before any
    /// request: return false to skip a photo that was deleted while it waited (the result
    /// is then nil). Throws `ImageDownloadError`, or `CancellationError` when cancelled.
    public func download(_ url: URL, shouldStart: @Sendable () async -> Bool = { true }) async throws -> DownloadedImage? {
        var attempt = 0
        while true {
            try Task.checkCancellation()
            do {
                return try await limiter.withSlot {
                    try Task.checkCancellation()
                    guard await shouldStart() else { return nil }
                    return try await fetchOnce(url)
                }
            } catch let error as ImageDownloadError where error.isTransient && attempt < retries {
                attempt += 1
                try await Task.sleep(for: retryDelay)
            }
        }
    }

    func fetchOnce(_ url: URL) async throws -> DownloadedImage {
        if url.scheme == GeneratedPhotoProvider.scheme {
            guard let data = GeneratedPicture.png(for: url) else { throw ImageDownloadError.http(404) }
            return DownloadedImage(data: data, format: .png)
        }
        let reply: HTTPFetcher.Reply
        do {
            reply = try await fetcher.get(url, timeout: timeout, accept: "image/*")
        } catch let failure as HTTPFetcher.Failure {
            throw ImageDownloadError.network(failure.description)
        }
        guard (200..<300).contains(reply.status) else { throw ImageDownloadError.http(reply.status) }
        let data = reply.body
        guard !data.isEmpty else { throw ImageDownloadError.empty }
        guard data.count <= maximumBytes else { throw ImageDownloadError.tooLarge(maximumBytes) }
        guard let format = ImageFormat.sniff(data) else {
            throw ImageDownloadError.notAnImage(contentType: reply.header("Content-Type"))
        }
        if let declared = reply.header("Content-Length").flatMap({ Int($0) }), declared != data.count {
            throw ImageDownloadError.truncated(format)
        }
        guard format.isComplete(data) else { throw ImageDownloadError.truncated(format) }
        return DownloadedImage(data: data, format: format)
    }
}

/// A counting semaphore for async code: first come, first served.
actor ConcurrencyLimiter {
    let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    func withSlot<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await acquire()
        do {
            let value = try await body()
            release()
            return value
        } catch {
            release()
            throw error
        }
    }

    private func acquire() async {
        if running < limit {
            running += 1
            return
        }
        // The slot is handed over by `release`, so `running` stays as it is.
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
