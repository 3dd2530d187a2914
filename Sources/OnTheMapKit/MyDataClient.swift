import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The signed-in account's own data: download everything the server holds about it, or
/// delete the account and all of it.
public final class MyDataClient: Sendable {
    public let configuration: OnTheMapConfiguration
    public let sessionStore: SessionStore
    let transport: HTTPTransport

    public init(configuration: OnTheMapConfiguration = .local, sessionStore: SessionStore, urlSession: URLSession? = nil) {
        self.configuration = configuration
        self.sessionStore = sessionStore
        self.transport = HTTPTransport(configuration: configuration, urlSession: urlSession, callbackQueue: nil)
    }

    private func url(_ path: String) throws(OnTheMapError) -> URL {
        try configuration.signedInServiceURL(path, feature: "your data", sessionStore: sessionStore)
    }

    /// One JSON document: the account, its classes, its locations (also as GeoJSON), Travel
    /// pins and photos, sign-in links, reports made, moderators' notices. The bytes as sent.
    public func download() async throws(OnTheMapError) -> Data {
        let request = transport.request(try url("account/data"), headers: sessionStore.authenticationHeaders)
        return try await transport.send(request, dialect: .service).get().body
    }

    /// The same as a zip a person can read: a short page (`index.html`, in the account's
    /// language) with the account, its classes and roles, where it is on each map and its
    /// Travel pins with their photos, the photos as image files, and the JSON and GeoJSON for
    /// programs. The bytes as sent.
    public func downloadArchive() async throws(OnTheMapError) -> Data {
        let request = transport.request(try url("account/data.zip"), headers: sessionStore.authenticationHeaders)
        return try await transport.send(request, dialect: .service).get().body
    }

    /// Changes the account's first and last name; every post of theirs in every class shows it
    /// at once. The names as the server keeps them (trimmed); a name outside sign-up's rules
    /// fails with the server's `invalid_name`.
    public func rename(firstName: String, lastName: String) async throws(OnTheMapError) -> NameChangeRequest {
        let request = transport.request(
            try url("account/name"), method: "PUT", json: JSONBody.encode(NameChangeRequest(firstName: firstName, lastName: lastName)),
            headers: sessionStore.authenticationHeaders)
        return try await transport.send(request, dialect: .service).flatMap {
            JSONBody.decode(NameChangeRequest.self, from: $0.body, what: "name")
        }.get()
    }

    /// Deletes the account and everything naming it. `password` confirms it (nil for an account
    /// without one, which must have signed in within the last ten minutes). The session ends.
    public func deleteAccount(password: String?) async throws(OnTheMapError) {
        var body: [String: String] = [:]
        body["password"] = password
        let request = transport.request(
            try url("account/delete"), method: "POST", json: JSONBody.encode(body),
            headers: sessionStore.authenticationHeaders)
        _ = try await transport.send(request, dialect: .service).get()
        sessionStore.session = nil
    }
}
