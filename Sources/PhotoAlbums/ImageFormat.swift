import Foundation

/// Image formats we keep, recognised by their bytes (never by the server's Content-Type),
/// with a check that the file is complete so a truncated download is not kept.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg, png, gif, webp

    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .gif: "gif"
        case .webp: "webp"
        }
    }

    public var contentType: String { "image/\(rawValue)" }

    public static func sniff(_ data: Data) -> ImageFormat? {
        let bytes = [UInt8](data.prefix(12))
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return .gif }
        if bytes.count == 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return .webp }
        return nil
    }

    /// Whether the data ends the way a whole file of this format does.
    public func isComplete(_ data: Data) -> Bool {
        switch self {
        case .jpeg:
            // End-of-image marker; entropy-coded data never contains FF D9, so a cut file lacks it.
            let tail = [UInt8](data.suffix(1024))
            return tail.count >= 2 && zip(tail, tail.dropFirst()).contains { $0 == 0xFF && $1 == 0xD9 }
        case .png:
            let tail = [UInt8](data.suffix(64))
            return tail.count >= 12 && Array(tail.suffix(8).prefix(4)) == Array("IEND".utf8)
        case .gif:
            return data.last == 0x3B
        case .webp:
            guard data.count >= 12 else { return false }
            let size = data.dropFirst(4).prefix(4).enumerated().reduce(0) { $0 | (Int($1.element) << (8 * $1.offset)) }
            return data.count >= size + 8
        }
    }
}
