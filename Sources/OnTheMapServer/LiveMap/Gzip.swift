import CompressNIO
import NIOCore

/// gzip in one call (compress-nio over the system zlib), for bodies compressed once and
/// served many times (the live map's snapshot): the work is done once per change, not per
/// response.
enum Gzip {
    /// zlib's default level, or its fastest for bodies over `fastFrom` bytes, on every core
    /// (`ParallelGzip`): a million locations' map (110 MB of JSON) takes about 1 s on one core
    /// at the fastest level against about 5 s at the default, for a tenth more bytes; and a
    /// large class's snapshot is encoded again after each change.
    static func compress(_ input: ByteBuffer) -> ByteBuffer? {
        // zlib's fastest level, on every core.
        if input.readableBytes > fastFrom { return ParallelGzip.compress(input, level: 1) }
        var input = input
        return try? input.compress(with: .gzip(configuration: ZlibConfiguration(compressionLevel: .defaultCompressionLevel)))
    }

    static let fastFrom = 8 << 20

    /// The inverse, for tests and benchmarks.
    static func decompress(_ input: ByteBuffer) -> ByteBuffer? {
        var input = input
        return try? input.decompress(with: .gzip())
    }
}
