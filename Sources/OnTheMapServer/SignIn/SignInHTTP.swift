import Foundation
import OutboundHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the sign-in feature asks of the network: a GET or a form POST with a deadline.
/// A protocol so tests can stand in for a provider that cannot be run (or misbehaves).
protocol SignInHTTPClient: Sendable {
    func send(_ request: SignInHTTPRequest) async throws -> SignInHTTPReply
}

struct SignInHTTPRequest: Sendable {
    var method = "GET"
    var url: URL
    var headers: [String: String] = [:]
    /// `application/x-www-form-urlencoded` fields (POST).
    var form: [(String, String)]? = nil
    /// A JSON body (POST), instead of a form.
    var json: Data? = nil
}

struct SignInHTTPReply: Sendable {
    var status: Int
    var body: Data
    /// Header names in lower case.
    var headers: [String: String] = [:]
}

/// A provider could not be reached or answered something unusable; its text never holds a
/// token or secret (URLs with them are not included).
struct ProviderUnavailable: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `SignInHTTPClient` over the server's outbound client (one deadline, one error mapping).
final class URLSessionSignInClient: SignInHTTPClient {
    private let client: OutboundClient

    init(timeout: TimeInterval = 10) {
        client = OutboundClient(
            userAgent: "OnTheMap/1.0 (self-hosted OnTheMap server; sign-in)", timeout: timeout, maximumConnectionsPerHost: 4)
    }

    func send(_ request: SignInHTTPRequest) async throws -> SignInHTTPReply {
        var headers: [(name: String, value: String)] = request.headers["Accept"] == nil ? [("Accept", "application/json")] : []
        headers += request.headers.map { ($0.key, $0.value) }
        var body: Data?
        if let form = request.form {
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
            body = Data(FormEncoding.encode(form).utf8)
        } else if let json = request.json {
            headers.append(("Content-Type", "application/json"))
            body = json
        }
        do {
            let reply = try await client.send(.init(method: request.method, url: request.url, headers: headers, body: body))
            return SignInHTTPReply(
                status: reply.status, body: reply.body,
                headers: Dictionary(reply.headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first }))
        } catch let failure as OutboundClient.Failure {
            // The failure names no URL (one can carry a token); the host says which provider.
            throw ProviderUnavailable("\(request.url.host ?? "provider"): \(failure.description)")
        }
    }
}

enum FormEncoding {
    /// RFC 3986 unreserved characters stay; everything else is percent-encoded.
    static let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// The fields of an `application/x-www-form-urlencoded` text (a form body, or a URL's
    /// query), in order, as browsers and platforms encode them: `&`-separated `name=value`
    /// pairs, `+` a space and `%XX` a byte of UTF-8; a `%` not followed by two hex digits
    /// stays as it is, and bytes that are not UTF-8 read as U+FFFD (WHATWG URL, §5.1).
    static func decode(_ text: some StringProtocol) -> [(String, String)] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (unescape(parts[0]), parts.count > 1 ? unescape(parts[1]) : "")
        }
    }

    /// One name or value of a form-encoded text (see `decode`).
    static func unescape(_ text: some StringProtocol) -> String {
        let bytes = Array(text.utf8)
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                decoded.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 2
            } else {
                decoded.append(byte)
            }
            index += 1
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `base` with these query fields added.
    static func url(_ base: URL, adding fields: [(String, String)]) -> URL {
        var text = base.absoluteString
        text += (base.query == nil ? "?" : "&") + encode(fields)
        return URL(string: text) ?? base
    }
}
