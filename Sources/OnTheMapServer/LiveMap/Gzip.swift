import CZlib
import NIOCore

/// gzip in one call, for bodies compressed once and served many times (the live map's
/// snapshot). NIO's compressor works per response; this does the work once per change.
enum Gzip {
    static func compress(_ input: ByteBuffer, level: Int32 = 6) -> ByteBuffer? {
        var stream = z_stream()
        // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
        guard deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return nil
        }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, UInt(input.readableBytes)))
        var output = ByteBufferAllocator().buffer(capacity: bound)
        var result = Z_OK
        input.withUnsafeReadableBytes { source in
            _ = output.writeWithUnsafeMutableBytes(minimumWritableBytes: bound) { target in
                stream.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = target.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(target.count)
                result = deflate(&stream, Z_FINISH)
                return target.count - Int(stream.avail_out)
            }
        }
        // deflateBound leaves room for everything, so one call finishes the stream.
        return result == Z_STREAM_END ? output : nil
    }

    /// The inverse, for tests and benchmarks.
    static func decompress(_ input: ByteBuffer) -> ByteBuffer? {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output = ByteBufferAllocator().buffer(capacity: input.readableBytes * 4 + 64)
        var input = input
        var finished = false
        while !finished {
            let consumed: Int = input.withUnsafeReadableBytes { source in
                var result = Z_OK
                output.writeWithUnsafeMutableBytes(minimumWritableBytes: 64 * 1024) { target in
                    stream.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: Bytef.self).baseAddress)
                    stream.avail_in = uInt(source.count)
                    stream.next_out = target.bindMemory(to: Bytef.self).baseAddress
                    stream.avail_out = uInt(target.count)
                    result = inflate(&stream, Z_NO_FLUSH)
                    return target.count - Int(stream.avail_out)
                }
                if result == Z_STREAM_END { finished = true } else if result != Z_OK { return -1 }
                return source.count - Int(stream.avail_in)
            }
            if consumed < 0 { return nil }
            input.moveReaderIndex(forwardBy: consumed)
            if !finished && consumed == 0 && input.readableBytes == 0 { return nil }
        }
        return output
    }
}
