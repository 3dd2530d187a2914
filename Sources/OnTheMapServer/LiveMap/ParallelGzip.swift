import COnTheMapZlib
import Dispatch
import NIOCore

/// gzip of a large body on every core, as one ordinary gzip member any reader inflates: the
/// body is cut into pieces, each piece deflated on its own (raw deflate, primed with the 32 KB
/// before it, ended at a byte boundary by a sync flush; the last one finished), the pieces
/// written one after another between the gzip header and a trailer whose CRC-32 is the
/// pieces' CRCs combined (`crc32_combine`).
enum ParallelGzip {
    /// The smallest piece: below it, one core's deflate is quicker than the bookkeeping.
    static let pieceFrom = 4 << 20
    /// deflate's window: the bytes before a piece that prime its dictionary.
    static let window = 32 << 10

    /// nil when zlib fails (out of memory).
    static func compress(_ input: ByteBuffer, level: Int32, pieces requested: Int = System.coreCount) -> ByteBuffer? {
        let length = input.readableBytes
        let count = max(1, min(requested, length / pieceFrom))
        let size = (length + count - 1) / max(count, 1)
        return input.withUnsafeReadableBytes { bytes -> ByteBuffer? in
            var results = [(body: [UInt8], crc: UInt, length: Int)?](repeating: nil, count: count)
            results.withUnsafeMutableBufferPointer { out in
                // Each worker writes its own element and only reads `bytes`, which stay put
                // until `concurrentPerform` returns.
                nonisolated(unsafe) let out = out
                nonisolated(unsafe) let bytes = bytes
                DispatchQueue.concurrentPerform(iterations: count) { index in
                    let start = min(length, index * size)
                    let end = min(length, start + size)
                    out[index] = deflatePiece(bytes, start..<end, last: index == count - 1, level: level)
                }
            }
            var output = ByteBufferAllocator().buffer(capacity: 18 + results.reduce(0) { $0 + ($1?.body.count ?? 0) })
            // ID1 ID2, deflate, no flags, no time, no extra flags, OS unknown.
            output.writeBytes([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF])
            var crc = crc32(0, nil, 0)
            for result in results {
                guard let result else { return nil }
                output.writeBytes(result.body)
                crc = crc32_combine(crc, result.crc, off_t(result.length))
            }
            output.writeInteger(UInt32(truncatingIfNeeded: crc), endianness: .little)
            output.writeInteger(UInt32(truncatingIfNeeded: length), endianness: .little)
            return output
        }
    }

    private static func deflatePiece(
        _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, last: Bool, level: Int32
    ) -> (body: [UInt8], crc: UInt, length: Int)? {
        var stream = z_stream()
        // -15: a raw deflate stream with a 32 KB window, no zlib or gzip wrapper of its own.
        guard
            deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        if range.lowerBound > 0 {
            let primer = max(0, range.lowerBound - window)
            guard deflateSetDictionary(&stream, base + primer, UInt32(range.lowerBound - primer)) == Z_OK else { return nil }
        }
        var body = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(range.count))) + 16)
        let written = body.withUnsafeMutableBufferPointer { out -> Int? in
            stream.next_in = UnsafeMutablePointer(mutating: base + range.lowerBound)
            stream.avail_in = UInt32(range.count)
            stream.next_out = out.baseAddress
            stream.avail_out = UInt32(out.count)
            let result = deflate(&stream, last ? Z_FINISH : Z_SYNC_FLUSH)
            guard result == (last ? Z_STREAM_END : Z_OK), stream.avail_in == 0 else { return nil }
            return out.count - Int(stream.avail_out)
        }
        guard let written else { return nil }
        body.removeSubrange(written...)
        let crc = crc32(0, base + range.lowerBound, UInt32(range.count))
        return (body, crc, range.count)
    }
}
