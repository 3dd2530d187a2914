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

    public static func addPlatform(issuer: String, clientID: String, authURL: String, tokenURL: String, jwksURL: String,
                                   deploymentIDs: [String], name: String?, trustEmail: Bool, store: any OnTheMapStore,
                                   now: Date = Date()) async throws -> LTIPlatform {
        for (field, value) in [("--issuer", issuer), ("--auth-url", authURL), ("--token-url", tokenURL), ("--jwks-url", jwksURL)] {
            if let problem = LTIPlatforms.urlProblem(value, field: field) { throw Refused(description: problem) }
        }
        guard !clientID.isEmpty, clientID.count <= 255 else { throw Refused(description: "--client-id is 1 to 255 characters.") }
        for deployment in deploymentIDs where deployment.isEmpty || deployment.count > 255 {
            throw Refused(description: "A --deployment-id is 1 to 255 characters.")
        }
        let platform = LTIPlatform(
            id: Tokens.randomHex(bytes: 6), issuer: issuer, clientID: clientID,
            name: String((name ?? URL(string: issuer)?.host ?? issuer).prefix(80)), authURL: authURL, tokenURL: tokenURL, jwksURL: jwksURL,
            trustEmail: trustEmail, deploymentIDs: deploymentIDs, createdAt: now)
        do {
            try await store.addPlatform(platform)
        } catch StorageError.platformExists {
            throw Refused(description: "That issuer and client id are registered already: `onthemap admin lti list`.")
        }
        try await LTIToolKeys.ensureKey(store: store, now: now)
        return platform
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
