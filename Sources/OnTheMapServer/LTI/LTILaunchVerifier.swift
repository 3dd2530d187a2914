import Foundation
import OnTheMapModels
import Storage

/// Checks a launch's `id_token` in full (IMS Security Framework 1.0 §5.1.3, LTI Core 1.3
/// §5.3): the signature against the platform's key set, the issuer, the audience and
/// authorized party, expiry, the nonce this login sent, then the LTI claims: version,
/// message type, a known deployment, a subject, roles, and the target link the login named.
/// Every refusal is an `LTIProblem` whose text names the check, never the token.
struct LTILaunchVerifier: Sendable {
    static let leeway: TimeInterval = 60
    static let version = "1.3.0"

    let platforms: LTIPlatforms

    func verify(idToken: String, login: LTIPendingLogin, platform: LTIPlatform, now: Date) async throws -> LTILaunchClaims {
        let registered: LTIRegisteredClaims
        do {
            registered = try await platforms.keySet(for: platform).verify(idToken, as: LTIRegisteredClaims.self, now: now) {
                guard let url = URL(string: platform.jwksURL) else { throw ProviderUnavailable("bad key set URL") }
                return url
            }
        } catch let refusal as RemoteKeySet.Refusal {
            throw LTIProblem.launchRefused(refusal.description)
        } catch let unavailable as ProviderUnavailable {
            throw LTIProblem(
                .badGateway, "platformDown", tryAgain: true,
                log: "platform keys unavailable: \(unavailable)")
        }
        guard OIDCClient.sameIssuer(registered.iss.value, platform.issuer) else { throw LTIProblem.launchRefused("wrong issuer") }
        guard registered.aud.value.contains(platform.clientID) else { throw LTIProblem.launchRefused("wrong audience") }
        if registered.aud.value.count > 1 || registered.azp != nil, registered.azp != platform.clientID {
            throw LTIProblem.launchRefused("wrong authorized party")
        }
        guard registered.exp.value.addingTimeInterval(Self.leeway) > now else { throw LTIProblem.launchRefused("the token has expired") }
        if let iat = registered.iat, iat.value > now.addingTimeInterval(Self.leeway) {
            throw LTIProblem.launchRefused("issued in the future")
        }
        guard let nonce = registered.nonce, Tokens.constantTimeEqual(nonce, login.nonce) else {
            throw LTIProblem.launchRefused("nonce missing or wrong")
        }

        let claims: LTILaunchClaims
        do {
            let payload = String(idToken.split(separator: ".", omittingEmptySubsequences: false)[1])
            guard let data = Tokens.base64URLDecode(payload) else { throw LTIProblem.launchRefused("unreadable claims") }
            claims = try JSONDecoder().decode(LTILaunchClaims.self, from: data)
        } catch let problem as LTIProblem {
            throw problem
        } catch {
            throw LTIProblem.launchRefused("a claim is not in the form LTI 1.3 gives it")
        }
        guard claims.version == Self.version else {
            throw LTIProblem.launchRefused("LTI version \(String((claims.version ?? "missing").prefix(16))) is not 1.3.0")
        }
        guard let type = claims.messageType, LTILaunchClaims.MessageType(rawValue: type) != nil else {
            throw LTIProblem.launchRefused("message type \(String((claims.messageType ?? "missing").prefix(40))) is not one OnTheMap takes")
        }
        guard let deployment = claims.deploymentID, !deployment.isEmpty, deployment.utf8.count <= 255 else {
            throw LTIProblem.launchRefused("no deployment id")
        }
        if !platform.deploymentIDs.isEmpty, !platform.deploymentIDs.contains(deployment) {
            throw LTIProblem.launchRefused("deployment \(String(deployment.prefix(40))) is not registered here")
        }
        guard let sub = claims.sub, !sub.isEmpty, sub.utf8.count <= 255 else {
            throw LTIProblem.launchRefused("no subject: anonymous launches cannot sign anyone in")
        }
        guard claims.roles != nil else { throw LTIProblem.launchRefused("no roles claim") }
        guard let target = claims.targetLinkURI, target == login.targetLinkURI else {
            throw LTIProblem.launchRefused("the target link is not the one the login named")
        }
        guard let context = claims.context, !context.id.isEmpty, context.id.utf8.count <= 255 else {
            throw LTIProblem(.badRequest, "noCourse", log: "launch without a context")
        }
        if type == LTILaunchClaims.MessageType.resourceLink.rawValue, claims.resourceLink == nil {
            throw LTIProblem.launchRefused("no resource link claim")
        }
        if type == LTILaunchClaims.MessageType.deepLinking.rawValue {
            guard let settings = claims.deepLinking, platformsAllow(settings.deep_link_return_url) else {
                throw LTIProblem.launchRefused("no usable deep-linking return URL")
            }
        }
        if platform.deploymentIDs.isEmpty {
            // Registered by hand without deployments: the first launch that passes every check
            // records its deployment, and from then on only known deployments launch.
            try await platforms.store.addDeployment(platformID: platform.id, deploymentID: deployment)
            platforms.reload()
        }
        await platforms.learnFrameOrigin(
            from: claims.launchPresentation?.return_url ?? claims.deepLinking?.deep_link_return_url, of: platform)
        return claims
    }

    private func platformsAllow(_ returnURL: String) -> Bool {
        LTIPlatforms.urlProblem(returnURL, field: "return URL") == nil
    }
}
