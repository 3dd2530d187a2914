import Foundation
import Logging
import OnTheMapModels
import Storage
import Synchronization

/// The course's members from the platform (Names and Role Provisioning Services 2.0): an
/// access token by the client-credentials grant with a signed assertion, then the
/// membership pages, following `next` links. Runs in the background after a teacher's
/// launch (the launch does not wait); members who left the course and whose membership came
/// from a launch lose it. One sync per class at a time.
///
/// The token goes to the memberships URL's origin only: every page, `next` links included,
/// must be on that origin (https, or http on a loopback host as `LTIPlatforms.urlProblem`
/// allows), and a redirect elsewhere is not followed (`OutboundClient`). A page elsewhere
/// stops the sync: the pages read before it are no complete roster, so nothing is applied
/// and nobody is removed.
final class LTIRosterSync: Sendable {
    static let scope = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
    static let mediaType = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
    static let maximumPages = 200
    static let maximumMembers = 20_000

    let store: any OnTheMapStore
    let keys: LTIToolKeys
    let http: any SignInHTTPClient
    let writes: LocationWrites
    let clock: WallClock
    private let running = Mutex<Set<String>>([])

    init(store: any OnTheMapStore, keys: LTIToolKeys, http: any SignInHTTPClient, writes: LocationWrites, clock: WallClock) {
        self.store = store
        self.keys = keys
        self.http = http
        self.writes = writes
        self.clock = clock
    }

    func start(classID: String, platform: LTIPlatform, membershipsURL: String, logger: Logger) {
        guard running.withLock({ $0.insert(classID).inserted }) else { return }
        Task {
            defer { _ = running.withLock { $0.remove(classID) } }
            do {
                let count = try await sync(classID: classID, platform: platform, membershipsURL: membershipsURL)
                logger.info("lti roster synced", metadata: ["class": "\(classID)", "members": "\(count)"])
            } catch {
                logger.warning("lti roster sync failed", metadata: ["class": "\(classID)", "reason": "\(error)"])
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private struct TokenReply: Decodable {
        let access_token: String?
        let error: String?
    }

    private struct Container: Decodable {
        struct Member: Decodable {
            let user_id: String?
            let status: String?
            let name: String?
            let given_name: String?
            let family_name: String?
            let roles: [String]?
        }
        let members: [Member]
    }

    /// One sync; returns how many course members the roster now holds.
    func sync(classID: String, platform: LTIPlatform, membershipsURL: String) async throws -> Int {
        guard let first = URL(string: membershipsURL), let origin = Self.fetchableOrigin(first) else {
            throw Failure("memberships URL is neither https nor http on a loopback host")
        }
        let token = try await accessToken(platform)
        var next: URL? = first
        var entries: [LTIRosterEntry] = []
        var seen = Set<String>()
        var pages = 0
        while let url = next {
            pages += 1
            guard pages <= Self.maximumPages else { throw Failure("more than \(Self.maximumPages) membership pages") }
            // Checked before the token is sent: a page link on another origin ends the sync.
            guard Self.fetchableOrigin(url) == origin else {
                throw Failure(
                    "a memberships page link leads off the memberships URL's origin (\(Self.fetchableOrigin(url) ?? "not http(s)"))")
            }
            let reply = try await http.send(
                SignInHTTPRequest(url: url, headers: ["Authorization": "Bearer \(token)", "Accept": Self.mediaType]))
            if (300..<400).contains(reply.status) {
                throw Failure("memberships answered a redirect (HTTP \(reply.status)), not followed off the memberships URL's origin")
            }
            guard reply.status == 200 else { throw Failure("memberships answered HTTP \(reply.status)") }
            guard let container = try? JSONDecoder().decode(Container.self, from: reply.body) else {
                throw Failure("memberships page is not a membership container")
            }
            for member in container.members {
                guard let subject = member.user_id, !subject.isEmpty, subject.utf8.count <= 255,
                    member.status.map({ $0 == "Active" }) ?? true,
                    seen.insert(subject).inserted
                else { continue }
                let name = LTILaunchClaims.memberName(name: member.name, givenName: member.given_name, familyName: member.family_name)
                entries.append(LTIRosterEntry(subject: subject, name: name, roles: Array((member.roles ?? []).prefix(20))))
            }
            guard entries.count <= Self.maximumMembers else { throw Failure("more than \(Self.maximumMembers) members") }
            next = reply.headers["link"].flatMap(Self.nextLink)
        }
        let gone = try await store.replaceRoster(classID: classID, platformID: platform.id, entries: entries, now: clock.now())
        for key in gone {
            _ = try await writes.removeMember(classId: classID, accountKey: key)
        }
        return entries.count
    }

    private func accessToken(_ platform: LTIPlatform) async throws -> String {
        guard let url = URL(string: platform.tokenURL) else { throw Failure("bad token URL") }
        let assertion = try await keys.sign(LTIClientAssertion(platform: platform, now: clock.now()))
        let reply = try await http.send(
            SignInHTTPRequest(
                method: "POST", url: url,
                form: [
                    ("grant_type", "client_credentials"),
                    ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
                    ("client_assertion", assertion),
                    ("scope", Self.scope),
                ]))
        let decoded = try? JSONDecoder().decode(TokenReply.self, from: reply.body)
        guard reply.status == 200, let token = decoded?.access_token, !token.isEmpty else {
            throw Failure("token endpoint answered HTTP \(reply.status)\(decoded?.error.map { " (\($0.prefix(40)))" } ?? "")")
        }
        return token
    }

    /// The origin of a URL the sync may send the token to (as `LTIPlatforms.origin(of:)`
    /// spells it), or nil when the URL is neither https nor http on a loopback host.
    static func fetchableOrigin(_ url: URL) -> String? {
        guard LTIPlatforms.urlProblem(url.absoluteString, field: "") == nil, let origin = LTIPlatforms.origin(of: url.absoluteString) else {
            return nil
        }
        // The scheme's own port, spelled out or not, is the same origin.
        for (scheme, port) in [("https://", ":443"), ("http://", ":80")] where origin.hasPrefix(scheme) && origin.hasSuffix(port) {
            return String(origin.dropLast(port.count))
        }
        return origin
    }

    /// The `rel="next"` target of a `Link` header (RFC 8288).
    static func nextLink(_ header: String) -> URL? {
        for part in header.split(separator: ",") {
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let target = pieces.first, target.hasPrefix("<"), target.hasSuffix(">"),
                pieces.dropFirst().contains(where: { $0.replacingOccurrences(of: "\"", with: "").lowercased() == "rel=next" })
            else { continue }
            return URL(string: String(target.dropFirst().dropLast()))
        }
        return nil
    }
}
