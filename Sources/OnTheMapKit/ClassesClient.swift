import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A class as the server lists it: one private map of the server, at `/c/<slug>`.
public struct ClassInfo: Sendable, Hashable, Decodable {
    public let slug: String
    public let name: String
    /// `members`, `server` or `public`: who may read its map.
    public let visibility: String
    /// `invite`, `open` or `closed`: how an account joins.
    public let join: String
    /// Your role there (`teacher`, `moderator`, `student`), nil when you are not a member.
    public let role: String?
}

/// The classes of a signed-in account: `GET /api/classes`.
public struct ClassList: Sendable, Hashable, Decodable {
    public let classes: [ClassInfo]
    /// Open classes you could join.
    public let joinable: [ClassInfo]
    /// The class the server's own base URL serves.
    public let defaultClass: String
    public let canCreate: Bool

    enum CodingKeys: String, CodingKey {
        case classes, joinable
        case defaultClass = "default_class"
        case canCreate = "can_create"
    }
}

extension OnTheMapConfiguration {
    /// Talks to the class `classSlug` of the OnTheMap server at `server`: the same as
    /// `init(server: server/c/<slug>)`, which every client of the server may use instead.
    public init(
        server: URL = OnTheMapConfiguration.defaultServer, classSlug: String,
        studentLocationAPI: StudentLocationAPI = .parse, timeout: TimeInterval = 20
    ) {
        self.init(
            server: server.appendingPathComponent("c").appendingPathComponent(classSlug),
            studentLocationAPI: studentLocationAPI, timeout: timeout)
    }
}

/// The classes the signed-in account belongs to, on an OnTheMap server.
public final class ClassesClient: Sendable {
    public let configuration: OnTheMapConfiguration
    public let sessionStore: SessionStore
    let transport: HTTPTransport

    public init(configuration: OnTheMapConfiguration = .local, sessionStore: SessionStore, urlSession: URLSession? = nil) {
        self.configuration = configuration
        self.sessionStore = sessionStore
        self.transport = HTTPTransport(configuration: configuration, urlSession: urlSession, callbackQueue: nil)
    }

    /// My classes, the open ones I could join, and whether I may create one.
    public func classes() async throws(OnTheMapError) -> ClassList {
        let url = try configuration.signedInServiceURL("classes", feature: "classes", sessionStore: sessionStore)
        let request = transport.request(url, headers: sessionStore.authenticationHeaders)
        return try await transport.send(request, dialect: .service).flatMap {
            JSONBody.decode(ClassList.self, from: $0.body, what: "class list")
        }.get()
    }
}
