import Foundation
import OnTheMapKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a healthy server never does, served by `StubServer`.
@Suite("SDK against a misbehaving server")
struct StubServerTests {
    @Test func serverErrorCarriesItsMessage() async throws {
        let server = try StubServer { _ in .json(500, #"{"code":1,"error":"Internal server error."}"#) }
        let client = StudentLocationClient(configuration: configuration(server.baseURL))
        let error = await failure { try await client.page() }
        #expect(error == .serverFailure(status: 500, message: "Internal server error."))
        #expect(error?.kind == .server)
        #expect(error?.errorDescription == "The server failed (HTTP 500): Internal server error. Try again later.")
    }

    @Test func htmlErrorPageGivesNoMessage() async throws {
        let server = try StubServer { _ in
            .respond(
                status: 502, body: Data("<html><body>Bad gateway</body></html>".utf8),
                headers: [("Content-Type", "text/html")])
        }
        let client = StudentLocationClient(configuration: configuration(server.baseURL))
        #expect(await failure { try await client.page() } == .serverFailure(status: 502, message: nil))
    }

    @Test func truncatedJSONIsUnreadable() async throws {
        let server = try StubServer { _ in .json(200, #"{"results":[{"objectId":"abc","lati"#) }
        let client = StudentLocationClient(configuration: configuration(server.baseURL))
        let error = await failure { try await client.page() }
        guard case .unreadableResponse = error else {
            Issue.record("expected unreadableResponse, got \(String(describing: error))")
            return
        }
        #expect(error?.kind == .server)
    }

    @Test func connectionCutMidBodyIsAnError() async throws {
        let server = try StubServer { _ in
            .truncated(status: 200, declaredLength: 5_000, body: Data(#"{"results":[{"objectId":"#.utf8))
        }
        let client = StudentLocationClient(configuration: configuration(server.baseURL))
        let error = await failure { try await client.page() }
        // Depending on the platform's URL loading this surfaces as a lost connection or as an
        // unreadable body; never as a success or a crash.
        switch error {
        case .noConnection, .unreadableResponse: break
        default: Issue.record("unexpected \(String(describing: error))")
        }
    }

    @Test func connectionRefused() async throws {
        let port = try StubServer.refusedPort()
        let client = StudentLocationClient(configuration: configuration(URL(string: "http://127.0.0.1:\(port)")!))
        let error = await failure { try await client.page() }
        guard case .noConnection(let detail) = error else {
            Issue.record("expected noConnection, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("refused"))
        #expect(error?.kind == .network)
        #expect(error?.isTransient == true)
    }

    @Test func silenceTimesOut() async throws {
        let server = try StubServer { _ in .silence }
        defer { server.stop() }
        let client = StudentLocationClient(configuration: configuration(server.baseURL, timeout: 1))
        #expect(await failure { try await client.page() } == .timedOut)
    }

    @Test func bodyShorterThanThePrefix() async throws {
        let server = try StubServer { request in
            request.method == "POST" ? .json(200, "ab") : .json(403, "xy")
        }
        let client = UdacityClient(configuration: configuration(server.baseURL))
        let loginError = await failure { try await client.login(email: "a@b.c", password: "pw") }
        guard case .unreadableResponse = loginError else {
            Issue.record("expected unreadableResponse, got \(String(describing: loginError))")
            return
        }
        // A 403 with a tiny body still means "wrong password".
        let userError = await failure { try await client.userData(accountKey: "1") }
        guard case .unauthorized = userError else {
            Issue.record("expected unauthorized, got \(String(describing: userError))")
            return
        }
        #expect(client.session == nil)
    }

    @Test func pageWithOneMalformedRecord() async throws {
        let stringLongitude = #""7.5""#
        let records = [
            studentJSON("good1"), #"{"objectId":"bad","firstName":"No","lastName":"Coordinates"}"#,
            studentJSON("good2", latitude: "12", longitude: stringLongitude), #""not an object""#,
        ]
        let body = #"{"results":["# + records.joined(separator: ",") + "]}"
        let server = try StubServer { _ in .json(200, body) }
        let client = StudentLocationClient(configuration: configuration(server.baseURL))
        let page = try await client.page(limit: 4)
        #expect(page.students.map(\.objectId) == ["good1", "good2"])
        #expect(page.skippedCount == 2)
        #expect(page.recordCount == 4)
        #expect(page.nextSkip == 4)
        #expect(page.isLastPage == false)
        #expect(page.students[1].latitude == 12)
        #expect(page.students[1].longitude == 7.5)
    }

    @Test func resultsMissingIsUnreadable() async throws {
        let server = try StubServer { _ in .json(200, #"{"items":[]}"#) }
        let client = StudentLocationClient(configuration: configuration(server.baseURL))
        #expect(
            await failure { try await client.page() }
                == .unreadableResponse(detail: "student list without \"results\""))
    }

    @Test func loginSendsTheUdacityBodyAndStripsThePrefix() async throws {
        let server = try StubServer { request in
            guard request.path == "/api/session" else { return .json(404, "{}") }
            let udacity = request.json?["udacity"] as? [String: Any]
            guard udacity?["username"] as? String == "ada@example.com",
                udacity?["password"] as? String == #"p"w\d"#
            else {
                return .json(403, prefix + #"{"status":403,"error":"Account not found or invalid credentials."}"#)
            }
            return .json(
                200,
                prefix + """
                    {"account":{"registered":true,"key":"3903878747"},\
                    "session":{"id":"1457628510Sc18f2ad4cd3fb317fb8e028488694088","expiration":"2015-05-10T16:48:30.760460Z"}}
                    """,
                headers: [
                    ("Set-Cookie", "XSRF-TOKEN=tok123; Path=/"),
                    ("Set-Cookie", "onthemap_session=1457628510Sc18f2ad4cd3fb317fb8e028488694088; Path=/; HttpOnly"),
                ])
        }
        let client = UdacityClient(configuration: configuration(server.baseURL))
        let session = try await client.login(email: "ada@example.com", password: #"p"w\d"#)
        #expect(session.accountKey == "3903878747")
        #expect(session.sessionID == "1457628510Sc18f2ad4cd3fb317fb8e028488694088")
        #expect(session.xsrfToken == "tok123")
        let expiration = try #require(session.expiration?.timeIntervalSince1970)
        #expect(abs(expiration - 1431276510.760) < 0.001)
        #expect(client.session == session)

        let error = await failure { try await client.login(email: "ada@example.com", password: "wrong") }
        #expect(error == .badCredentials(message: "Account not found or invalid credentials."))
        #expect(error?.errorDescription == "Wrong email or password.")
        #expect(error?.kind == .authentication)
    }

    @Test func logoutSendsTheXSRFTokenAndForgetsTheSession() async throws {
        let server = try StubServer { request in
            .json(200, prefix + #"{"session":{"id":"x","expiration":"2030-01-01T00:00:00.000Z"}}"#)
        }
        let store = SessionStore(UdacitySession(accountKey: "k", sessionID: "sid", expiration: nil, xsrfToken: "tok"))
        let client = UdacityClient(configuration: configuration(server.baseURL), sessionStore: store)
        try await client.logout()
        #expect(store.session == nil)
        let request = try #require(server.requests.first)
        #expect(request.method == "DELETE")
        #expect(request.path == "/api/session")
        #expect(request.headers["x-xsrf-token"] == "tok")
        #expect(request.headers["cookie"]?.contains("onthemap_session=sid") == true)
    }

    @Test func userDataInBothShapes() async throws {
        let server = try StubServer { request in
            if request.path.hasSuffix("/wrapped") {
                return .json(200, prefix + #"{"user":{"first_name":"Ada","last_name":"Lovelace","key":"wrapped"}}"#)
            }
            return .json(
                200, prefix + #"{"first_name":"Heber","last_name":"Schowalter","key":"665092666","nickname":"Heber S","_badges":[]}"#)
        }
        let client = UdacityClient(configuration: configuration(server.baseURL))
        #expect(
            try await client.userData(accountKey: "665092666")
                == UdacityUser(key: "665092666", firstName: "Heber", lastName: "Schowalter", nickname: "Heber S"))
        #expect(try await client.userData(accountKey: "wrapped").fullName == "Ada Lovelace")
    }

    @Test func parseRejectionKeepsCodeAndMessage() async throws {
        let server = try StubServer { _ in .json(404, #"{"code":101,"error":"Object not found."}"#) }
        let client = StudentLocationClient(configuration: configuration(server.baseURL))
        let input = StudentLocationInput(
            uniqueKey: "k", firstName: "A", lastName: "B", mapString: "P",
            mediaURL: "https://x", latitude: 1, longitude: 2)
        let error = await failure { try await client.update(objectId: "nope123456", with: input) }
        #expect(error == .rejected(status: 404, code: 101, message: "Object not found."))
        #expect(error?.errorDescription == "The server rejected the request: Object not found. (code 101)")
        #expect(error?.kind == .request)
    }

    @Test func writesSendParseHeadersAndTheSession() async throws {
        let server = try StubServer { request in
            request.method == "POST"
                ? .json(201, #"{"createdAt":"2024-05-01T10:00:00.000Z","objectId":"AbCdE12345"}"#)
                : .json(200, #"{"updatedAt":"2024-05-01T11:00:00.000Z"}"#)
        }
        let store = SessionStore(UdacitySession(accountKey: "k1", sessionID: "S1", expiration: nil))
        let client = StudentLocationClient(configuration: configuration(server.baseURL), sessionStore: store)
        let input = StudentLocationInput(
            uniqueKey: "k1", firstName: "A", lastName: "B", mapString: "Paris",
            mediaURL: "https://x", latitude: 48.8, longitude: 2.3)
        let created = try await client.post(input)
        #expect(created.objectId == "AbCdE12345")
        let updated = try await client.update(objectId: created.objectId, with: input)
        #expect(updated.updatedAt == "2024-05-01T11:00:00.000Z")

        let requests = server.requests
        #expect(requests.map(\.method) == ["POST", "PUT"])
        #expect(requests.map(\.path) == ["/parse/classes/StudentLocation", "/parse/classes/StudentLocation/AbCdE12345"])
        for request in requests {
            #expect(request.headers["x-parse-application-id"] == ParseCredentials.applicationID)
            #expect(request.headers["x-parse-rest-api-key"] == ParseCredentials.restAPIKey)
            #expect(request.headers["x-parse-session-token"] == "S1")
            #expect(request.headers["content-type"] == "application/json")
            #expect(request.json?["mapString"] as? String == "Paris")
        }
        // Invalid input never leaves the device.
        #expect(
            await failure { try await client.delete(objectId: "../etc") }
                == .invalidInput("\"../etc\" is not a valid objectId."))
        #expect(server.requests.count == 2)
    }

    @Test func postingAFoundPlaceSendsItsNameAndNoLink() async throws {
        let server = try StubServer { _ in .json(201, #"{"createdAt":"2024-05-01T10:00:00.000Z","objectId":"AbCdE12345"}"#) }
        let store = SessionStore(UdacitySession(accountKey: "k1", sessionID: "S1", expiration: nil))
        let client = StudentLocationClient(configuration: configuration(server.baseURL), sessionStore: store)
        let found = GeocodedPlace(name: "São Paulo", latitude: -23.547, longitude: -46.636, country: "Brazil", region: "São Paulo")
        _ = try await client.post(StudentLocationInput(uniqueKey: "k1", firstName: "A", lastName: "B", place: found))
        let sent = try #require(server.requests.first?.json)
        #expect(sent["mapString"] as? String == "São Paulo, Brazil")
        #expect(sent["mediaURL"] as? String == "")
        #expect(sent["latitude"] as? Double == -23.547)
        #expect(sent["longitude"] as? Double == -46.636)
    }

    @Test func queriesForPagesAndOneUser() async throws {
        let server = try StubServer { request in
            .json(200, #"{"results":[\#(studentJSON("a1", uniqueKey: "me+1")),\#(studentJSON("b1", uniqueKey: "other"))],"count":2}"#)
        }
        let parse = StudentLocationClient(configuration: configuration(server.baseURL))
        _ = try await parse.page(limit: 50, skip: 100, includeCount: true)
        let mine = try await parse.locations(uniqueKey: "me+1")
        #expect(mine.map(\.objectId) == ["a1"])  // filtered again on the client

        let v1 = StudentLocationClient(configuration: configuration(server.baseURL, api: .v1))
        _ = try await v1.locations(uniqueKey: "me+1")

        let requests = server.requests
        #expect(requests[0].query == ["limit": "50", "skip": "100", "order": "-updatedAt", "count": "1"])
        #expect(requests[1].query["where"] == #"{"uniqueKey":"me+1"}"#)
        #expect(requests[2].path == "/v1/StudentLocation")
        #expect(requests[2].query["uniqueKey"] == "me+1")
        #expect(requests[2].headers["x-parse-application-id"] == nil)
    }

    @Test func geocodingUnavailableAnd404() async throws {
        let server = try StubServer { request in
            request.query["q"] == "Paris"
                ? .json(
                    200,
                    #"{"results":[{"name":"Paris","latitude":48.8566,"longitude":2.3522,"kind":"city","country":"France","region":"Île-de-France","span":{"latitudeDelta":0.2,"longitudeDelta":0.3}},{"name":"broken"}]}"#
                )
                : .respond(status: 404, body: Data())
        }
        let client = StudentLocationClient(configuration: configuration(server.baseURL))
        let places = try await client.geocode("Paris")
        #expect(places.count == 1)
        #expect(places.first?.displayName == "Paris, Île-de-France, France")
        #expect(places.first?.span == GeocodedPlace.Span(latitudeDelta: 0.2, longitudeDelta: 0.3))
        #expect(
            GeocodedPlace(
                name: "San Francisco, California, United States", latitude: 37.7, longitude: -122.4,
                country: "United States", region: "California"
            ).displayName
                == "San Francisco, California, United States")
        let error = await failure { try await client.geocode("Atlantis") }
        #expect(error == .unavailable(feature: "geocoding"))
        #expect(error?.errorDescription == "Geocoding is unavailable on this server.")
    }

    @Test func completionHandlersRunOnTheCallbackQueue() async throws {
        let server = try StubServer { _ in .json(200, #"{"results":[\#(studentJSON("x1"))]}"#) }
        let queue = DispatchQueue(label: "callbacks")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let client = StudentLocationClient(configuration: configuration(server.baseURL), callbackQueue: queue)
        let (ids, onQueue) = await withCheckedContinuation { continuation in
            client.page { result in
                continuation.resume(
                    returning: (
                        (try? result.get())?.students.map(\.objectId),
                        DispatchQueue.getSpecific(key: key) == true
                    ))
            }
        }
        #expect(ids == ["x1"])
        #expect(onQueue)

        let refused = StudentLocationClient(
            configuration: configuration(URL(string: "http://127.0.0.1:\(try StubServer.refusedPort())")!))
        let error: OnTheMapError? = await withCheckedContinuation { continuation in
            refused.allPages { result in
                if case .failure(let error) = result { continuation.resume(returning: error) } else { continuation.resume(returning: nil) }
            }
        }
        #expect(error?.kind == .network)
    }

    @Test func cancellingAnAsyncCallCancelsTheRequest() async throws {
        let server = try StubServer { _ in .silence }
        defer { server.stop() }
        let client = StudentLocationClient(configuration: configuration(server.baseURL, timeout: 30))
        let task = Task { await failure { try await client.page() } }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        #expect(await task.value == .cancelled)
    }

    @Test func callsCancelledAsTheirAnswersArriveEachEnd() async throws {
        // The race that hung a process for good when the request was cancelled inside the
        // runtime's cancellation handler: each call ends, cancelled or answered.
        let server = try StubServer { _ in .json(200, #"{"results":[]}"#) }
        defer { server.stop() }
        let client = StudentLocationClient(configuration: configuration(server.baseURL, timeout: 30))
        for round in 0..<40 {
            let task = Task { await failure { try await client.page() } }
            while server.requests.count < round + 1 { try await Task.sleep(for: .milliseconds(1)) }
            task.cancel()
            let ended = await task.value
            #expect(ended == nil || ended == .cancelled)
        }
    }
}
