import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Storage
import Synchronization
import Testing

@testable import OnTheMapServer

/// A course platform's side of a roster sync, on a real socket: a token endpoint and
/// membership pages whose `next` links and redirects the test chooses. Every request that
/// reaches it is noted with its `Authorization` header.
final class StubRosterPlatform: Sendable {
    static let token = "roster-token-\(UUID().uuidString)"

    struct Member: Sendable {
        var subject: String
        var name: String?
        var givenName: String?
        var familyName: String?
    }

    struct State: Sendable {
        /// Pages by path: their members and the `next` link they send.
        var pages: [String: (members: [Member], next: String?)] = [:]
        /// Paths answered with a 302 to this address.
        var redirects: [String: String] = [:]
        var requests: [(path: String, authorization: String?)] = []
    }

    let state = Mutex(State())

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("token") { request, _ -> Response in
            self.note(request)
            return Self.json(["access_token": Self.token, "token_type": "Bearer"])
        }
        router.get("**") { request, _ -> Response in
            self.note(request)
            let path = request.uri.path
            let (page, redirect) = self.state.withLock { ($0.pages[path], $0.redirects[path]) }
            if let redirect { return Response(status: .found, headers: [.location: redirect]) }
            guard let page else { return Response(status: .notFound) }
            var headers: HTTPFields = [.contentType: LTIRosterSync.mediaType]
            if let next = page.next { headers[HTTPField.Name("Link")!] = "<\(next)>; rel=\"next\"" }
            let members: [[String: Any]] = page.members.map { member in
                var fields: [String: Any] = ["user_id": member.subject, "status": "Active", "roles": ["Learner"]]
                fields["name"] = member.name
                fields["given_name"] = member.givenName
                fields["family_name"] = member.familyName
                return fields
            }
            let body = try JSONSerialization.data(withJSONObject: ["id": "x", "members": members])
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: body)))
        }
        return router
    }

    private func note(_ request: Request) {
        state.withLock { $0.requests.append((request.uri.path, request.headers[.authorization])) }
    }

    /// Requests that carried the roster token.
    var tokenRequests: [String] {
        state.withLock { $0.requests.filter { $0.authorization == "Bearer \(Self.token)" }.map(\.path) }
    }

    static func json(_ object: Any) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(data: try! JSONSerialization.data(withJSONObject: object))))
    }
}

@Suite("LTI: the course roster's sync", .serialized)
struct LTIRosterSyncTests {
    static let teacher = "1000000001"
    static let student = "1000000002"

    /// Two stub platforms on real sockets (the course's, and another origin that must never
    /// see the token) and a store holding a course class whose student launched from the
    /// course; `body` gets a sync, the class's id, the platform and both stubs' origins.
    func withCourse(
        _ body:
            @Sendable (
                LTIRosterSync, String, LTIPlatform, (stub: StubRosterPlatform, origin: String),
                (stub: StubRosterPlatform, origin: String)
            ) async throws -> Void
    ) async throws {
        let platformStub = StubRosterPlatform()
        let foreignStub = StubRosterPlatform()
        let platformApp = Application(router: platformStub.router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        let foreignApp = Application(router: foreignStub.router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await platformApp.test(.live) { platformClient in
            try await foreignApp.test(.live) { foreignClient in
                let origin = "http://127.0.0.1:\(platformClient.port!)"
                let foreignOrigin = "http://127.0.0.1:\(foreignClient.port!)"
                // The foreign origin answers any page with a roster that would drop the student.
                foreignStub.state.withLock {
                    $0.pages["/members"] = ([.init(subject: "s-teacher", name: "Ada")], nil)
                }
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-roster-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: directory) }
                let configuration = testConfiguration(dataDirectory: directory)
                let store = try await SQLStore.open(
                    url: configuration.resolvedDatabaseURL, dataDirectory: configuration.dataDirectory, logger: testLogger)
                do {
                    let now = Date()
                    let platform = LTIPlatform(
                        id: "p1", issuer: origin, clientID: "client-1", name: "LMS", authURL: "\(origin)/auth",
                        tokenURL: "\(origin)/token", jwksURL: "\(origin)/jwks", trustEmail: false,
                        deploymentIDs: ["d1"], createdAt: now)
                    try await store.addPlatform(platform)
                    for key in [Self.teacher, Self.student] {
                        try await store.createAccount(
                            Account(
                                key: key, email: "\(key)@example.com", passwordHash: "h", firstName: "F",
                                lastName: "L", createdAt: now))
                    }
                    let course = MapClass(id: "id-course", slug: "course", name: "Course", inviteCode: "code-course", createdAt: now)
                    try await store.createClass(course, teacherKey: Self.teacher, now: now)
                    try await store.join(classId: course.id, accountKey: Self.student, now: now)
                    try await store.recordLaunch(
                        classID: course.id, platformID: platform.id,
                        entry: LTIRosterEntry(subject: "s-student", name: "Bea", roles: ["Learner"]), accountKey: Self.student)
                    let sync = LTIRosterSync(
                        store: store, keys: LTIToolKeys(store: store, clock: .system), http: URLSessionSignInClient(),
                        writes: LocationWrites(store: store, cache: nil, live: nil), clock: .system)
                    try await body(sync, course.id, platform, (platformStub, origin), (foreignStub, foreignOrigin))
                } catch {
                    try? await store.close()
                    throw error
                }
                try await store.close()
            }
        }
    }

