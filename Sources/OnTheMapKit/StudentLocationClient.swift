import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Something that serves pages of students, most recently updated first. `StudentStore`
/// loads through it; `StudentLocationClient` is the real one, tests can pass their own.
public protocol StudentPageSource: Sendable {
    func studentPage(limit: Int, skip: Int) async throws(OnTheMapError) -> StudentPage
}

/// The StudentLocation API (Parse REST or Udacity v1): list, page through, find one user's
/// records, create, update, delete; plus the server's geocoder. Every call has a
/// completion-handler form and an `async` twin.
public final class StudentLocationClient: StudentPageSource, Sendable {
    public let configuration: OnTheMapConfiguration
    /// Shared with `UdacityClient`; writes carry its session.
    public let sessionStore: SessionStore
    let transport: HTTPTransport

    /// The order every list uses: most recently updated first.
    public static let defaultOrder = "-updatedAt"

    public init(
        configuration: OnTheMapConfiguration = .local, sessionStore: SessionStore = SessionStore(),
        urlSession: URLSession? = nil, callbackQueue: DispatchQueue? = nil
    ) {
        self.configuration = configuration
        self.sessionStore = sessionStore
        self.transport = HTTPTransport(
            configuration: configuration, urlSession: urlSession,
            callbackQueue: callbackQueue)
    }

    /// Builds the pair sharing one session, as an app wants them.
    public static func clients(
        configuration: OnTheMapConfiguration = .local,
        callbackQueue: DispatchQueue? = nil
    ) -> (UdacityClient, StudentLocationClient) {
        let store = SessionStore()
        let urlSession = configuration.makeURLSession()
        return (
            UdacityClient(
                configuration: configuration, sessionStore: store, urlSession: urlSession,
                callbackQueue: callbackQueue),
            StudentLocationClient(
                configuration: configuration, sessionStore: store, urlSession: urlSession,
                callbackQueue: callbackQueue)
        )
    }

    // MARK: Plumbing

    private var parseHeaders: [String: String] {
        guard configuration.studentLocationAPI == .parse else { return [:] }
        return [
            "X-Parse-Application-Id": configuration.parseApplicationID,
            "X-Parse-REST-API-Key": configuration.parseRESTAPIKey,
        ]
    }

    /// Every request carries the session when there is one: a class's map is read by its
    /// members, not only written.
    private func request(
        path: String? = nil, method: String = "GET", query: [(String, String)] = [],
        body: Data? = nil
    ) -> URLRequest {
        var url = configuration.studentLocationURL
        if let path { url = url.appendingPathComponent(path) }
        var headers = parseHeaders
        headers.merge(sessionStore.authenticationHeaders) { _, new in new }
        return transport.request(url, method: method, query: query, json: body, headers: headers)
    }

    private func run<T: Sendable>(
        _ request: Result<URLRequest, OnTheMapError>, dialect: APIDialect = .parse,
        decode: @escaping @Sendable (HTTPAnswer) -> Result<T, OnTheMapError>,
        completion: @escaping @Sendable (Result<T, OnTheMapError>) -> Void
    ) -> RequestHandle {
        switch request {
        case .failure(let error):
            transport.deliver(.failure(error), to: completion)
            return RequestHandle()
        case .success(let request):
            return transport.send(request, dialect: dialect) { completion($0.flatMap(decode)) }
        }
    }

    private func run<T: Sendable>(
        _ request: Result<URLRequest, OnTheMapError>, dialect: APIDialect = .parse,
        decode: (HTTPAnswer) -> Result<T, OnTheMapError>
    ) async throws(OnTheMapError) -> T {
        let request = try request.get()
        return try await transport.send(request, dialect: dialect).flatMap(decode).get()
    }

    private static func validObjectID(_ objectId: String) -> Result<String, OnTheMapError> {
        let ok =
            !objectId.isEmpty && objectId.count <= 64
            && objectId.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" }
        return ok ? .success(objectId) : .failure(.invalidInput("\"\(objectId)\" is not a valid objectId."))
    }

    // MARK: Pages

    private func pageRequest(limit: Int, skip: Int, includeCount: Bool) -> Result<URLRequest, OnTheMapError> {
        guard limit > 0, skip >= 0 else { return .failure(.invalidInput("A page needs limit > 0 and skip >= 0.")) }
        var query = [("limit", String(limit))]
        if skip > 0 { query.append(("skip", String(skip))) }
        query.append(("order", Self.defaultOrder))
        if includeCount { query.append(("count", "1")) }
        return .success(request(query: query))
    }

