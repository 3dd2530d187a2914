import Foundation
import Testing

@testable import PhotoAlbums

@Suite("Photo providers")
struct PhotoProviderTests {
    @Test("Flickr search against the stub: pages, total as string or number, errors")
    func flickr() async throws {
        try await PhotoStub.run { stub in
            let fetcher = HTTPFetcher()
            defer { fetcher.shutdown() }
            let flickr = FlickrProvider(apiKey: "k", baseURL: URL(string: stub.flickrURL)!, fetcher: fetcher, timeout: 15)
            let page = try await flickr.search(PhotoSearch(latitude: 1, longitude: 2, perPage: 21, page: 5))
            #expect(page.page == 5 && page.pages == 5 && page.total == 105 && page.photos.count == 21)
            #expect(page.photos.first?.imageURL.absoluteString == "\(stub.baseURL)/img/f5-0.jpg")
            #expect(flickr.pageLimit(perPage: 21) == 190)
            stub.update {
                $0.totalAsNumber = true
                $0.flickrTotal = 30
            }
            let second = try await flickr.search(PhotoSearch(latitude: 1, longitude: 2, perPage: 21, page: 2))
            #expect(second.total == 30 && second.photos.count == 9)

            let failures: [(PhotoStub.SearchFailure, PhotoProviderError)] = [
                (.statFail, .rejected(provider: "Flickr", code: "100", message: "Invalid API Key (Key has invalid format)")),
                (.rateLimited, .rateLimited(provider: "Flickr", retryAfter: 120)),
                (.serverError, .unavailable(provider: "Flickr", reason: "it answered HTTP 500")),
                (.garbage, .badResponse(provider: "Flickr", reason: "not the JSON of flickr.photos.search")),
            ]
            for (failure, expected) in failures {
                stub.update { $0.searchFailure = failure }
                await #expect(throws: expected) { try await flickr.search(PhotoSearch(latitude: 1, longitude: 2, perPage: 21, page: 1)) }
            }
            let refused = FlickrProvider(apiKey: "k", baseURL: URL(string: "http://127.0.0.1:1/")!, fetcher: fetcher, timeout: 2)
            await #expect(throws: PhotoProviderError.unavailable(provider: "Flickr", reason: "connection refused")) {
                try await refused.search(PhotoSearch(latitude: 1, longitude: 2, perPage: 21, page: 1))
            }
        }
    }

    @Test("Flickr decoding: callback wrapper, photos without url_m, old string fields")
    func flickrDecoding() throws {
        let body = """
            jsonFlickrApi({"photos":{"page":"1","pages":"3","perpage":2,"total":"506551","photo":[
              {"id":"1","owner":"o@N1","title":"","url_m":"https:\\/\\/live.staticflickr.com\\/1\\/1_a.jpg","height_m":"334","width_m":"500"},
              {"id":"2","owner":"o@N2","title":"No medium size"}]},"stat":"ok"})
            """
        let page = try FlickrProvider.decode(Data(body.utf8), requestedPage: 1, provider: "Flickr")
        #expect(page.pages == 3 && page.total == 506551)
        #expect(page.photos.map(\.remoteID) == ["1"])
        #expect(page.photos.first?.title == "Untitled")
        #expect(page.photos.first?.author == "o@N1")
        let empty = try FlickrProvider.decode(
            Data(#"{"photos":{"page":1,"pages":0,"perpage":100,"total":"0","photo":[]},"stat":"ok"}"#.utf8), requestedPage: 1,
            provider: "Flickr")
        #expect(empty.photos.isEmpty && empty.pages == 0)
    }

    @Test("Wikimedia geosearch against the stub: slices of one window, only images")
    func wikimedia() async throws {
        try await PhotoStub.run { stub in
            let fetcher = HTTPFetcher()
            defer { fetcher.shutdown() }
            let commons = WikimediaProvider(baseURL: URL(string: stub.wikimediaURL)!, fetcher: fetcher, timeout: 15)
            let third = try await commons.search(PhotoSearch(latitude: 1, longitude: 2, perPage: 21, page: 3))
            #expect(third.total == 45 && third.pages == 3 && third.photos.count == 3)
            #expect(third.photos.map(\.remoteID) == ["1042", "1043", "1044"])
            #expect(commons.pageLimit(perPage: 21) == 3)
            let query = try #require(stub.searches.last)
            #expect(query["ggscoord"] == "1.000000|2.000000" && query["ggslimit"] == "50" && query["iiurlwidth"] == "500")
            stub.update { $0.wikimediaTotal = 0 }
            #expect(try await commons.search(PhotoSearch(latitude: 1, longitude: 2, perPage: 21, page: 1)).photos.isEmpty)
            stub.update { $0.searchFailure = .statFail }
            await #expect(throws: PhotoProviderError.self) {
                try await commons.search(PhotoSearch(latitude: 1, longitude: 2, perPage: 21, page: 1))
            }
        }
    }

    @Test("Wikimedia decoding: formatversion=2 arrays, plain-text credits")
    func wikimediaDecoding() throws {
        let body = """
            {"query":{"pages":[{"pageid":7,"ns":6,"title":"File:Pont_Neuf.JPG","imageinfo":[{"url":"https://upload.wikimedia.org/a.jpg",
              "descriptionurl":"https://commons.wikimedia.org/wiki/File:Pont_Neuf.JPG","user":"Uploader"}]},
              {"pageid":8,"ns":6,"title":"File:Map.pdf","imageinfo":[{"url":"https://upload.wikimedia.org/m.pdf"}]}]}}
            """
        let photos = try WikimediaProvider.decode(Data(body.utf8), provider: "Wikimedia Commons")
        #expect(photos.map(\.title) == ["Pont Neuf"])
        #expect(photos.first?.author == "Uploader")
        #expect(WikimediaProvider.plainText("<span class=\"x\"><a href=\"y\">Jane &amp; John</a>\n Doe</span>") == "Jane & John Doe")
    }

    @Test("The downloader keeps to its concurrency bound and checks images", .timeLimit(.minutes(1)))
    func downloader() async throws {
        try await PhotoStub.run { stub in
            // Images are held until the test lets them go, so the bound is reached however slowly
            // a loaded machine sends the requests (a 100 ms delay did not always get 3 at once).
            stub.update {
                $0.imageDelay = .seconds(60)
                $0.truncated = ["cut"]
            }
            let fetcher = HTTPFetcher()
            defer { fetcher.shutdown() }
            // A generous deadline: the test is about the bound and the checks, not speed.
            let downloader = ImageDownloader(fetcher: fetcher, concurrency: 3, timeout: 30, retryDelay: .milliseconds(10))
            try await withThrowingTaskGroup(of: ImageFormat?.self) { group in
                for index in 0..<12 {
                    group.addTask { try await downloader.download(URL(string: "\(stub.baseURL)/img/p\(index).png")!)?.format }
                }
                while stub.imagesInFlight < 3 { try await Task.sleep(for: .milliseconds(10)) }
                stub.update { $0.imageDelay = .zero }
                for try await format in group { #expect(format == .png) }
            }
            #expect(stub.maxImagesInFlight == 3)
            #expect(stub.imageRequests.filter { $0.hasPrefix("p") }.count == 12)
            await #expect(throws: ImageDownloadError.truncated(.jpeg)) {
                try await downloader.download(URL(string: "\(stub.baseURL)/img/cut.jpg")!)
            }
            #expect(try await downloader.download(URL(string: "\(stub.baseURL)/img/skip.jpg")!) { false } == nil)
            #expect(!stub.imageRequests.contains("skip"))
        }
        #expect(ImageFormat.sniff(Data("<html>".utf8)) == nil)
        #expect(ImageFormat.jpeg.isComplete(GeneratedImages.jpeg(seed: "a")))
        #expect(ImageFormat.png.isComplete(GeneratedImages.png(seed: "a")))
        #expect(!ImageFormat.png.isComplete(GeneratedImages.png(seed: "a").dropLast(3)))
    }

    @Test("a download cancelled while its answer is under way ends at once, and so do many cancelled as their answers arrive")
    func cancelledDownloads() async throws {
        try await PhotoStub.run { stub in
            stub.update { $0.imageDelay = .seconds(3600) }
            let fetcher = HTTPFetcher()
            defer { fetcher.shutdown() }
            let held = Task { try await fetcher.get(URL(string: "\(stub.baseURL)/img/held.png")!, timeout: 3600) }
            while stub.imagesInFlight < 1 { try await Task.sleep(for: .milliseconds(10)) }
            held.cancel()
            await #expect(throws: CancellationError.self) { try await held.value }
            // Cancelled just as their answers come in: the race that hung a graceful stop for
            // good when URLSession's own cancellation waited on its queue. Each ends either way.
            stub.update { $0.imageDelay = .zero }
            for round in 0..<40 {
                let task = Task { try await fetcher.get(URL(string: "\(stub.baseURL)/img/r\(round).png")!, timeout: 60) }
                while stub.imageRequests.count < round + 2 { try await Task.sleep(for: .milliseconds(1)) }
                task.cancel()
                _ = await task.result
            }
        }
    }
}
