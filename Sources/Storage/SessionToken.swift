import Crypto
import Foundation

/// How session tokens are kept at rest: the hex SHA-256 of the token. Tokens carry 128
/// random bits, so an unsalted fast hash is enough to make a stolen table useless, and the
/// lookup stays a primary-key equality.
public enum SessionToken {
    public static func digest(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