    /// One page, most recently updated first. `includeCount` asks for the total as well.
    @discardableResult
    public func page(
        limit: Int = 100, skip: Int = 0, includeCount: Bool = false,
        completion: @escaping @Sendable (Result<StudentPage, OnTheMapError>) -> Void
    ) -> RequestHandle {
        run(
            pageRequest(limit: limit, skip: skip, includeCount: includeCount),
            decode: { StudentPage.decode($0.body, skip: skip, limit: limit) }, completion: completion)
    }

    public func page(limit: Int = 100, skip: Int = 0, includeCount: Bool = false) async throws(OnTheMapError) -> StudentPage {
        try await run(pageRequest(limit: limit, skip: skip, includeCount: includeCount)) {
            StudentPage.decode($0.body, skip: skip, limit: limit)
        }
    }

    public func studentPage(limit: Int, skip: Int) async throws(OnTheMapError) -> StudentPage {
        try await page(limit: limit, skip: skip, includeCount: skip == 0)
    }

    /// Every record, page by page (`pageSize` each), de-duplicated by objectId (records
    /// shift between pages when someone posts meanwhile). `progress` runs after each page.
    public func allPages(
        pageSize: Int = 100,
        progress: (@Sendable (PagingProgress) -> Void)? = nil
    ) async throws(OnTheMapError) -> StudentPage {
        var students: [StudentInformation] = []
        var seen = Set<String>()
        var skipped = 0
        var total: Int?
        var skip = 0
        while true {
            try Task.checkCancellation(or: .cancelled)
            let page = try await page(limit: pageSize, skip: skip, includeCount: skip == 0)
            if skip == 0 { total = page.totalCount }
            for student in page.students where seen.insert(student.objectId).inserted {
                students.append(student)
            }
            skipped += page.skippedCount
            skip = page.nextSkip
            progress?(PagingProgress(loaded: skip, total: total.map { max($0, skip) }))
            if page.isLastPage || page.recordCount == 0 { break }
        }
        return StudentPage(
            students: students, skippedCount: skipped, recordCount: skip,
            totalCount: total, skip: 0, limit: max(skip, pageSize))
    }

