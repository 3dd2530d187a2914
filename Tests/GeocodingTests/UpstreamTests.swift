import Foundation
import Testing

@testable import Geocoding

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private let nominatimSearch = """
    [{"place_id":1,"lat":"37.4224","lon":"-122.0842","category":"building","type":"yes","addresstype":"building",
      "name":"Googleplex","display_name":"Googleplex, 1600, Amphitheatre Parkway, Mountain View, California, 94043, United States",
      "boundingbox":["37.4216","37.4232","-122.0856","-122.0828"],
      "address":{"city":"Mountain View","state":"California","country":"United States","country_code":"us"}}]
    """

private func fakeTransport(status: Int = 200, body: String, delay: Double = 0) -> UpstreamGeocoder.Transport {
    { request in
        if delay > 0 { try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) }
        let response = HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: nil, headerFields: nil)!
        return (Data(body.utf8), response)
    }
}

private final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var urls: [URL] = []
    func add(_ url: URL) {
        lock.lock()
        urls.append(url)
        lock.unlock()
    }
    var all: [URL] {
        lock.lock()
        defer { lock.unlock() }
        return urls
    }
}

@Suite("Upstream and fallback")
struct UpstreamTests {
    let base = URL(string: "http://nominatim.invalid/")!

    @Test func parsesNominatimSearch() async throws {
        let recorder = Recorder()
        let upstream = UpstreamGeocoder(
            baseURL: base,
            transport: { request in
                recorder.add(request.url!)
                return try await fakeTransport(body: nominatimSearch)(request)
            })
        let results = try await upstream.geocode("1600 Amphitheatre Parkway, Mountain View", limit: 3)
        let r = try #require(results.first)
        #expect(abs(r.latitude - 37.4224) < 1e-6 && abs(r.longitude + 122.0842) < 1e-6)
        #expect(r.countryCode == "US" && r.region == "California" && r.kind == .city)
        #expect(r.span.latitudeDelta > 0)
        let url = try #require(recorder.all.first)
        #expect(url.path == "/search")
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(items.contains(URLQueryItem(name: "format", value: "jsonv2")))
        #expect(items.contains(URLQueryItem(name: "limit", value: "3")))
        #expect(items.contains(URLQueryItem(name: "q", value: "1600 Amphitheatre Parkway, Mountain View")))
    }

    /// A transport that never answers: only the geocoder's own deadline ends the call (were it
    /// broken, the time limit would fail the test instead of a wall-clock comparison).
    @Test(.timeLimit(.minutes(1))) func httpErrorsAndTimeoutsThrow() async {
        let failing = UpstreamGeocoder(baseURL: base, transport: fakeTransport(status: 503, body: "busy"))
        await #expect(throws: GeocodingError.self) { try await failing.geocode("x", limit: 1) }
        let silent = UpstreamGeocoder(baseURL: base, timeout: 0.2, transport: fakeTransport(body: "[]", delay: 86_400))
        let error = await #expect(throws: GeocodingError.self) { try await silent.geocode("x", limit: 1) }
        #expect("\(error.map { String(describing: $0) } ?? "")".contains("timed out"))
    }

    @Test func fallbackKeepsConfidentOfflineAnswers() async throws {
        let recorder = Recorder()
        let upstream = UpstreamGeocoder(
            baseURL: base,
            transport: { request in
                recorder.add(request.url!)
                return try await fakeTransport(body: nominatimSearch)(request)
            })
        let geocoder = FallbackGeocoder(primary: Fixture.gazetteer, upstream: upstream)
        let r = try await geocoder.geocode("Cambridge, MA", limit: 1)
        #expect(km(r.first, 42.3736, -71.1097) < 25)
        #expect(recorder.all.isEmpty)
    }

    @Test func fallbackAsksUpstreamForAddresses() async throws {
        let upstream = UpstreamGeocoder(baseURL: base, transport: fakeTransport(body: nominatimSearch))
        let geocoder = FallbackGeocoder(primary: Fixture.gazetteer, upstream: upstream)
        let r = try await geocoder.geocode("1600 Amphitheatre Parkway, Mountain View, CA", limit: 1)
        #expect(r.first?.name.hasPrefix("Googleplex") == true)
    }

    @Test func upstreamFailureNeverBreaksTheOfflineAnswer() async throws {
        // Nothing listens on port 9 of localhost: connection refused.
        let refused = UpstreamGeocoder(baseURL: URL(string: "http://127.0.0.1:9/")!, timeout: 1)
        let geocoder = FallbackGeocoder(primary: Fixture.gazetteer, upstream: refused)
        let r = try await geocoder.geocode("1600 Amphitheatre Parkway, Mountain View, CA", limit: 1)
        #expect(km(r.first, 37.3861, -122.0839) < 25)
        let slow = FallbackGeocoder(
            primary: Fixture.gazetteer,
            upstream: UpstreamGeocoder(baseURL: base, timeout: 0.2, transport: fakeTransport(body: "[]", delay: 5)))
        #expect(try await slow.geocode("Springfield, Ilinois", limit: 1).first != nil)
        #expect(try await slow.geocode("asdfghjkl", limit: 1).isEmpty)
    }
}
