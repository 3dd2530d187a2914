import Foundation
import OnTheMapModels
import Storage
import Synchronization

/// The registered platforms as the server uses them: looked up by issuer, each with its
/// cached key set, and their origins (the only pages allowed to frame a launch). Read from
/// the database again every `reloadInterval`, so a platform the host adds with the CLI, or
/// another server registers, is known within a minute.
final class LTIPlatforms: Sendable {
    static let reloadInterval: TimeInterval = 30

    private struct Loaded: Sendable {
        var platforms: [LTIPlatform]
        /// Their origins, worked out once per read (every framed request asks for them).
        var ancestors: [String]
        var loadedAt: Date
    }

    let store: any LTIRepository
    let http: any SignInHTTPClient
    private let clock: WallClock
    private let loaded = Mutex<Loaded?>(nil)
    private let keySets = Mutex<[String: RemoteKeySet]>([:])

    init(store: any LTIRepository, http: any SignInHTTPClient, clock: WallClock) {
        self.store = store
        self.http = http
        self.clock = clock
    }

    func all() async throws -> [LTIPlatform] {
        try await current().platforms
    }

    private func current() async throws -> Loaded {
        let now = clock.now()
        if let loaded = loaded.withLock({ $0 }), now.timeIntervalSince(loaded.loadedAt) < Self.reloadInterval { return loaded }
        let platforms = try await store.ltiPlatforms()
        let fresh = Loaded(platforms: platforms, ancestors: Self.origins(of: platforms), loadedAt: now)
        loaded.withLock { $0 = fresh }
        return fresh
    }

    /// Forgets what was read, after this server changed the platforms.
    func reload() { loaded.withLock { $0 = nil } }

    /// The registrations of `issuer` (with `clientID`, when the login names it). None known:
    /// the database is read again, so a platform the host just added launches at once.
    func matching(issuer: String, clientID: String?) async throws -> [LTIPlatform] {
        func filter(_ platforms: [LTIPlatform]) -> [LTIPlatform] {
            platforms.filter { OIDCClient.sameIssuer($0.issuer, issuer) && (clientID == nil || $0.clientID == clientID) }
        }
        let found = filter(try await all())
        if !found.isEmpty { return found }
        reload()
        return filter(try await all())
    }

    func platform(id: String) async throws -> LTIPlatform? {
        if let found = try await all().first(where: { $0.id == id }) { return found }
        reload()
        return try await all().first { $0.id == id }
    }

    /// Origins of the registered platforms' issuers, login endpoints and course pages.
    func frameAncestors() async -> [String] {
        (try? await current().ancestors) ?? []
    }

    private static func origins(of platforms: [LTIPlatform]) -> [String] {
        var origins: [String] = []
        for text in platforms.flatMap({ [$0.issuer, $0.authURL] + $0.frameOrigins }) {
            guard let origin = origin(of: text), !origins.contains(origin) else { continue }
            origins.append(origin)
        }
        return origins
    }

    /// `scheme://host[:port]` of an http(s) URL, or nil.
    static func origin(of text: String) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = components.host?.lowercased(), !host.isEmpty,
            host.unicodeScalars.allSatisfy({ CharacterSet.urlHostAllowed.contains($0) && $0 != "*" && $0 != ";" && $0 != "'" })
        else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }

    /// A platform URL the host may register: https, or http on a loopback host (a platform
    /// on this machine, as in tests and trials). Nil when acceptable, else why not.
    static func urlProblem(_ text: String, field: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else {
            return "\(field) must be a full URL (https://…)."
        }
        if scheme == "https" { return nil }
        if scheme == "http", ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host) { return nil }
        return "\(field) must use https (plain http only for a platform on this machine)."
    }

    static let maximumFrameOrigins = 20

    /// Records the origin of a page a verified launch came from (its return URL: the course
    /// page, on a school's own address for Canvas and Blackboard), so the platform's course
    /// pages may frame the class map. The platform signed the claim naming it.
    func learnFrameOrigin(from url: String?, of platform: LTIPlatform) async {
        guard let url, LTIPlatforms.urlProblem(url, field: "return URL") == nil, let origin = Self.origin(of: url),
            !(await frameAncestors()).contains(origin), platform.frameOrigins.count < Self.maximumFrameOrigins
        else { return }
        if (try? await store.addFrameOrigin(origin, platformID: platform.id)) == true { reload() }
    }

    func keySet(for platform: LTIPlatform) -> RemoteKeySet {
        keySets.withLock { sets in
            if let set = sets[platform.id + " " + platform.jwksURL] { return set }
            // A platform may sign with a new key at once: an unknown key id fetches the set
            // again, at most every few seconds.
            let set = RemoteKeySet(http: http, refetchInterval: 5)
            sets[platform.id + " " + platform.jwksURL] = set
            return set
        }
    }
}
