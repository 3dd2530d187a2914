import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import OnTheMapModels
import Storage
import TestDatabases
import Testing

@testable import OnTheMapServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// No query and no connection pattern lets one client starve everyone else.
/// Each bound is lowered in the test so it shows in well under a second or two.
@Suite("bounds")
struct BoundsTests {
    /// The linear-time matcher answers these in about a second; a backtracking one would run for
    /// years, past the time limit. The limit is generous because on PostgreSQL the test's server
    /// first migrates a schema of its own, waiting its turn behind every other suite's.
    @Test("catastrophic regexes answer at once; ones we cannot bound are 400 code 102 before any query", .timeLimit(.minutes(3)))
    func catastrophicRegexes() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let user = try await client.makeUser()
            try await client.postLocation(user, ["mapString": String(repeating: "a", count: 60) + "!"])
            for pattern in ["^(a+)+b?$", "^(a|aa)+$", "(.*.){6}!"] {
                let query = #"{"mapString":{"$regex":"\#(pattern)"}}"#
                let results = try await client.list("?where=" + query.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)[
                    "results"]
                #expect((results as? [Any])?.count == (pattern == "(.*.){6}!" ? 1 : 0))
            }
            for pattern in [#"^(a+)+\\1$"#, "a(?=b)", String(repeating: "a", count: 300)] {
                let query = #"{"mapString":{"$regex":"\#(pattern)"}}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                try await client.execute(uri: "/v1/StudentLocation?where=\(query)", method: .get) { response throws in
                    #expect(response.status == .badRequest)
                    #expect(try response.json["code"] as? Int == 102)
                }
            }
        }
    }

    @Test("a query past the deadline is cancelled and answered Parse's timeout, code 124 (400), not a 500")
    func queryDeadline() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = testConfiguration(dataDirectory: directory)
        configuration.queryTimeout = 0.2
        configuration.cacheListResponses = false
        // Rows no client could post (too long), written straight to the database.
        let seed = try await SQLStore.open(url: configuration.resolvedDatabaseURL, dataDirectory: directory.path, logger: testLogger)
        let long = String(repeating: "a", count: 4_000)
        for index in 0..<60 {
            try await seed.insertLocation(
                StoredLocation(
                    record: StudentInformation(
                        objectId: "seed\(index)", uniqueKey: "k", firstName: "F", lastName: "L", mapString: long,
                        mediaURL: "https://x.example",
                        latitude: 1, longitude: 1, createdAt: "2024-01-01T00:00:00.000Z", updatedAt: "2024-01-01T00:00:00.000Z"
                    ), ownerKey: nil))
        }
        try await seed.close()
        try await setDefaultClass(.public, configuration: configuration)
        let app = try await buildApplication(configuration: configuration, logger: testLogger)
        try await app.test(.router) { client in
            let query = #"{"mapString":{"$regex":"(a*a){40}!"}}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            try await client.execute(uri: "/v1/StudentLocation?where=\(query)", method: .get) { response throws in
                if TestDatabases.postgresServerURL == nil {
                    #expect(response.status == .badRequest)
                    #expect(try response.json["code"] as? Int == 124)
                } else {
                    // PostgreSQL's own engine may finish this one in time; it must not be a 500.
                    let code = try response.json["code"] as? Int
                    #expect(response.status == .ok || code == 124)
                }
            }
            // Ordinary reads go on.
            #expect(try await client.count() == 60)
        }
    }

    @Test("an idle connection is closed after the idle timeout")
    func idleConnectionClosed() async throws {
        try await withLiveServer({ $0.idleTimeout = 0.3 }) { port in
            let socket = try RawSocket(port: port)
            let (_, closed) = await socket.readAsync(until: 5)
            #expect(closed)
        }
    }

    @Test("a request head trickled a byte at a time is cut off at the head deadline")
    func stalledHeadCutOff() async throws {
        try await withLiveServer({ $0.requestHeadTimeout = 0.4 }) { port in
            let socket = try RawSocket(port: port)
            let started = Date()
            var closed = false
            for byte in "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ".utf8 {
                guard socket.send([byte]) else {
                    closed = true
                    break
                }
                if await socket.readAsync(until: 0.1).closed {
                    closed = true
                    break
                }
                if Date().timeIntervalSince(started) > 5 { break }
            }
            #expect(closed)
        }
    }

    @Test("a request body trickled slowly is cut off at the body deadline")
    func stalledBodyCutOff() async throws {
        try await withLiveServer({ $0.requestBodyTimeout = 0.4 }) { port in
            let socket = try RawSocket(port: port)
            _ = socket.send(
                Array("POST /api/users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{".utf8))
            let started = Date()
            var closed = false
            while Date().timeIntervalSince(started) < 5 {
                guard socket.send(Array(" ".utf8)) else {
                    closed = true
                    break
                }
                if await socket.readAsync(until: 0.1).closed {
                    closed = true
                    break
                }
            }
            #expect(closed)
        }
    }

    @Test("past the per-address cap a connection is answered 503 with Retry-After and closed")
    func perAddressCap() async throws {
        try await withLiveServer({ $0.maxConnectionsPerAddress = 2 }) { port in
            // The live test client may hold a connection of its own: open until one is refused.
            let request = Array("GET /v1/StudentLocation?limit=0 HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
            var held: [RawSocket] = []
            var refusal: (text: String, closed: Bool)?
            for _ in 0..<4 {
                let socket = try RawSocket(port: port)
                _ = socket.send(request)
                // Generous: the first answer of a fresh server on a loaded CI machine can take seconds.
                let answer = await socket.readAsync(until: 30, stopAfter: "results")
                if answer.text.hasPrefix("HTTP/1.1 200") {
                    held.append(socket)
                } else {
                    refusal = answer
                    break
                }
            }
            try #require(
                (1...2).contains(held.count), "\(held.count) connections answered before the refusal: \(String(describing: refusal))")
            let (answer, closed) = try #require(refusal)
            #expect(answer.hasPrefix("HTTP/1.1 503"))
            #expect(answer.lowercased().contains("retry-after: 5"))
            #expect(answer.contains(#""code":155"#))
            #expect(closed)
            // A slot freed is a slot usable again (once the server has seen the close).
            held[0].close()
            var reopened = false
            for _ in 0..<20 where !reopened {
                try await Task.sleep(for: .milliseconds(250))
                let again = try RawSocket(port: port)
                _ = again.send(request)
                reopened = await again.readAsync(until: 5, stopAfter: "results").text.hasPrefix("HTTP/1.1 200")
            }
            #expect(reopened)
        }
    }

    @Test("a trusted proxy's connections count only against the total cap, not the per-address one")
    func trustedProxyIsNotCappedPerAddress() throws {
        let limiter = ConnectionLimiter(perAddress: 1, total: 3, uncapped: try TrustedProxies(["10.0.0.0/8"]))
        #expect(limiter.admit("10.1.2.3"))
        #expect(limiter.admit("10.1.2.3"), "a proxy carries many clients")
        #expect(limiter.admit("192.0.2.7"))
        #expect(!limiter.admit("192.0.2.7"), "anyone else is held to the per-address cap")
        #expect(!limiter.admit("10.1.2.3"), "the total cap holds for the proxy too")
        limiter.release("10.1.2.3")
        #expect(limiter.admit("10.1.2.3"))
    }

    @Test("a login flood past the hashing queue is answered 503 at once, in the Udacity format")
    func loginFloodBounded() async throws {
        try await withTestServer({
            $0.bcryptCost = 10
            $0.passwordHashingThreads = 1
            $0.passwordHashingQueue = 0
        }) { client in
            let user = try await client.makeUser()
            let statuses = try await withThrowingTaskGroup(of: (HTTPResponse.Status, Bool).self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await client.execute(
                            uri: "/api/session", method: .post,
                            body: jsonBody(["udacity": ["username": user.email, "password": user.password]])
                        ) { response throws in
                            if response.status == .serviceUnavailable {
                                let body = try response.udacityJSON
                                return (response.status, body["status"] as? Int == 503 && response.headers[.retryAfter] != nil)
                            }
                            return (response.status, response.status == .ok)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0.1 })
            #expect(statuses.contains { $0.0 == .ok })
            #expect(statuses.contains { $0.0 == .serviceUnavailable })
        }
    }
}
