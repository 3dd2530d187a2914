import CompressNIO
import NIOCore

/// gzip in one call (compress-nio over the system zlib), for bodies compressed once and
/// served many times (the live map's snapshot): the work is done once per change, not per
/// response.
enum Gzip {
    static func compress(_ input: ByteBuffer) -> ByteBuffer? {
        var input = input
        return try? input.compress(with: .gzip())
    }

    /// The inverse, for tests and benchmarks.
    static func decompress(_ input: ByteBuffer) -> ByteBuffer? {
        var input = input
        return try? input.decompress(with: .gzip())
    }
}
