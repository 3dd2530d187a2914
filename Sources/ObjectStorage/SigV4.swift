import Crypto
import Foundation

/// Keys for AWS Signature Version 4. Never printed: `description` masks the secret.
public struct AWSCredentials: Sendable, CustomStringConvertible {
    public var accessKeyID: String
    public var secretAccessKey: String
    /// Temporary credentials (STS) carry a session token, sent as `x-amz-security-token`.
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String { "AWSCredentials(\(accessKeyID), secret: <redacted>)" }
}

/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`), as documented in "Signing AWS API requests"
/// and "Authenticating Requests: Using Query Parameters": a canonical request, a string to
/// sign, a key derived by an HMAC chain from the secret, date, region and service.
/// Pure functions of their input; `SigV4Tests` checks them against the published vectors.
public struct SigV4Signer: Sendable {
    public let credentials: AWSCredentials
    public let region: String
    public let service: String

    public static let algorithm = "AWS4-HMAC-SHA256"
    /// The payload hash S3 accepts when the body is not hashed (presigned URLs).
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"

    public init(credentials: AWSCredentials, region: String, service: String) {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// A request to sign. `path` is decoded (`/my photo.jpg`); the signer encodes it.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var query: [(name: String, value: String)]
        public var headers: [(name: String, value: String)]
        /// Lowercase hex SHA-256 of the body, or `unsignedPayload`.
        public var payloadHash: String

        public init(
            method: String, path: String, query: [(name: String, value: String)] = [],
            headers: [(name: String, value: String)], payloadHash: String
        ) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.payloadHash = payloadHash
        }
    }

    // MARK: The steps

    /// `20150830T123600Z` (the `X-Amz-Date` value).
    public static func timestamp(_ date: Date) -> String {
        let parts = utcParts(date)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second)
    }

    /// `20150830` (the credential scope's date).
    public static func day(_ date: Date) -> String { String(timestamp(date).prefix(8)) }

    public func scope(_ date: Date) -> String { "\(Self.day(date))/\(region)/\(service)/aws4_request" }

    /// RFC 3986 percent-encoding of everything but the unreserved characters; `/` kept
    /// when `keepSlash` (paths).
    public static func uriEncode(_ text: String, keepSlash: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepSlash:
                out.append("/")
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    public static func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
        let pairs: [(String, String)] = query.map { item in (uriEncode(item.name), uriEncode(item.value)) }
        let sorted = pairs.sorted { (a: (String, String), b: (String, String)) -> Bool in a.0 == b.0 ? a.1 < b.1 : a.0 < b.0 }
        return sorted.map { item in item.0 + "=" + item.1 }.joined(separator: "&")
    }

    /// Lowercase names, sorted; values trimmed with inner runs of spaces collapsed; a name
    /// given twice has its values joined by commas in the order given.
    static func canonicalHeaders(_ headers: [(name: String, value: String)]) -> (text: String, signed: String) {
        var merged: [String: [String]] = [:]
        for header in headers {
            let value = header.value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            merged[header.name.lowercased(), default: []].append(value)
        }
        let names = merged.keys.sorted()
        let text = names.map { "\($0):\(merged[$0]!.joined(separator: ","))\n" }.joined()
        return (text, names.joined(separator: ";"))
    }

    public func canonicalRequest(_ request: Request) -> String {
        let headers = Self.canonicalHeaders(request.headers)
        let path = request.path.isEmpty ? "/" : Self.uriEncode(request.path, keepSlash: true)
        return [request.method, path, Self.canonicalQuery(request.query), headers.text, headers.signed, request.payloadHash]
            .joined(separator: "\n")
    }

    public func stringToSign(_ request: Request, date: Date) -> String {
        [Self.algorithm, Self.timestamp(date), scope(date), Self.hex(SHA256.hash(data: Data(canonicalRequest(request).utf8)))]
            .joined(separator: "\n")
    }

    public func signingKey(_ date: Date) -> SymmetricKey {
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [Self.day(date), region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return key
    }

    public func signature(_ request: Request, date: Date) -> String {
        Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign(request, date: date).utf8), using: signingKey(date)))
    }

    /// The `Authorization` header value for a request whose headers already hold `host`
    /// and `x-amz-date` (and whatever else is to be signed).
    public func authorization(_ request: Request, date: Date) -> String {
        let signed = Self.canonicalHeaders(request.headers).signed
        return
            "\(Self.algorithm) Credential=\(credentials.accessKeyID)/\(scope(date)), SignedHeaders=\(signed), Signature=\(signature(request, date: date))"
    }

    /// Query-string authentication: the query items to add to `request.query` (which must
    /// not already hold X-Amz-*), signing only the `host` header, valid `expires` seconds.
    public func presignedQuery(
        method: String, host: String, path: String, query: [(name: String, value: String)] = [],
        expires: Int, date: Date
    ) -> [(name: String, value: String)] {
        var items = query
        items.append(("X-Amz-Algorithm", Self.algorithm))
        items.append(("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope(date))"))
        items.append(("X-Amz-Date", Self.timestamp(date)))
        items.append(("X-Amz-Expires", String(expires)))
        if let token = credentials.sessionToken { items.append(("X-Amz-Security-Token", token)) }
        items.append(("X-Amz-SignedHeaders", "host"))
        let request = Request(method: method, path: path, query: items, headers: [("host", host)], payloadHash: Self.unsignedPayload)
        items.append(("X-Amz-Signature", signature(request, date: date)))
        return items
    }

    // MARK: Helpers

    public static func hex<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func sha256Hex(_ data: Data) -> String { hex(SHA256.hash(data: data)) }

    private static func utcParts(_ date: Date) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return (c.year ?? 1970, c.month ?? 1, c.day ?? 1, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }
}
