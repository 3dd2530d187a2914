import Foundation
import JWTKit
import Storage

/// The claims of an LTI 1.3 launch's `id_token` this tool reads (LTI Core 1.3 §5, Deep
/// Linking 2.0 §4.4, NRPS 2.0 §3.6.1), decoded after the signature is checked.
struct LTILaunchClaims: Decodable, Sendable {
    static let prefix = "https://purl.imsglobal.org/spec/lti/claim/"

    enum MessageType: String, Sendable {
        case resourceLink = "LtiResourceLinkRequest"
        case deepLinking = "LtiDeepLinkingRequest"
    }

    struct Context: Decodable, Sendable {
        let id: String
        let title: String?
        let label: String?
    }

    struct ResourceLink: Decodable, Sendable {
        let id: String
        let title: String?
    }

    struct DeepLinkingSettings: Decodable, Sendable {
        let deep_link_return_url: String
        let accept_types: [String]?
        let data: String?
    }

    struct LaunchPresentation: Decodable, Sendable {
        let return_url: String?
    }

    struct NamesRoleService: Decodable, Sendable {
        let context_memberships_url: String
        let service_versions: [String]?
    }

    let sub: String?
    let name: String?
    let givenName: String?
    let familyName: String?
    let email: String?
    let messageType: String?
    let version: String?
    let deploymentID: String?
    let targetLinkURI: String?
    let roles: [String]?
    let context: Context?
    let resourceLink: ResourceLink?
    let custom: [String: String]?
    let deepLinking: DeepLinkingSettings?
    let namesRoleService: NamesRoleService?
    let launchPresentation: LaunchPresentation?

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue _: Int) { nil }
        static func lti(_ name: String) -> Key { Key(LTILaunchClaims.prefix + name) }
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        sub = try c.decodeIfPresent(String.self, forKey: Key("sub"))
        name = try? c.decodeIfPresent(String.self, forKey: Key("name"))
        givenName = try? c.decodeIfPresent(String.self, forKey: Key("given_name"))
        familyName = try? c.decodeIfPresent(String.self, forKey: Key("family_name"))
        email = try? c.decodeIfPresent(String.self, forKey: Key("email"))
        messageType = try c.decodeIfPresent(String.self, forKey: .lti("message_type"))
        version = try c.decodeIfPresent(String.self, forKey: .lti("version"))
        deploymentID = try c.decodeIfPresent(String.self, forKey: .lti("deployment_id"))
        targetLinkURI = try c.decodeIfPresent(String.self, forKey: .lti("target_link_uri"))
        roles = try c.decodeIfPresent([String].self, forKey: .lti("roles"))
        context = try c.decodeIfPresent(Context.self, forKey: .lti("context"))
        resourceLink = try c.decodeIfPresent(ResourceLink.self, forKey: .lti("resource_link"))
        // Custom values are strings when the platform substitutes them; anything else is ignored.
        custom = (try? c.decodeIfPresent([String: String].self, forKey: .lti("custom"))) ?? nil
        deepLinking = try c.decodeIfPresent(
            DeepLinkingSettings.self, forKey: Key("https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"))
        namesRoleService = try? c.decodeIfPresent(
            NamesRoleService.self, forKey: Key("https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"))
        launchPresentation = try? c.decodeIfPresent(LaunchPresentation.self, forKey: .lti("launch_presentation"))
    }

    /// The person's name as the platform gives it, for a new account.
    var firstName: String? { givenName ?? name?.split(separator: " ").first.map(String.init) }
    var lastName: String? { familyName ?? name.map { $0.split(separator: " ").dropFirst().joined(separator: " ") } }
    var displayName: String {
        Self.memberName(name: name, givenName: givenName, familyName: familyName)
    }

    /// A course member's name for the course roster: `name`, else the given and family
    /// names, each kept only when an account's name could be (`SignInPolicy.cleanName`: no
    /// control or bidirectional formatting characters), else "Course member".
    static func memberName(name: String?, givenName: String?, familyName: String?) -> String {
        if let name = SignInPolicy.cleanName(name) { return name }
        let joined = [givenName, familyName].compactMap(SignInPolicy.cleanName).joined(separator: " ")
        return joined.isEmpty ? "Course member" : joined
    }
}

/// What a course's roles make a person in its class (LIS vocabulary, LTI Core 1.3 §A.2):
/// instructors and administrators teach, teaching assistants moderate, everyone else
/// (learners, mentors, guests) is a student. Full IRIs and the short context role names
/// the specification still accepts are both read.
enum LTIRoles {
    static func classRole(_ roles: [String]) -> ClassRole {
        var best = ClassRole.student
        for role in roles {
            let name = role.split(separator: "#").last.map(String.init) ?? role
            let mapped: ClassRole
            switch name {
            case "TeachingAssistant": mapped = .moderator
            case "Instructor", "Administrator": mapped = .teacher
            default: continue
            }
            if mapped > best { best = mapped }
        }
        return best
    }

    /// Teachers' launches may create the course's class and ask for deep linking.
    static func teaches(_ roles: [String]) -> Bool { classRole(roles) == .teacher }
}

/// The registered claims a platform's signature covers, checked by `LTIPlatformKeys`.
struct LTIRegisteredClaims: JWTPayload {
    let iss: IssuerClaim
    let aud: AudienceClaim
    let exp: ExpirationClaim
    let iat: IssuedAtClaim?
    let nonce: String?
    let azp: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
