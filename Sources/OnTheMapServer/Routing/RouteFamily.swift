/// The server's route families, each declared once: where it is mounted, the wire format its
/// errors take (an old app must be able to decode any answer, a 404 for an unknown path or a
/// 503 before routing included), the label `/metrics` counts it under, whether it is served
/// for a class under `/c/<slug>` too, and whether it counts as a read of a class's map.
/// `buildRouter` mounts the families' groups at these paths, the middlewares and the
/// connection guard look a path's family up here, and a test walks every mounted route.
struct RouteFamily: Sendable, Equatable {
    /// The wire format of an error the route did not answer itself.
    enum ErrorFormat: Sendable, Equatable {
        /// The Udacity session API: `{"status","error"}`.
        case udacity
        /// Parse: `{"code","error"}`.
        case parse
        /// OnTheMap's own API: `{"error":{"code","message"}}`.
        case api
        /// Pages and files: the framework's own answer.
        case other
    }

    /// The `family` label of the request metrics; several families may share one.
    let name: String
    /// Path prefixes without the leading slash; the longest prefix of a path names its family.
    let mounts: [String]
    let errors: ErrorFormat
    /// Also served as `/c/<slug>/…`, for that class.
    var servedPerClass = true
    /// Each answered request counts as a read of the class's map (`onthemap_class_requests_total`).
    var countedPerClass = false

    // MARK: The families

    /// Parse's StudentLocation class, and the path that once served it without `/parse`.
    static let studentLocations = RouteFamily(
        name: "student_locations", mounts: ["parse/", "v1/StudentLocation"], errors: .parse,
        countedPerClass: true)
    /// The Udacity session API: logging in and out.
    static let sessions = RouteFamily(name: "sessions", mounts: ["api/session", "v1/session"], errors: .udacity)
    /// The Udacity user API (`GET /api/users/<key>`).
    static let udacityUsers = RouteFamily(name: "accounts", mounts: ["api/users/", "v1/users/"], errors: .udacity)
    /// Signing up, one's account and its data, password resets.
    static let accounts = RouteFamily(name: "accounts", mounts: ["api/users", "api/account", "api/password-reset"], errors: .api)
    /// Signing in with other accounts, on our API.
    static let signIn = RouteFamily(name: "sign_in", mounts: ["api/auth"], errors: .api)
    /// Signing in with other accounts: the browser's trips to and from a provider.
    static let signInPages = RouteFamily(name: "sign_in", mounts: ["auth/"], errors: .other, servedPerClass: false)
    /// Classes, the invite page's look-up of an invite link, and the links in teachers' notice emails that stop them.
    static let classes = RouteFamily(name: "classes", mounts: ["api/classes", "api/invites", "api/notices"], errors: .api)
    /// Moderation, administration and reports.
    static let moderation = RouteFamily(name: "moderation", mounts: ["api/admin", "api/locations"], errors: .api, countedPerClass: true)
    /// The live map of a class: its snapshot, its change stream, where it would show a point.
    static let liveMap = RouteFamily(
        name: "live_map", mounts: ["api/locations/snapshot", "api/locations/changes", "api/locations/placement"],
        errors: .api, countedPerClass: true)
    /// Searching a class's students by name or place.
    static let search = RouteFamily(name: "search", mounts: ["api/locations/search"], errors: .api, countedPerClass: true)
    static let geocode = RouteFamily(name: "geocode", mounts: ["api/geocode"], errors: .api)
    static let travel = RouteFamily(name: "travel", mounts: ["api/pins", "api/photos"], errors: .api)
    /// Course platforms' launches, registration and keys (pages and JSON for the platform).
    static let lti = RouteFamily(name: "lti", mounts: ["lti/"], errors: .other, servedPerClass: false)
    static let health = RouteFamily(name: "health", mounts: ["health"], errors: .other, servedPerClass: false)
    static let metrics = RouteFamily(name: "metrics", mounts: ["metrics"], errors: .other, servedPerClass: false)
    static let docs = RouteFamily(name: "docs", mounts: ["openapi.json"], errors: .other, servedPerClass: false)
    /// Any other path of the APIs (none is routed: an unknown path's 404 in our API's format).
    static let otherAPI = RouteFamily(name: "other_api", mounts: ["api/", "v1/"], errors: .api)
    /// The web app's pages and files, and anything else.
    static let web = RouteFamily(name: "web", mounts: [], errors: .other, servedPerClass: false)

    static let all: [RouteFamily] = [
        studentLocations, sessions, udacityUsers, accounts, signIn, signInPages, classes, moderation, liveMap, search, geocode, travel,
        lti, health, metrics, docs, otherAPI, web,
    ]

    /// Every mount, longest first: the first that prefixes a path names its family.
    private static let mountsByLength: [(prefix: String, family: RouteFamily)] =
        all
        .flatMap { family in family.mounts.map { ("/" + $0, family) } }
        .sorted { $0.0.count > $1.0.count }

    /// The family a path (without `/c/<slug>`) belongs to, routed or not.
    static func of(_ path: String) -> RouteFamily {
        mountsByLength.first { path.hasPrefix($0.prefix) }?.family ?? web
    }

    /// The router path of a family mounted at one place.
    var mount: String {
        precondition(mounts.count == 1, "\(name) is mounted at several places")
        return mounts[0]
    }
}