    @discardableResult
    public func allPages(
        pageSize: Int = 100, progress: (@Sendable (PagingProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<StudentPage, OnTheMapError>) -> Void
    ) -> RequestHandle {
        let handle = RequestHandle()
        let task = Task { [self] in
            let result: Result<StudentPage, OnTheMapError>
            do throws(OnTheMapError) { result = .success(try await allPages(pageSize: pageSize, progress: progress)) } catch {
                result = .failure(error)
            }
            transport.deliver(result, to: completion)
        }
        handle.attach(onCancel: { task.cancel() })
        return handle
    }

    // MARK: One user's records

    private func locationsRequest(uniqueKey: String) -> Result<URLRequest, OnTheMapError> {
        guard !uniqueKey.isEmpty else { return .failure(.invalidInput("The uniqueKey is empty.")) }
        var query: [(String, String)]
        switch configuration.studentLocationAPI {
        case .parse:
            let whereJSON = String(decoding: JSONBody.encode(["uniqueKey": uniqueKey]), as: UTF8.self)
            query = [("where", whereJSON)]
        case .v1:
            query = [("uniqueKey", uniqueKey)]
        }
        query.append(("order", Self.defaultOrder))
        query.append(("limit", "100"))
        return .success(request(query: query))
    }

    private static func decodeLocations(_ answer: HTTPAnswer, uniqueKey: String) -> Result<[StudentInformation], OnTheMapError> {
        // Filtered again here: a server that ignored the filter must not make us edit someone else's pin.
        StudentPage.decode(answer.body, limit: 100).map { page in
            page.students.filter { $0.uniqueKey == uniqueKey }
        }
    }

    /// The records posted under `uniqueKey` (an account key), most recent first.
    @discardableResult
    public func locations(
        uniqueKey: String,
        completion: @escaping @Sendable (Result<[StudentInformation], OnTheMapError>) -> Void
    ) -> RequestHandle {
        run(
            locationsRequest(uniqueKey: uniqueKey), decode: { Self.decodeLocations($0, uniqueKey: uniqueKey) },
            completion: completion)
    }

    public func locations(uniqueKey: String) async throws(OnTheMapError) -> [StudentInformation] {
        try await run(locationsRequest(uniqueKey: uniqueKey)) { Self.decodeLocations($0, uniqueKey: uniqueKey) }
    }

    /// The logged-in user's most recent record, nil if they have none yet.
    public func myLocation() async throws(OnTheMapError) -> StudentInformation? {
        guard let session = sessionStore.session else { throw .notLoggedIn }
        return try await locations(uniqueKey: session.accountKey).first
    }

    // MARK: Writes

    private func writeRequest(method: String, objectId: String?, input: StudentLocationInput?) -> Result<URLRequest, OnTheMapError> {
        if let input {
            guard input.latitude.isFinite, input.longitude.isFinite,
                (-90.0...90.0).contains(input.latitude), (-180.0...180.0).contains(input.longitude)
            else { return .failure(.invalidInput("The coordinates are out of range.")) }
        }
        var path: String?
        if let objectId {
            switch Self.validObjectID(objectId) {
            case .success(let id): path = id
            case .failure(let error): return .failure(error)
            }
        }
        return .success(request(path: path, method: method, body: input.map(JSONBody.encode)))
    }

    /// `POST`: creates a record for the logged-in user.
    @discardableResult
    public func post(
        _ input: StudentLocationInput,
        completion: @escaping @Sendable (Result<CreatedResponse, OnTheMapError>) -> Void
    ) -> RequestHandle {
        run(
            writeRequest(method: "POST", objectId: nil, input: input),
            decode: { JSONBody.decode(CreatedResponse.self, from: $0.body, what: "create answer") },
            completion: completion)
    }

    public func post(_ input: StudentLocationInput) async throws(OnTheMapError) -> CreatedResponse {
        try await run(writeRequest(method: "POST", objectId: nil, input: input)) {
            JSONBody.decode(CreatedResponse.self, from: $0.body, what: "create answer")
        }
    }

    /// `PUT /<objectId>`: replaces the fields of an existing record.
    @discardableResult
    public func update(
        objectId: String, with input: StudentLocationInput,
        completion: @escaping @Sendable (Result<UpdatedResponse, OnTheMapError>) -> Void
    ) -> RequestHandle {
        run(
            writeRequest(method: "PUT", objectId: objectId, input: input),
            decode: { JSONBody.decode(UpdatedResponse.self, from: $0.body, what: "update answer") },
            completion: completion)
    }

    public func update(objectId: String, with input: StudentLocationInput) async throws(OnTheMapError) -> UpdatedResponse {
        try await run(writeRequest(method: "PUT", objectId: objectId, input: input)) {
            JSONBody.decode(UpdatedResponse.self, from: $0.body, what: "update answer")
        }
    }

    /// `DELETE /<objectId>`.
    @discardableResult
    public func delete(
        objectId: String,
        completion: @escaping @Sendable (Result<Void, OnTheMapError>) -> Void
    ) -> RequestHandle {
        run(
            writeRequest(method: "DELETE", objectId: objectId, input: nil), decode: { _ in .success(()) },
            completion: completion)
    }

    public func delete(objectId: String) async throws(OnTheMapError) {
        try await run(writeRequest(method: "DELETE", objectId: objectId, input: nil)) { _ in .success(()) }
    }

    // MARK: Geocoding

    private func geocodeRequest(_ query: String, limit: Int) -> Result<URLRequest, OnTheMapError> {
        let text = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return .failure(.invalidInput("Type a place to look up.")) }
        guard let base = configuration.serviceBaseURL else { return .failure(.unavailable(feature: "geocoding")) }
        return .success(
            transport.request(
                base.appendingPathComponent("geocode"),
                query: [("q", text), ("limit", String(max(1, limit)))]))
    }

    private static func decodePlaces(_ answer: HTTPAnswer) -> Result<[GeocodedPlace], OnTheMapError> {
        JSONBody.object(from: answer.body, what: "geocoder answer").flatMap { json in
            guard let results = json["results"] as? [Any] else {
                return .failure(.unreadableResponse(detail: "geocoder answer without \"results\""))
            }
            return .success(results.compactMap { ($0 as? [String: Any]).flatMap(GeocodedPlace.init(json:)) })
        }
    }

    /// A server without a geocoder answers 404 (or 501): that is `.unavailable`.
    private static func geocoderMissing(_ error: OnTheMapError) -> OnTheMapError {
        switch error {
        case .rejected(404, _, _), .serverFailure(501, _): .unavailable(feature: "geocoding")
        default: error
        }
    }

    /// `GET <service>/geocode?q=…`: places matching `query`, best first (may be empty).
    @discardableResult
    public func geocode(
        _ query: String, limit: Int = 5,
        completion: @escaping @Sendable (Result<[GeocodedPlace], OnTheMapError>) -> Void
    ) -> RequestHandle {
        run(geocodeRequest(query, limit: limit), dialect: .service, decode: Self.decodePlaces) { result in
            completion(result.mapError(Self.geocoderMissing))
        }
    }

    public func geocode(_ query: String, limit: Int = 5) async throws(OnTheMapError) -> [GeocodedPlace] {
        do {
            return try await run(geocodeRequest(query, limit: limit), dialect: .service, decode: Self.decodePlaces)
        } catch {
            throw Self.geocoderMissing(error)
        }
    }
}

extension Task where Success == Never, Failure == Never {
    /// `checkCancellation` with a typed error.
    static func checkCancellation(or error: OnTheMapError) throws(OnTheMapError) {
        if Task.isCancelled { throw error }
    }
}
