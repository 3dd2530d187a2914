import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import OnTheMapServer

@Suite("Prometheus metrics")
struct MetricsTests {
    /// A sample line of the text format: name, labels, value (a small reader of the format,
    /// so the test fails on anything a Prometheus scraper would refuse).
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    static func parse(_ text: String) throws -> [Sample] {
        var samples: [Sample] = []
        var typed = Set<String>()
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                #expect(parts.count == 4 && ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3]), "\(line)")
                typed.insert(String(parts[2]))
                continue
            }
            if line.hasPrefix("#") { continue }
            guard let match = line.wholeMatch(of: /([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/) else {
                throw TestFailure("not a sample line: \(line)")
            }
            var labels: [String: String] = [:]
            if let body = match.2 {
                for pair in body.matches(of: /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/) { labels[String(pair.1)] = String(pair.2) }
            }
            let value = String(match.3) == "+Inf" ? Double.infinity : Double(String(match.3))
            guard let value else { throw TestFailure("not a number in: \(line)") }
            let name = String(match.1)
            let family = ["_bucket", "_sum", "_count"].reduce(name) {
                $0.hasSuffix($1) && !typed.contains($0) ? String($0.dropLast($1.count)) : $0
            }
            guard typed.contains(family) else { throw TestFailure("sample before its # TYPE line: \(line)") }
            samples.append(Sample(name: name, labels: labels, value: value))
        }
        return samples
    }

    @Test("a scrape counts requests by family and status, times them, and counts list-cache hits and misses")
    func scrape() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let user = try await client.makeUser()
            try await client.postLocation(user)
            for _ in 0..<3 { _ = try await client.list("?limit=100&order=-updatedAt") }
            try await client.execute(uri: "/parse/classes/StudentLocation/missing", method: .get, headers: parseHeaders) { _ in }
            try await client.execute(uri: "/api/admin/users", method: .get, headers: user.cookieHeaders) { _ in }
            let text = try await client.execute(uri: "/metrics", method: .get) { response throws in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
                return response.text
            }
            let samples = try Self.parse(text)
            func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
                samples.first { sample in sample.name == name && labels.allSatisfy { key, value in sample.labels[key] == value } }?.value
            }
            #expect(value("onthemap_http_requests_total", ["family": "student_locations", "method": "GET", "status": "200"]) == 3)
            #expect(value("onthemap_http_requests_total", ["family": "student_locations", "method": "GET", "status": "404"]) == 1)
            #expect(value("onthemap_http_requests_total", ["family": "student_locations", "method": "POST", "status": "201"]) == 1)
            #expect(value("onthemap_http_requests_total", ["family": "accounts", "method": "POST", "status": "201"]) == 1)
            #expect(value("onthemap_http_requests_total", ["family": "moderation", "method": "GET", "status": "200"]) == 1)
            #expect(value("onthemap_http_requests_total", ["family": "sessions", "method": "POST", "status": "200"]) == 1)
            #expect(value("onthemap_http_request_duration_seconds_count", ["family": "student_locations"]) == 5)
            #expect(value("onthemap_http_request_duration_seconds_bucket", ["family": "student_locations", "le": "+Inf"]) == 5)
            #expect(value("onthemap_list_cache_misses_total") == 1)
            #expect(value("onthemap_list_cache_hits_total") == 2)
            #expect(value("onthemap_album_live_viewers") == 0)
            #expect(value("onthemap_album_photo_downloads_total") == 0)
            // Paths with ids never become labels: no series names an objectId.
            #expect(!text.contains("missing"))
        }
    }

    @Test("reads of a class that is not public are counted as one `private` series, never under the class's slug")
    func privateClasses() async throws {
        // A new server's default class is members-only.
        try await withTestServer { client in
            let user = try await client.makeUser()
            try await client.postLocation(user)
            _ = try await client.list("?limit=10", headers: user.parseHeaders)
            let samples = try await Self.parse(client.execute(uri: "/metrics", method: .get) { $0.text })
            let classes = samples.filter { $0.name == "onthemap_class_requests_total" }
            #expect(classes.map { $0.labels["class"] } == ["private"])
            #expect(classes.first?.value == 2)
        }
    }

    @Test("a public class keeps its slug as its label; members-only and server-wide classes are `private`")
    func classLabels() throws {
        let metrics = ServerMetrics()
        metrics.recordClassRequest(slug: "open-map", visibility: .public)
        metrics.recordClassRequest(slug: "open-map", visibility: .public)
        metrics.recordClassRequest(slug: "secret-club", visibility: .members)
        metrics.recordClassRequest(slug: "staff-room", visibility: .server)
        let text = metrics.scrape()
        let samples = try Self.parse(text).filter { $0.name == "onthemap_class_requests_total" }
        #expect(Dictionary(uniqueKeysWithValues: samples.map { ($0.labels["class"] ?? "", $0.value) }) == ["open-map": 2, "private": 2])
        for slug in ["secret-club", "staff-room"] { #expect(!text.contains(slug)) }
    }

    @Test("with --metrics-token, /metrics needs the bearer token; anything else is 401 in our error format")
    func token() async throws {
        try await withTestServer({ $0.metricsToken = "s3cret-token" }, defaultClass: .public) { client in
            for header in [nil, "Bearer wrong", "Bearer s3cret-token2", "Basic s3cret-token", "Bearer s3cret-toke"] {
                var headers = HTTPFields()
                if let header { headers[.authorization] = header }
                try await client.execute(uri: "/metrics", method: .get, headers: headers) { response throws in
                    #expect(response.status == .unauthorized, "\(header ?? "none")")
                    #expect(response.headers[.wwwAuthenticate] == "Bearer")
                    #expect(try (response.json["error"] as? [String: Any])?["code"] as? String == "unauthorized")
                }
            }
            try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer s3cret-token"]) { response throws in
                #expect(response.status == .ok)
                #expect(response.text.contains("onthemap_http_requests_total"))
            }
        }
    }

    @Test(
        "route families",
        arguments: [
            ("/parse/classes/StudentLocation", "student_locations"), ("/v1/StudentLocation/abc", "student_locations"),
            ("/api/session", "sessions"), ("/v1/session", "sessions"), ("/api/users", "accounts"), ("/api/users/123", "accounts"),
            ("/api/account/password", "accounts"), ("/api/password-reset", "accounts"), ("/api/geocode/suggest", "geocode"),
            ("/api/pins/x/photos", "travel"), ("/api/photos/x/image", "travel"), ("/api/admin/users", "moderation"),
            ("/api/locations/x/report", "moderation"), ("/api/locations/snapshot", "live_map"), ("/api/locations/snapshot/map", "live_map"),
            ("/api/locations/changes", "live_map"), ("/api/locations/placement", "live_map"), ("/api/classes/x/members", "classes"),
            ("/api/auth/providers", "sign_in"), ("/auth/school/start", "sign_in"), ("/lti/login", "lti"), ("/health", "health"),
            ("/metrics", "metrics"), ("/", "web"), ("/js/main.js", "web"), ("/openapi.json", "docs"), ("/api/nothing", "other_api"),
        ])
    func families(path: String, family: String) {
        #expect(RouteFamily.of(path).name == family)
    }
}