    /// The student who launched is still in the class, and still on its course roster.
    func expectStudentKept(_ sync: LTIRosterSync, classID: String) async throws {
        #expect(try await sync.store.role(classId: classID, accountKey: Self.student) == .student)
        #expect(try await sync.store.roster(classID: classID).lines.map(\.entry.subject) == ["s-student"])
    }

    @Test("a next link to another origin stops the sync before the token goes there; the pages read remove nobody")
    func foreignNextLink() async throws {
        try await withCourse { sync, classID, platform, course, foreign in
            course.stub.state.withLock {
                $0.pages["/members"] = ([.init(subject: "s-teacher", name: "Ada")], "\(foreign.origin)/members")
            }
            await #expect(throws: LTIRosterSync.Failure.self) {
                _ = try await sync.sync(classID: classID, platform: platform, membershipsURL: "\(course.origin)/members")
            }
            #expect(foreign.stub.state.withLock { $0.requests.isEmpty }, "the other origin was asked: \(foreign.stub.tokenRequests)")
            #expect(course.stub.tokenRequests == ["/members"])
            try await expectStudentKept(sync, classID: classID)
        }
    }

    @Test("a redirect to another origin is not followed with the token; the sync stops and removes nobody")
    func foreignRedirect() async throws {
        try await withCourse { sync, classID, platform, course, foreign in
            course.stub.state.withLock { $0.redirects["/members"] = "\(foreign.origin)/members" }
            await #expect(throws: LTIRosterSync.Failure.self) {
                _ = try await sync.sync(classID: classID, platform: platform, membershipsURL: "\(course.origin)/members")
            }
            #expect(foreign.stub.tokenRequests.isEmpty, "the token followed the redirect")
            #expect(foreign.stub.state.withLock { $0.requests.isEmpty })
            try await expectStudentKept(sync, classID: classID)
        }
    }

    @Test("next links and redirects on the memberships URL's origin are followed; a complete roster removes who left")
    func sameOrigin() async throws {
        try await withCourse { sync, classID, platform, course, _ in
            course.stub.state.withLock {
                $0.redirects["/members"] = "\(course.origin)/members/1"
                $0.pages["/members/1"] = ([.init(subject: "s-teacher", name: "Ada")], "\(course.origin)/members/2")
                $0.pages["/members/2"] = ([.init(subject: "s-new", name: "Dee")], nil)
            }
            let count = try await sync.sync(classID: classID, platform: platform, membershipsURL: "\(course.origin)/members")
            #expect(count == 2)
            #expect(course.stub.tokenRequests == ["/members", "/members/1", "/members/2"])
            let role = try await sync.store.role(classId: classID, accountKey: Self.student)
            #expect(role == nil, "the student left the course")
            let roster = try await sync.store.roster(classID: classID)
            #expect(roster.lines.map(\.entry.subject) == ["s-teacher", "s-new"])
        }
    }

    @Test("course members' names lose what an account's name refuses: control and bidirectional formatting characters")
    func names() async throws {
        try await withCourse { sync, classID, platform, course, _ in
            course.stub.state.withLock {
                $0.pages["/members"] = (
                    [
                        .init(subject: "s1", name: "Ada \u{202E}ecalevoL"),
                        .init(subject: "s2", name: "Bea\u{0007}", givenName: "Bea", familyName: "\u{2066}Smith"),
                        .init(subject: "s3", name: "\u{202D}", givenName: "Cy\nRoot"),
                        .init(subject: "s4", name: "  Dee Jones  "),
                        .init(subject: "s5", name: "مريم"),
                    ], nil
                )
            }
            _ = try await sync.sync(classID: classID, platform: platform, membershipsURL: "\(course.origin)/members")
            let names = Dictionary(
                uniqueKeysWithValues: try await sync.store.roster(classID: classID).lines.map { ($0.entry.subject, $0.entry.name) })
            #expect(names == ["s1": "Course member", "s2": "Bea", "s3": "Course member", "s4": "Dee Jones", "s5": "مريم"])
            for name in names.values { #expect(TextRules.isDisplaySafe(name), "\(name.unicodeScalars.map(\.value))") }
        }
    }

    @Test("a launch's own name for the roster is cleaned the same way")
    func launchName() {
        #expect(LTILaunchClaims.memberName(name: "\u{202E}nimda", givenName: "Ada", familyName: "Lovelace") == "Ada Lovelace")
        #expect(LTILaunchClaims.memberName(name: nil, givenName: "\u{0000}", familyName: nil) == "Course member")
    }

    @Test(
        "the token goes only to https, or http on a loopback host; the scheme's own port is the same origin",
        arguments: [
            ("https://LMS.example.edu/api/members", "https://lms.example.edu"),
            ("https://lms.example.edu:443/x", "https://lms.example.edu"),
            ("https://lms.example.edu:8443/x", "https://lms.example.edu:8443"), ("http://127.0.0.1:8080/x", "http://127.0.0.1:8080"),
            ("http://localhost/x", "http://localhost"), ("http://lms.example.edu/x", nil), ("ftp://lms.example.edu/x", nil),
            ("/members?page=2", nil),
        ] as [(String, String?)])
    func fetchableOrigins(url: String, origin: String?) throws {
        #expect(LTIRosterSync.fetchableOrigin(try #require(URL(string: url))) == origin)
    }

    @Test("the outbound client follows a redirect elsewhere only for a request without credentials")
    func outboundRedirects() async throws {
        try await withCourse { _, _, _, course, foreign in
            course.stub.state.withLock { $0.redirects["/moved"] = "\(foreign.origin)/members" }
            let client = URLSessionSignInClient()
            let credentialed = try await client.send(
                SignInHTTPRequest(
                    url: URL(string: "\(course.origin)/moved")!,
                    headers: ["Authorization": "Bearer \(StubRosterPlatform.token)"]))
            #expect(credentialed.status == 302)
            #expect(credentialed.headers["location"] == "\(foreign.origin)/members")
            #expect(foreign.stub.state.withLock { $0.requests.isEmpty })
            let plain = try await client.send(SignInHTTPRequest(url: URL(string: "\(course.origin)/moved")!))
            #expect(plain.status == 200)
            #expect(foreign.stub.state.withLock { $0.requests.map(\.path) } == ["/members"])
        }
    }
}

