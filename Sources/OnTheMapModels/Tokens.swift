import Foundation

/// Random tokens and their comparison, for the server and the CLI alike (one home).
public enum Tokens {
    /// `count` bytes from the system's secure random source.
    public static func randomBytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// 32 random bytes, base64url: a state, nonce, PKCE verifier or one-time code (43 characters).
    public static func random() -> String {
        base64URL(randomBytes(32))
    }

    /// `bytes` random bytes as lowercase hex.
    public static func randomHex(bytes: Int) -> String {
        randomBytes(bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// RFC 4648 §5, without padding.
    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func base64URLDecode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    /// Whether two secrets are equal, looking at every byte of the longer one whatever
    /// differs, so the time taken does not reveal how much of a guess was right.
    public static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}
