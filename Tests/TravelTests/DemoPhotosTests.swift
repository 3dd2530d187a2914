import Foundation
import HummingbirdTesting
import Testing

@testable import OnTheMapServer
@testable import PhotoAlbums

@Suite("Travel in the demo, offline")
struct DemoPhotosTests {
    @Test("--demo with no photo service fills albums with OnTheMap's own pictures, and new collections differ")
    func demoAlbumsNeedNoNetwork() async throws {
        // The stub is not used: the demo must not touch the network at all.
        try await withTravelServer(
            provider: .wikimedia,
            { configuration in
                configuration.demo = true
                configuration.wikimediaAPIURL = Configuration().wikimediaAPIURL
                configuration.flickrAPIKey = nil
            }
        ) { context in
            let user = try await context.client.signUp()
            let pinID = try #require(try await context.client.dropPin(user).string("id"))
            let album = try await context.client.settledAlbum(user, pinID)
            #expect(album.photos.count == 21)
            #expect(album.photos.allSatisfy { $0.string("state") == "ready" && $0.string("provider") == "generated" })
            #expect(album.albumStatus["status"] as? String == "complete")
            let first = try #require(album.photos.first)
            #expect(first.string("author") == "OnTheMap")
            #expect(first.string("license")?.hasPrefix("CC0") == true)
            #expect(first.string("title")?.contains("near 48.86,2.29") == true)
            let files = await storedPhotos(in: context.dataDirectory)
            #expect(files.count == 21 && files.allSatisfy { $0.hasSuffix(".png") })
            var contents = Set<Data>()
            for file in files { contents.insert(try #require(await storedPhotoData(context.dataDirectory, "photos/" + file))) }
            #expect(contents.count == 21, "every picture differs")
            #expect(context.stub.searches.isEmpty)

            let before = Set(album.photos.compactMap { $0.string("remoteId") })
            _ = try await context.client.execute(uri: "/api/pins/\(pinID)/collection", method: .post, headers: user.headers) { response in
                #expect(response.status == .ok)
            }
            let next = try await context.client.settledAlbum(user, pinID)
            #expect(next.photos.count == 21)
            #expect(before.isDisjoint(with: Set(next.photos.compactMap { $0.string("remoteId") })))
        }
    }

    @Test("a generated picture is a whole, valid PNG, the same for the same seed")
    func pictureIsValidPNG() throws {
        let png = GeneratedPicture.png(seed: 42)
        #expect(ImageFormat.sniff(png) == .png)
        #expect(ImageFormat.png.isComplete(png))
        #expect(png == GeneratedPicture.png(seed: 42))
        #expect(png != GeneratedPicture.png(seed: 43))
        // IHDR: 240 x 180, 8-bit palette.
        #expect(Array(png[16..<26]) == [0, 0, 0, 240, 0, 0, 0, 180, 8, 3])
        // Every chunk's CRC is right, and the zlib stream's Adler-32 too.
        var offset = 8
        var types: [String] = []
        while offset < png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let typed = png[offset + 4..<offset + 8 + length]
            let crc = png[offset + 8 + length..<offset + 12 + length].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            #expect(GeneratedPicture.crc32(Data(typed)) == crc)
            types.append(String(decoding: typed.prefix(4), as: UTF8.self))
            offset += 12 + length
        }
        #expect(types == ["IHDR", "PLTE", "IDAT", "IEND"])
        #expect(GeneratedPicture.png(for: URL(string: "https://example.com/1.png")!) == nil)
    }
}
