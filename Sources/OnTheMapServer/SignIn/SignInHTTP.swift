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
        client = OutboundClient(userAgent: "OnTheMap/1.0 (self-hosted OnTheMap server; sign-in)", timeout: timeout, maximumConnectionsPerHost: 4)
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
            return SignInHTTPReply(status: reply.status, body: reply.body,
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

    /// `base` with these query fields added.
    static func url(_ base: URL, adding fields: [(String, String)]) -> URL {
        var text = base.absoluteString
        text += (base.query == nil ? "?" : "&") + encode(fields)
        return URL(string: text) ?? base
    }
}
