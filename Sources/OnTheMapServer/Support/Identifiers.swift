import Foundation
import OnTheMapModels

/// Random identifiers in the formats old clients have seen.
enum Identifiers {
    private static let alphanumerics = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// Parse objectId: 10 characters from `[A-Za-z0-9]`.
    static func objectId() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<10).map { _ in alphanumerics.randomElement(using: &generator)! })
    }

    /// Udacity account key: 10 digits, no leading zero (some clients parse it as a number).
    static func accountKey() -> String {
        String(UInt64.random(in: 1_000_000_000...9_999_999_999))
    }

    /// Udacity session id: 10-digit Unix time, `S`, 32 lowercase hex characters (128 random bits).
    static func sessionId(now: Date) -> String {
        String(format: "%010d", Int(now.timeIntervalSince1970)) + "S" + Tokens.randomHex(bytes: 16)
    }
}
