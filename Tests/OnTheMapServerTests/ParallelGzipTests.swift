import Foundation
import NIOCore
import Testing

@testable import OnTheMapServer

@Suite("gzip on every core")
struct ParallelGzipTests {
    /// JSON-like text that compresses as a snapshot does, with a seeded mix of values.
    func body(bytes: Int) -> ByteBuffer {
        var state: UInt64 = 42
        var buffer = ByteBuffer()
        while buffer.readableBytes < bytes {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            buffer.writeString(#""name \#(state >> 40)","https://example.com/\#(state % 9973)",\#(Double(state % 180_000) / 1000 - 90),"#)
        }
        return buffer.getSlice(at: 0, length: bytes)!
    }

    @Test(
        "in one piece or many, the output is one gzip member that inflates, CRC and length checked, to the input", arguments: [1, 2, 3, 7])
    func roundTrip(pieces: Int) throws {
        let input = body(bytes: 5 * ParallelGzip.pieceFrom + 12_345)
        let compressed = try #require(ParallelGzip.compress(input, level: 1, pieces: pieces))
        #expect(compressed.getBytes(at: 0, length: 3) == [0x1F, 0x8B, 8])
        let inflated = try #require(Gzip.decompress(compressed))
        #expect(inflated == input)
        // Primed with the text before it, each piece compresses as well as one stream would, near enough.
        let single = try #require(ParallelGzip.compress(input, level: 1, pieces: 1))
        #expect(Double(compressed.readableBytes) < Double(single.readableBytes) * 1.01)
    }

    @Test("an empty body and one below a piece are gzip too")
    func small() throws {
        for input in [ByteBuffer(), ByteBuffer(string: "{\"count\":0}")] {
            let compressed = try #require(ParallelGzip.compress(input, level: 1, pieces: 4))
            #expect(try #require(Gzip.decompress(compressed)) == input)
        }
    }
}