@Suite("LTI: login initiation reads the platform's form")
struct LTILoginFormTests {
    static let issuer = "https://lms.example.edu"

    /// A server on `https://map.example.org` with one registered platform.
    func withPlatform(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-lti-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = testConfiguration(dataDirectory: directory)
        configuration.publicURL = "https://map.example.org"
        let store = try await SQLStore.open(
            url: configuration.resolvedDatabaseURL, dataDirectory: configuration.dataDirectory, logger: testLogger)
        try await store.addPlatform(
            LTIPlatform(
                id: "p1", issuer: Self.issuer, clientID: "client-1", name: "LMS", authURL: "\(Self.issuer)/auth",
                tokenURL: "\(Self.issuer)/token",
                jwksURL: "\(Self.issuer)/jwks", trustEmail: false, deploymentIDs: ["d1"], createdAt: Date()))
        try await store.close()
        let app = try await buildApplication(configuration: configuration, logger: testLogger)
        try await app.test(.router) { client in try await body(client) }
    }

    /// The fields a login answer sends the browser on to the platform with.
    static func forwarded(_ response: TestResponse) throws -> [String: String] {
        #expect(response.status == .found, "\(response.text)")
        let target = try #require(response.headers[.location])
        let location = try #require(URLComponents(string: target))
        #expect(location.path == "/auth")
        return Dictionary((location.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    static let encoded =
        "iss=https%3A%2F%2Flms.example.edu&client_id=client-1&target_link_uri=https%3A%2F%2Fmap.example.org%2Flti%2Flaunch"
        + "&login_hint=user+one%2B1&lti_message_hint=resource+link%2B42%20%C3%A9t%C3%A9+%25"

    @Test("a form body: + is a space, percent-escapes are bytes of UTF-8; the hints go back as sent")
    func postedForm() async throws {
        try await withPlatform { client in
            let fields = try await client.execute(
                uri: "/lti/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: Self.encoded)
            ) { try Self.forwarded($0) }
            #expect(fields["login_hint"] == "user one+1")
            #expect(fields["lti_message_hint"] == "resource link+42 été %")
        }
    }

    @Test(
        "a body that is not strict form encoding (raw spaces, quotes, non-ASCII, a stray %) is read as browsers read it, never bringing the server down"
    )
    func looseForm() async throws {
        try await withPlatform { client in
            let body =
                "iss=https://lms.example.edu&client_id=client-1&target_link_uri=https://map.example.org/lti/launch"
                + "&login_hint=a b \"<q>\" caf\u{E9} 100%&lti_message_hint=%zz{|}"
            let fields = try await client.execute(
                uri: "/lti/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: body)
            ) { try Self.forwarded($0) }
            #expect(fields["login_hint"] == "a b \"<q>\" caf\u{E9} 100%")
            #expect(fields["lti_message_hint"] == "%zz{|}")
        }
    }

    @Test("a login by GET reads its query the same way")
    func queryForm() async throws {
        try await withPlatform { client in
            let fields = try await client.execute(uri: "/lti/login?" + Self.encoded, method: .get) { try Self.forwarded($0) }
            #expect(fields["login_hint"] == "user one+1")
            #expect(fields["lti_message_hint"] == "resource link+42 été %")
        }
    }

    @Test(
        "form decoding",
        arguments: [
            ("a=1&b=x+y", [("a", "1"), ("b", "x y")]), ("a=%2B%26%3D&=v&k", [("a", "+&="), ("", "v"), ("k", "")]),
            ("a=%zz%4&b=%e2%82%ac", [("a", "%zz%4"), ("b", "€")]), ("a=%FF", [("a", "\u{FFFD}")]), ("&&a+b=c+d&", [("a b", "c d")]),
            ("raw=caf\u{E9} \"x\"", [("raw", "caf\u{E9} \"x\"")]), ("", []),
        ] as [(String, [(String, String)])])
    func decoding(text: String, fields: [(String, String)]) {
        let decoded = FormEncoding.decode(text)
        #expect(decoded.map(\.0) == fields.map(\.0))
        #expect(decoded.map(\.1) == fields.map(\.1))
    }
}
