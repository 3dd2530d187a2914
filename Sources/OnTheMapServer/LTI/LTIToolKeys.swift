import CryptoExtras
import Foundation
import JWTKit
import OnTheMapModels
import Storage
import Synchronization

/// The tool's own RSA keys (LTI requires RS256): generated once and kept in the database,
/// so every server of a deployment signs with the same key and publishes the same set at
/// `/lti/jwks`. `rotate` makes a new signing key; the old one stays published for
/// `retiredKeyLifetime`, long enough for any token it signed to have expired.
public final class LTIToolKeys: Sendable {
    static let retiredKeyLifetime: TimeInterval = 7 * 86_400
    /// Keys are read again after this long, so a rotation on one server reaches the others.
    static let reloadInterval: TimeInterval = 60

    private struct Loaded: Sendable {
        var signing: LTIToolKey
        var published: [LTIToolKey]
        var loadedAt: Date
    }

    private let store: any LTIRepository
    private let clock: WallClock
    private let loaded = Mutex<Loaded?>(nil)

    init(store: any LTIRepository, clock: WallClock) {
        self.store = store
        self.clock = clock
    }

    /// A new 2048-bit RSA key as PKCS#8 PEM, with a random key id.
    static func generate(now: Date) throws -> LTIToolKey {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        return LTIToolKey(kid: Tokens.randomHex(bytes: 8), privateKeyPEM: key.pemRepresentation, createdAt: now)
    }

    /// Makes the first key when there is none.
    public static func ensureKey(store: any LTIRepository, now: Date = Date()) async throws {
        if try await store.ltiToolKeys().contains(where: { $0.retiredAt == nil }) { return }
        try await store.addToolKey(try generate(now: now), retiringOthersAt: now)
    }

    /// A new signing key; the previous one is retired (still published for a week).
    /// Returns the new key's id.
    public static func rotate(store: any LTIRepository, now: Date = Date()) async throws -> String {
        let key = try generate(now: now)
        try await store.addToolKey(key, retiringOthersAt: now)
        try await store.deleteToolKeys(retiredBefore: now.addingTimeInterval(-retiredKeyLifetime))
        return key.kid
    }

    private func current() async throws -> Loaded {
        let now = clock.now()
        if let loaded = loaded.withLock({ $0 }), now.timeIntervalSince(loaded.loadedAt) < Self.reloadInterval { return loaded }
        try await Self.ensureKey(store: store, now: now)
        let keys = try await store.ltiToolKeys()
        let cutoff = now.addingTimeInterval(-Self.retiredKeyLifetime)
        guard let signing = keys.first(where: { $0.retiredAt == nil }) else { throw LTIProblem.internalKeyMissing }
        let fresh = Loaded(signing: signing, published: keys.filter { ($0.retiredAt ?? now) > cutoff }, loadedAt: now)
        loaded.withLock { $0 = fresh }
        return fresh
    }

    /// The public keys as a JSON Web Key Set.
    func jwks() async throws -> Data {
        struct Key: Encodable {
            let kty = "RSA"
            let alg = "RS256"
            let use = "sig"
            let kid: String
            let n: String
            let e: String
        }
        struct Set: Encodable { let keys: [Key] }
        var keys: [Key] = []
        for key in try await current().published {
            let primitives = try Insecure.RSA.PrivateKey(pem: key.privateKeyPEM).publicKey.getKeyPrimitives()
            keys.append(Key(kid: key.kid, n: Tokens.base64URL(primitives.modulus), e: Tokens.base64URL(primitives.publicExponent)))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(Set(keys: keys))
    }

    /// The payload signed with the current key (RS256, its `kid` in the header).
    func sign(_ payload: some JWTPayload) async throws -> String {
        let key = try await current().signing
        let collection = JWTKeyCollection()
        await collection.add(
            rsa: try Insecure.RSA.PrivateKey(pem: key.privateKeyPEM), digestAlgorithm: .sha256, kid: JWKIdentifier(string: key.kid))
        return try await collection.sign(payload, kid: JWKIdentifier(string: key.kid))
    }
}
