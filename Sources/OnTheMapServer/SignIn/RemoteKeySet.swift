import Foundation
import JWTKit
import OnTheMapModels
import Synchronization

/// Someone else's signing keys, published as a JSON Web Key Set at a URL (an OpenID
/// provider's `jwks_uri`, an LTI platform's key set URL), and the signature check of a token
/// against them. The set is cached; a token naming a key the set lacks fetches it again (the
/// signer rotated its keys), at most once every `refetchInterval`.
final class RemoteKeySet: Sendable {
    /// Signature algorithms accepted; never `none` nor a shared-secret HMAC.
    static let acceptedAlgorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]

    /// Why a token's signature was not accepted (no token text in it).
    struct Refusal: Error, Equatable, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private struct Cache: Sendable {
        var keys: JWTKeyCollection?
        var kids: Set<String> = []
        var fetchedAt: Date = .distantPast
    }

    private let http: any SignInHTTPClient
    private let refetchInterval: TimeInterval
    private let cache = Mutex(Cache())

    init(http: any SignInHTTPClient, refetchInterval: TimeInterval = 30) {
        self.http = http
        self.refetchInterval = refetchInterval
    }

    private struct Header: Decodable {
        let alg: String?
        let kid: String?
    }

    /// The token's payload, once its signature verifies with one of the signer's keys.
    /// Throws `Refusal` for a token that is not accepted, `ProviderUnavailable` when the set
    /// cannot be fetched. `location`: where the set is, asked only when it is fetched
    /// (discovery may name it).
    func verify<Payload: JWTPayload>(
        _ token: String, as payload: Payload.Type, now: Date,
        location: () async throws -> URL
    ) async throws -> Payload {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, token.utf8.count <= 16_384,
            let headerData = Tokens.base64URLDecode(String(parts[0])),
            let header = try? JSONDecoder().decode(Header.self, from: headerData)
        else { throw Refusal("not a signed JWT") }
        guard let alg = header.alg, Self.acceptedAlgorithms.contains(alg) else {
            throw Refusal("algorithm \(header.alg.map { String($0.prefix(16)) } ?? "missing") is not accepted")
        }
        let keys = try await keys(for: header.kid, now: now, location: location)
        do {
            // A token without `kid` is tried against each of the signer's keys.
            return try await keys.verify(token, as: Payload.self, iteratingKeys: header.kid == nil)
        } catch {
            throw Refusal("signature does not verify")
        }
    }

    /// The signer's keys, fetched again when the token names a key we do not have.
    private func keys(for kid: String?, now: Date, location: () async throws -> URL) async throws -> JWTKeyCollection {
        let state = cache.withLock { $0 }
        if let keys = state.keys, kid.map({ state.kids.contains($0) }) ?? true { return keys }
        if state.keys != nil, now.timeIntervalSince(state.fetchedAt) < refetchInterval {
            throw Refusal("unknown signing key")
        }
        let reply = try await http.send(SignInHTTPRequest(url: try await location()))
        guard reply.status == 200 else { throw ProviderUnavailable("JWKS answered HTTP \(reply.status)") }
        let collection = JWTKeyCollection()
        let jwks: JWKS
        do {
            jwks = try JSONDecoder().decode(JWKS.self, from: reply.body)
        } catch {
            throw ProviderUnavailable("JWKS is not a JSON Web Key Set")
        }
        var kids: Set<String> = []
        for key in jwks.keys {
            // Keys of kinds jwt-kit cannot use are skipped rather than failing every token.
            guard (try? await collection.add(jwk: key)) != nil else { continue }
            if let id = key.keyIdentifier?.string { kids.insert(id) }
        }
        cache.withLock { $0 = Cache(keys: collection, kids: kids, fetchedAt: now) }
        if let kid, !kids.contains(kid) { throw Refusal("unknown signing key") }
        return collection
    }
}
