import Foundation

/// Small, valid images made from scratch, different for every seed.
enum GeneratedImages {
    /// An 8x8 grey baseline JPEG with the seed in a comment segment.
    static func jpeg(seed: String) -> Data {
        var bytes: [UInt8] = [0xFF, 0xD8]
        let comment = Array("onthemap stub image \(seed)".utf8)
        bytes += [0xFF, 0xFE] + be16(comment.count + 2) + comment
        bytes += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
        bytes += [0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x08, 0x00, 0x08, 0x01, 0x01, 0x11, 0x00]
        // One-symbol Huffman tables: DC category 0, AC end-of-block, each coded as "0".
        let table: [UInt8] = [1] + [UInt8](repeating: 0, count: 15) + [0x00]
        bytes += [0xFF, 0xC4, 0x00, 0x14, 0x00] + table
        bytes += [0xFF, 0xC4, 0x00, 0x14, 0x10] + table
        bytes += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]
        bytes += [0x3F]  // "0" (DC diff 0) + "0" (EOB), padded with ones
        bytes += [0xFF, 0xD9]
        return Data(bytes)
    }

    /// A 4x4 RGB PNG whose colour comes from the seed.
    static func png(seed: String) -> Data {
        let hash = seed.utf8.reduce(UInt32(2_166_136_261)) { ($0 ^ UInt32($1)) &* 16_777_619 }
        let pixel: [UInt8] = [UInt8(hash & 0xFF), UInt8((hash >> 8) & 0xFF), UInt8((hash >> 16) & 0xFF)]
        let width = 4
        let height = 4
        var raw: [UInt8] = []
        for _ in 0..<height { raw += [0] + (0..<width).flatMap { _ in pixel } }
        var zlib: [UInt8] = [0x78, 0x01, 0x01] + le16(raw.count) + le16(~raw.count & 0xFFFF) + raw
        zlib += be32(adler32(raw))
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, 2, 0, 0, 0])
        bytes += chunk("IDAT", zlib)
        bytes += chunk("IEND", [])
        return Data(bytes)
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return be32(UInt32(data.count)) + typed + be32(crc32(typed))
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
        }
        return ~crc
    }

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return (b << 16) | a
    }

    private static func be16(_ value: Int) -> [UInt8] { [UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }
    private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
    private static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (24 - 8 * $0)) & 0xFF) } }
}
