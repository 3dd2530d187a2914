import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the SDK sends its requests. The default talks to a local `onthemap serve`; the
/// original Udacity hosts are available as presets.
public struct OnTheMapConfiguration: Sendable, Hashable {
    /// Which flavour of the StudentLocation API `studentLocationURL` speaks.
    public enum StudentLocationAPI: String, Sendable, Hashable, Codable {
        /// Parse REST (`/parse/classes/StudentLocation`): app-id headers, `where=` queries, `count`.
        case parse
        /// Udacity v1 (`/v1/StudentLocation`): no headers, `?uniqueKey=` for one user's records.
        case v1
    }

    /// Base of the Udacity session API: `<base>/session`, `<base>/users/<key>`.
    public var sessionBaseURL: URL
    /// The StudentLocation collection itself: `<url>?limit=…`, `<url>/<objectId>`.
    public var studentLocationURL: URL
    public var studentLocationAPI: StudentLocationAPI
    /// Base of this project's own API (`<base>/geocode`, `<base>/users` for sign-up).
    /// `nil` for the original hosts, which have neither.
    public var serviceBaseURL: URL?
    /// Sent as `X-Parse-Application-Id` / `X-Parse-REST-API-Key` when the API is `.parse`.
    public var parseApplicationID: String
    public var parseRESTAPIKey: String
    /// Seconds before a request without an answer fails with `OnTheMapError.timedOut`.
    public var timeout: TimeInterval

    /// The default local server.
    public static let defaultServer = URL(string: "http://127.0.0.1:8080")!

    /// Talks to an OnTheMap server at `server` (scheme, host and port; a path prefix is kept).
    public init(
        server: URL = OnTheMapConfiguration.defaultServer,
        studentLocationAPI: StudentLocationAPI = .parse,
        timeout: TimeInterval = 20
    ) {
        let api = server.appendingPathComponent("api")
        self.init(
            sessionBaseURL: api,
            studentLocationURL: studentLocationAPI == .parse
                ? server.appendingPathComponent("parse/classes/StudentLocation")
                : server.appendingPathComponent("v1/StudentLocation"),
            studentLocationAPI: studentLocationAPI,
            serviceBaseURL: api,
            timeout: timeout
        )
    }

    /// Every URL spelled out, e.g. for a mixed deployment.
    public init(
        sessionBaseURL: URL, studentLocationURL: URL,
        studentLocationAPI: StudentLocationAPI, serviceBaseURL: URL?,
        parseApplicationID: String = ParseCredentials.applicationID,
        parseRESTAPIKey: String = ParseCredentials.restAPIKey,
        timeout: TimeInterval = 20
    ) {
        self.sessionBaseURL = sessionBaseURL
        self.studentLocationURL = studentLocationURL
        self.studentLocationAPI = studentLocationAPI
        self.serviceBaseURL = serviceBaseURL
        self.parseApplicationID = parseApplicationID
        self.parseRESTAPIKey = parseRESTAPIKey
        self.timeout = timeout
    }

    /// A local `onthemap serve` on port 8080.
    public static let local = OnTheMapConfiguration()

    /// The original 2019+ hosts (`onthemap-api.udacity.com/v1`).
    public static let udacityV1 = OnTheMapConfiguration(
        sessionBaseURL: URL(string: "https://onthemap-api.udacity.com/v1")!,
        studentLocationURL: URL(string: "https://onthemap-api.udacity.com/v1/StudentLocation")!,
        studentLocationAPI: .v1, serviceBaseURL: nil
    )

    /// The original 2016–2018 hosts (`www.udacity.com/api` and `parse.udacity.com`).
    public static let udacityParse = OnTheMapConfiguration(
        sessionBaseURL: URL(string: "https://www.udacity.com/api")!,
        studentLocationURL: URL(string: "https://parse.udacity.com/parse/classes/StudentLocation")!,
        studentLocationAPI: .parse, serviceBaseURL: nil
    )

    /// A URLSession suited to the SDK: no shared cookie jar (the clients send the session
    /// explicitly), no cache, this configuration's timeout.
    public func makeURLSession() -> URLSession {
        let config = URLSessionConfiguration.ephemeral
        config.httpShouldSetCookies = false
        config.httpCookieAcceptPolicy = .never
        config.httpCookieStorage = nil
        config.urlCache = nil
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        config.timeoutIntervalForRequest = timeout
        config.timeoutIntervalForResource = max(timeout * 3, 60)
        return URLSession(configuration: config)
    }
}

extension OnTheMapConfiguration {
    /// `<service base>/<path>` for a call that needs the signed-in session, or why it cannot
    /// be made: the server has no service API (`feature` names what is missing), or nobody is
    /// signed in.
    func signedInServiceURL(_ path: String, feature: String, sessionStore: SessionStore) throws(OnTheMapError) -> URL {
        guard let base = serviceBaseURL else { throw .unavailable(feature: feature) }
        guard sessionStore.session != nil else { throw .notLoggedIn }
        return base.appendingPathComponent(path)
    }
}
