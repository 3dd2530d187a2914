import Crypto
import Foundation
import HummingbirdBcrypt

/// bcrypt with pass phrases of any length. bcrypt reads at most 72 bytes and stops at a NUL,
/// so every new hash is of the base64 SHA-256 of the password (44 bytes, no NUL) and is
/// marked `sha256+` so the scheme comes from the stored hash, never from the input: every
/// byte of a long pass phrase counts, and a 44-character string that happens to equal the
/// digest does not log in. Hashes made before the scheme (plain bcrypt, passwords of at
/// most 72 bytes) keep working and refuse anything longer instead of truncating it.
/// Both functions are slow: call them off the event loops.
enum Passwords {
    static let bcryptInputLimit = 72
    /// Long enough for any pass phrase; the cap only bounds the work one request can ask for.
    static let maximumBytes = 1024
    static let prehashedMarker = "sha256+"

    static func hash(_ password: String, cost: UInt8) -> String {
        prehashedMarker + Bcrypt.hash(digest(password), cost: cost)
    }

    static func verify(_ password: String, hash: String) -> Bool {
        if hash.hasPrefix(prehashedMarker) {
            return Bcrypt.verify(digest(password), hash: String(hash.dropFirst(prehashedMarker.count)))
        }
        let bytes = password.utf8
        guard bytes.count <= bcryptInputLimit, !bytes.contains(0) else { return false }
        return Bcrypt.verify(password, hash: hash)
    }

    private static func digest(_ password: String) -> String {
        Data(SHA256.hash(data: Data(password.utf8))).base64EncodedString()
    }
}
