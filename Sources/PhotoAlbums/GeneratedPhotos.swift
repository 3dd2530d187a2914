import Foundation

/// Travel photos that need no network: landscapes drawn by OnTheMap itself, different for each
/// place and page. `serve --demo` uses them unless a photo service is configured, so a
/// newcomer on an offline machine sees albums fill, photos removed and new collections.
/// They are the project's own work, dedicated to the public domain (CC0), and credited so.
public struct GeneratedPhotoProvider: PhotoProvider {
    /// Image URLs use this scheme; `ImageDownloader` draws them instead of fetching.
    public static let scheme = "onthemap-generated"

    public let name = "generated"
    public let displayName = "OnTheMap's demo pictures"

    public init() {}

    public func pageLimit(perPage: Int) -> Int { 50 }

    public func search(_ search: PhotoSearch) async throws -> PhotoPage {
        let pages = pageLimit(perPage: search.perPage)
        guard (1...pages).contains(search.page) else {
            return PhotoPage(page: search.page, pages: pages, total: pages * search.perPage, photos: [])
        }
        // About 1 km cells: pins dropped on the same spot get the same album.
        let place = String(format: "%.2f,%.2f", search.latitude, search.longitude)
        let photos = (0..<search.perPage).map { index -> RemotePhoto in
            let seed = GeneratedPicture.seed("\(place)/\(search.page)/\(index)")
            let hex = String(seed, radix: 16)
            return RemotePhoto(
                remoteID: "generated-\(hex)",
                imageURL: URL(string: "\(Self.scheme):///\(hex).png")!,
                title: "\(GeneratedPicture.title(seed)) near \(place)",
                author: "OnTheMap",
                license: "CC0 1.0 (drawn by OnTheMap for the demo)"
            )
        }
        return PhotoPage(page: search.page, pages: pages, total: pages * search.perPage, photos: photos)
    }
}

/// A small landscape (sky, sun or moon, three ranges of hills, sometimes water) as a PNG,
/// fully determined by a seed. 8-bit palette, uncompressed: about 40 KB.
enum GeneratedPicture {
    static let width = 240
    static let height = 180

    /// The picture a generated image URL names, or nil for any other URL.
    static func png(for url: URL) -> Data? {
        guard url.scheme == GeneratedPhotoProvider.scheme else { return nil }
        let name = url.deletingPathExtension().lastPathComponent
        guard let seed = UInt64(name, radix: 16) else { return nil }
        return png(seed: seed)
    }

    /// FNV-1a: stable across runs and platforms, unlike `Hasher`.
    static func seed(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    static func title(_ seed: UInt64) -> String {
        let times = ["Dawn", "Morning", "Noon", "Afternoon", "Dusk", "Night"]
        let scenes = ["hills", "valley", "ridge", "lake", "meadow", "plateau"]
        return "\(times[Int(seed % 6)]) over the \(scenes[Int(seed / 6 % 6)])"
    }

    static func png(seed: UInt64) -> Data {
        var random = SplitMix(seed)
        let time = Int(seed % 6)
        let night = time == 5
        // Palette: 0..<64 sky gradient, 64..<67 hills far to near, 67 sun, 68 water.
        let skyTop = [(255, 183, 120), (110, 170, 235), (70, 140, 230), (120, 175, 230), (250, 140, 90), (10, 20, 60)][time]
        let skyLow = [(255, 225, 180), (200, 230, 250), (170, 215, 250), (215, 230, 245), (255, 205, 150), (40, 50, 100)][time]
        var palette: [(Int, Int, Int)] = (0..<64).map { step in
            let t = Double(step) / 63
            func mix(_ a: Int, _ b: Int) -> Int { Int(Double(a) + (Double(b) - Double(a)) * t) }
            return (mix(skyTop.0, skyLow.0), mix(skyTop.1, skyLow.1), mix(skyTop.2, skyLow.2))
        }
        let hue = Double(random.next() % 100) / 100
        for layer in 0..<3 {
            let light = night ? 30 + layer * 10 : 150 - layer * 40
            palette.append((Int(Double(light) * (0.5 + hue * 0.3)), light, Int(Double(light) * (0.6 - hue * 0.3))))
        }
        palette.append(night ? (235, 235, 210) : (255, 240, 170))
        palette.append(night ? (20, 40, 80) : (60, 120, 180))

        let sunX = Double(random.next() % UInt64(width))
        let sunY = Double(20 + random.next() % 50)
        let sunRadius = Double(10 + random.next() % 12)
        let water = random.next() % 3 == 0 ? height - 30 : height
        let ridges = (0..<3).map { layer -> (base: Double, waves: [(Double, Double, Double)]) in
            let base = Double(height) * (0.45 + 0.13 * Double(layer))
            let waves = (0..<3).map { _ in
                (
                    Double(8 + random.next() % 20) / Double(layer + 1),
                    Double(1 + random.next() % 5) * .pi / Double(width),
                    Double(random.next() % 628) / 100
                )
            }
            return (base, waves)
        }

        var pixels = [UInt8](repeating: 0, count: height * (width + 1))
        for y in 0..<height {
            let row = y * (width + 1)
            pixels[row] = 0  // PNG filter: none
            for x in 0..<width {
                var index = UInt8(min(63, y * 64 / max(1, water)))
                let dx = Double(x) - sunX
                let dy = Double(y) - sunY
                if dx * dx + dy * dy < sunRadius * sunRadius { index = 67 }
                for (layer, ridge) in ridges.enumerated() {
                    let top = ridge.waves.reduce(ridge.base) { $0 + $1.0 * sin(Double(x) * $1.1 + $1.2) }
                    if Double(y) >= top { index = UInt8(64 + layer) }
                }
                if y >= water { index = 68 }
                pixels[row + 1 + x] = index
            }
        }

        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header.append(contentsOf: [8, 3, 0, 0, 0])  // 8-bit, palette, deflate, no filter, no interlace
        png.appendChunk("IHDR", header)
        png.appendChunk("PLTE", Data(palette.flatMap { [UInt8($0.0), UInt8($0.1), UInt8($0.2)] }))
        png.appendChunk("IDAT", zlibStored(pixels))
        png.appendChunk("IEND", Data())
        return png
    }

    /// A zlib stream of stored (uncompressed) deflate blocks: valid for every decoder, and
    /// the pictures are small enough not to need compression.
    static func zlibStored(_ bytes: [UInt8]) -> Data {
        var out = Data([0x78, 0x01])
        var offset = 0
        repeat {
            let count = min(65_535, bytes.count - offset)
            let final: UInt8 = offset + count == bytes.count ? 1 : 0
            out.append(final)
            out.append(contentsOf: [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)])
            out.append(contentsOf: bytes[offset..<(offset + count)])
            offset += count
        } while offset < bytes.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        out.appendBigEndian(b << 16 | a)
        return out
    }

    static let crcTable: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    static func crc32(_ data: Data) -> UInt32 {
        ~data.reduce(~UInt32(0)) { crcTable[Int(($0 ^ UInt32($1)) & 0xFF)] ^ ($0 >> 8) }
    }
}

/// SplitMix64: a tiny, well-known generator; the same seed draws the same numbers everywhere
/// (the same picture here, the same demo data in the server's `DemoSeeder`).
public struct SplitMix: RandomNumberGenerator {
    private var state: UInt64
    public init(_ seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Data {
    fileprivate mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }

    fileprivate mutating func appendChunk(_ type: String, _ body: Data) {
        appendBigEndian(UInt32(body.count))
        let typed = Data(type.utf8) + body
        append(typed)
        appendBigEndian(GeneratedPicture.crc32(typed))
    }
}
