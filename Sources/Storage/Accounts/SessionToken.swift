import Crypto
import Foundation

/// How session tokens are kept at rest: the hex SHA-256 of the token. Tokens carry 128
/// random bits, so an unsalted fast hash is enough to make a stolen table useless, and the
/// lookup stays a primary-key equality.
public enum SessionToken {
    /// Computed on every signed-in request, so the hex is written directly (formatting each
    /// byte with `String(format:)` cost about 24 us a request).
    public static func digest(_ token: String) -> String {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var digits = [UInt8]()
        digits.reserveCapacity(64)
        for byte in SHA256.hash(data: Data(token.utf8)) {
            digits.append(hex[Int(byte >> 4)])
            digits.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: digits, as: UTF8.self)
    }
}
