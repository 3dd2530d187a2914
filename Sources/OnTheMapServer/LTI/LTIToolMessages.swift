import Foundation
import JWTKit
import OnTheMapModels
import Storage

/// The answer to a deep-linking request (Deep Linking 2.0 §4.5): one LTI resource link to
/// the chosen class, signed by the tool, for the platform's return URL.
struct LTIDeepLinkingResponse: JWTPayload {
    struct Item: Encodable {
        let type = "ltiResourceLink"
        let title: String
        let url: String
        let custom: [String: String]

        init(title: String, url: String, slug: String) {
            self.title = title
            self.url = url
            custom = ["onthemap_class": slug]
        }
    }

    let iss: String
    let aud: [String]
    let iat: Int
    let exp: Int
    let nonce: String
    let messageType = "LtiDeepLinkingResponse"
    let version = LTILaunchVerifier.version
    let deploymentID: String
    /// The platform's `data`, returned as it came; absent when it sent none.
    let data: String?
    let items: [Item]

    init(platform: LTIPlatform, deploymentID: String, data: String?, now: Date, item: Item) {
        iss = platform.clientID
        aud = [platform.issuer]
        iat = Int(now.timeIntervalSince1970)
        exp = iat + 600
        nonce = Tokens.random()
        self.deploymentID = deploymentID
        self.data = data
        items = [item]
    }

    enum CodingKeys: String, CodingKey {
        case iss, aud, iat, exp, nonce
        case messageType = "https://purl.imsglobal.org/spec/lti/claim/message_type"
        case version = "https://purl.imsglobal.org/spec/lti/claim/version"
        case deploymentID = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
        case items = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"
        case data = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
    }

    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the tool only writes deep-linking responses"))
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// The tool's proof of itself at a platform's token endpoint (IMS Security Framework 1.0
/// §4.1.1, RFC 7523): `iss` and `sub` are the client id, `aud` the token URL (or the
/// audience the platform names), used once.
struct LTIClientAssertion: JWTPayload {
    let iss: String
    let sub: String
    let aud: String
    let iat: Int
    let exp: Int
    let jti: String

    init(platform: LTIPlatform, now: Date) {
        iss = platform.clientID
        sub = platform.clientID
        aud = platform.tokenAudience ?? platform.tokenURL
        iat = Int(now.timeIntervalSince1970)
        exp = iat + 300
        jti = Tokens.random()
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
