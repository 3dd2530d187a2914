import Foundation
import OnTheMapModels
import Storage

/// The host's LTI commands (`onthemap admin lti …`), on the database directly: registering
/// a platform by hand (for platforms without dynamic registration), listing and removing
/// them, rotating the tool's key, and making a dynamic-registration link.
public enum LTIHostTools {
    public struct Refused: Error, CustomStringConvertible {
        public let description: String
    }

    public static func addPlatform(
        issuer: String, clientID: String, authURL: String, tokenURL: String, jwksURL: String,
        deploymentIDs: [String], name: String?, trustEmail: Bool, tokenAudience: String? = nil,
        frameOrigins: [String] = [], store: any OnTheMapStore, now: Date = Date()
    ) async throws -> LTIPlatform {
        for (field, value) in [("--issuer", issuer), ("--auth-url", authURL), ("--token-url", tokenURL), ("--jwks-url", jwksURL)] {
            if let problem = LTIPlatforms.urlProblem(value, field: field) { throw Refused(description: problem) }
        }
        let origins = try checkedOrigins(frameOrigins)
        if let tokenAudience, tokenAudience.isEmpty || tokenAudience.count > 2048 {
            throw Refused(description: "--token-audience is 1 to 2048 characters.")
        }
        guard !clientID.isEmpty, clientID.count <= 255 else { throw Refused(description: "--client-id is 1 to 255 characters.") }
        for deployment in deploymentIDs where deployment.isEmpty || deployment.count > 255 {
            throw Refused(description: "A --deployment-id is 1 to 255 characters.")
        }
        let platform = LTIPlatform(
            id: Tokens.randomHex(bytes: 6), issuer: issuer, clientID: clientID,
            name: String((name ?? URL(string: issuer)?.host ?? issuer).prefix(80)), authURL: authURL, tokenURL: tokenURL, jwksURL: jwksURL,
            tokenAudience: tokenAudience, frameOrigins: origins, trustEmail: trustEmail, deploymentIDs: deploymentIDs, createdAt: now)
        do {
            try await store.addPlatform(platform)
        } catch StorageError.platformExists {
            throw Refused(description: "That issuer and client id are registered already: `onthemap admin lti list`.")
        }
        try await LTIToolKeys.ensureKey(store: store, now: now)
        return platform
    }

    static func checkedOrigins(_ texts: [String]) throws -> [String] {
        try texts.map { text in
            guard LTIPlatforms.urlProblem(text, field: "--frame-origin") == nil, let origin = LTIPlatforms.origin(of: text) else {
                throw Refused(
                    description: "--frame-origin takes the address of the platform's course pages, like https://school.instructure.com.")
            }
            return origin
        }
    }

    /// Changes what a registration trusts: emails, more deployments, course-page origins, the
    /// token audience. Returns the platform as saved.
    public static func change(
        id: String, trustEmail: Bool?, addDeployments: [String], addFrameOrigins: [String], tokenAudience: String?,
        store: any OnTheMapStore
    ) async throws -> LTIPlatform {
        guard var platform = try await store.ltiPlatform(id: id) else {
            throw Refused(description: "There is no platform '\(id)'. `onthemap admin lti list` lists them.")
        }
        for deployment in addDeployments where deployment.isEmpty || deployment.count > 255 {
            throw Refused(description: "A --deployment-id is 1 to 255 characters.")
        }
        if let trustEmail { platform.trustEmail = trustEmail }
        if let tokenAudience { platform.tokenAudience = tokenAudience.isEmpty ? nil : tokenAudience }
        for origin in try checkedOrigins(addFrameOrigins) where !platform.frameOrigins.contains(origin) {
            platform.frameOrigins.append(origin)
        }
        try await store.updatePlatform(platform)
        for deployment in addDeployments { try await store.addDeployment(platformID: id, deploymentID: deployment) }
        return try await store.ltiPlatform(id: id) ?? platform
    }

    public static func platforms(store: any OnTheMapStore) async throws -> [LTIPlatform] {
        try await store.ltiPlatforms()
    }

    public static func remove(id: String, store: any OnTheMapStore) async throws {
        guard try await store.removePlatform(id: id) else {
            throw Refused(description: "There is no platform '\(id)'. `onthemap admin lti list` lists them.")
        }
    }

    /// A new signing key; returns its id.
    public static func rotateKey(store: any OnTheMapStore) async throws -> String {
        try await LTIToolKeys.rotate(store: store)
    }

    /// `origin/lti/register?invite=…`: one use, for a day.
    public static func registrationLink(origin: String, store: any OnTheMapStore) async throws -> String {
        let trimmed = origin.hasSuffix("/") ? String(origin.dropLast()) : origin
        return "\(trimmed)/lti/register?invite=\(try await LTIRegistration.invite(store: store))"
    }
}
