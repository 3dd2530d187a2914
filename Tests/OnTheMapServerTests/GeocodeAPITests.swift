import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("Geocode API")
struct GeocodeAPITests {
    @Test("a place name answers results best first with coordinates, kind and span")
    func geocode() async throws {
        try await withTestServer { client in
            try await client.execute(uri: "/api/geocode?q=Cambridge,%20MA", method: .get) { response throws in
                #expect(response.status == .ok)
                let results = try #require(try response.json["results"] as? [[String: Any]])
                let first = try #require(results.first)
                #expect((first["name"] as? String)?.hasPrefix("Cambridge, Massachusetts") == true)
                #expect(abs((first["latitude"] as? Double ?? 0) - 42.37) < 0.1)
                #expect(abs((first["longitude"] as? Double ?? 0) + 71.11) < 0.1)
                #expect(first["kind"] as? String == "city")
                #expect(first["country"] as? String == "United States")
                #expect(first["region"] as? String == "Massachusetts")
                let span = try #require(first["span"] as? [String: Any])
                #expect((span["latitudeDelta"] as? Double ?? 0) > 0)
                #expect(results.count <= 5)
            }
            try await client.execute(uri: "/api/geocode?q=Costa%20Rica&limit=1", method: .get) { response throws in
                let results = try #require(try response.json["results"] as? [[String: Any]])
                #expect(results.count == 1)
                #expect(results.first?["kind"] as? String == "country")
            }
            try await client.execute(uri: "/api/geocode?q=xqzvkwpt", method: .get) { response throws in
                #expect(response.status == .ok)
                #expect(response.text == #"{"results":[]}"#)
            }
        }
    }

    @Test("suggest and reverse")
    func suggestAndReverse() async throws {
        try await withTestServer { client in
            try await client.execute(uri: "/api/geocode/suggest?q=Mount", method: .get) { response throws in
                let results = try #require(try response.json["results"] as? [[String: Any]])
                #expect(!results.isEmpty)
                #expect(results.allSatisfy { ($0["name"] as? String)?.lowercased().hasPrefix("mount") == true })
            }
            try await client.execute(uri: "/api/geocode/reverse?lat=48.8566&lon=2.3522", method: .get) { response throws in
                let results = try #require(try response.json["results"] as? [[String: Any]])
                #expect((results.first?["name"] as? String)?.hasPrefix("Paris") == true)
            }
        }
    }

    @Test(
        "bad queries get our error format",
        arguments: [
            ("/api/geocode", "missing_query"),
            ("/api/geocode?q=%20%20", "missing_query"),
            ("/api/geocode?q=\(String(repeating: "a", count: 201))", "query_too_long"),
            ("/api/geocode?q=Paris&limit=0", "invalid_limit"),
            ("/api/geocode?q=Paris&limit=many", "invalid_limit"),
            ("/api/geocode/reverse?lat=91&lon=0", "invalid_coordinates"),
            ("/api/geocode/reverse?lat=10", "invalid_coordinates"),
        ])
    func badQueries(uri: String, code: String) async throws {
        try await withTestServer { client in
            try await client.execute(uri: uri, method: .get) { response throws in
                #expect(response.status == .badRequest)
                #expect((try response.json["error"] as? [String: Any])?["code"] as? String == code)
            }
        }
    }

    @Test("each client is rate limited: over the burst answers 429 with Retry-After")
    func rateLimit() async throws {
        // One token a minute: a loaded machine cannot refill the bucket between requests.
        try await withTestServer({
            $0.geocodeBurst = 3
            $0.geocodeRatePerSecond = 1.0 / 60
        }) { client in
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<5 {
                try await client.execute(uri: "/api/geocode?q=Paris", method: .get) { response throws in
                    statuses.append(response.status)
                    if response.status == .tooManyRequests {
                        #expect(response.headers[.retryAfter] != nil)
                        #expect((try response.json["error"] as? [String: Any])?["code"] as? String == "rate_limited")
                    }
                }
            }
            #expect(statuses == [.ok, .ok, .ok, .tooManyRequests, .tooManyRequests])
        }
    }
}
