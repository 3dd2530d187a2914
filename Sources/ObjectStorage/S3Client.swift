import Crypto
import Foundation
import OutboundHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where a bucket is and how to sign for it. Path-style addressing
/// (`<endpoint>/<bucket>/<key>`), which every self-hosted S3-compatible store accepts.
public struct S3Configuration: Sendable, CustomStringConvertible {
    /// `http(s)://host[:port]`, no path. AWS itself: `https://s3.<region>.amazonaws.com`.
    public var endpoint: URL
    public var region: String
    public var bucket: String
    public var credentials: AWSCredentials

    public init(endpoint: URL, region: String, bucket: String, credentials: AWSCredentials) {
        self.endpoint = endpoint
        self.region = region
        self.bucket = bucket
        self.credentials = credentials
    }

    /// Bucket names as S3 allows them: 3 to 63 of lowercase letters, digits, dots and hyphens.
    public static func isValidBucket(_ name: String) -> Bool {
        (3...63).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2E || byte == 0x2D
            } && name.first != "." && name.first != "-"
    }

    public var description: String { "s3 \(endpoint.absoluteString) bucket \(bucket) region \(region)" }
}

/// An object as a listing or a HEAD shows it.
public struct S3Object: Sendable, Equatable {
    public var key: String
    public var size: Int
    /// Without quotes. For a single-part PUT, the hex MD5 of the body.
    public var etag: String
    public var lastModified: Date?
    public var contentType: String?
}

public struct S3Error: Error, CustomStringConvertible, Equatable {
    public var status: Int
    /// S3's error code (`NoSuchKey`, `AccessDenied`, ...), when the body had one.
    public var code: String?
    public var message: String?
    public var operation: String

    public var description: String {
        "S3 \(operation) failed: HTTP \(status)\(code.map { " \($0)" } ?? "")\(message.map { ": \($0)" } ?? "")"
    }
}

/// The few S3 operations photo storage needs, over URLSession, each request signed with
/// SigV4 (`x-amz-content-sha256` carries the real body hash, so the store checks it).
public final class S3Client: Sendable {
    public let configuration: S3Configuration
    private let signer: SigV4Signer
    /// The server's outbound client: the deadline and the error mapping are its.
    private let client: OutboundClient

    public init(configuration: S3Configuration, timeout: TimeInterval = 30, maximumConnections: Int = 16) {
        self.configuration = configuration
        self.signer = SigV4Signer(credentials: configuration.credentials, region: configuration.region, service: "s3")
        self.client = OutboundClient(
            userAgent: "OnTheMap/1.0 (self-hosted OnTheMap server; photo store)", timeout: timeout,
            maximumConnectionsPerHost: maximumConnections)
    }

    // MARK: Operations

    /// Stores `data` at `key` (S3 makes a PUT visible only once the whole body arrived).
    /// `Content-MD5` makes the store refuse a body damaged on the way. Returns the ETag.
    @discardableResult
    public func putObject(key: String, data: Data, contentType: String) async throws -> String {
        let md5 = Data(Insecure.MD5.hash(data: data)).base64EncodedString()
        let (response, body) = try await send(
            "PUT", key: key, body: data,
            headers: [("content-type", contentType), ("content-md5", md5)], operation: "PUT")
        guard (200..<300).contains(response.status) else { throw error(response, body, "PUT \(key)") }
        return Self.unquote(response.header("ETag") ?? "")
    }

    /// The object's bytes and content type; nil when there is no such key.
    public func getObject(key: String) async throws -> (data: Data, object: S3Object)? {
        let (response, body) = try await send("GET", key: key, operation: "GET")
        if response.status == 404 { return nil }
        guard (200..<300).contains(response.status) else { throw error(response, body, "GET \(key)") }
        return (body, object(key: key, response, size: body.count))
    }

    /// Size, ETag and date of an object; nil when there is no such key.
    public func headObject(key: String) async throws -> S3Object? {
        let (response, body) = try await send("HEAD", key: key, operation: "HEAD")
        if response.status == 404 { return nil }
        guard (200..<300).contains(response.status) else { throw error(response, body, "HEAD \(key)") }
        let size = Int(response.header("Content-Length") ?? "") ?? 0
        return object(key: key, response, size: size)
    }

    /// Deletes an object; a missing one is not an error (S3 answers 204 either way).
    public func deleteObject(key: String) async throws {
        let (response, body) = try await send("DELETE", key: key, operation: "DELETE")
        guard (200..<300).contains(response.status) || response.status == 404 else { throw error(response, body, "DELETE \(key)") }
    }

    /// One page of ListObjectsV2 under `prefix`; pass the returned token for the next page.
    public func listObjects(prefix: String, continuationToken: String? = nil, maxKeys: Int = 1000) async throws
        -> (objects: [S3Object], nextToken: String?)
    {
        var query: [(name: String, value: String)] = [("list-type", "2"), ("prefix", prefix), ("max-keys", String(maxKeys))]
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        let (response, body) = try await send("GET", key: nil, query: query, operation: "LIST")
        guard (200..<300).contains(response.status) else { throw error(response, body, "LIST \(prefix)") }
        let parsed = ListBucketResultParser.parse(body)
        return (parsed.objects, parsed.truncated ? parsed.nextToken : nil)
    }

    /// Every object under `prefix`, page after page.
    public func listAllObjects(prefix: String) async throws -> [S3Object] {
        var all: [S3Object] = []
        var token: String? = nil
        repeat {
            let page = try await listObjects(prefix: prefix, continuationToken: token)
            all += page.objects
            token = page.nextToken
        } while token != nil
        return all
    }

    /// A URL anyone may GET for `expires` seconds, without credentials.
    public func presignedGetURL(key: String, expires: Int, date: Date = Date()) -> URL {
        let path = objectPath(key)
        let query = signer.presignedQuery(method: "GET", host: hostHeader, path: path, expires: expires, date: date)
        return url(path: path, query: query)
    }

    // MARK: Requests

    private var hostHeader: String {
        let endpoint = configuration.endpoint
        guard let host = endpoint.host else { return "" }
        let scheme = endpoint.scheme?.lowercased()
        if let port = endpoint.port, !(scheme == "http" && port == 80), !(scheme == "https" && port == 443) { return "\(host):\(port)" }
        return host
    }

    private func objectPath(_ key: String?) -> String {
        guard let key else { return "/\(configuration.bucket)" }
        return "/\(configuration.bucket)/\(key)"
    }

    private func url(path: String, query: [(name: String, value: String)]) -> URL {
        var text = configuration.endpoint.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += SigV4Signer.uriEncode(path, keepSlash: true)
        if !query.isEmpty {
            text += "?" + query.map { "\(SigV4Signer.uriEncode($0.name))=\(SigV4Signer.uriEncode($0.value))" }.joined(separator: "&")
        }
        return URL(string: text)!
    }

    private func send(
        _ method: String, key: String?, query: [(name: String, value: String)] = [], body: Data? = nil,
        headers extra: [(name: String, value: String)] = [], operation: String
    ) async throws -> (OutboundClient.Reply, Data) {
        let path = objectPath(key)
        let date = Date()
        let payloadHash = SigV4Signer.sha256Hex(body ?? Data())
        var headers: [(name: String, value: String)] = [
            ("host", hostHeader), ("x-amz-date", SigV4Signer.timestamp(date)), ("x-amz-content-sha256", payloadHash),
        ]
        if let token = configuration.credentials.sessionToken { headers.append(("x-amz-security-token", token)) }
        headers += extra
        let toSign = SigV4Signer.Request(method: method, path: path, query: query, headers: headers, payloadHash: payloadHash)
        var sent = headers.filter { $0.name != "host" }
        sent.append(("Authorization", signer.authorization(toSign, date: date)))
        if let body { sent.append(("Content-Length", String(body.count))) }
        let reply: OutboundClient.Reply
        do {
            reply = try await client.send(.init(method: method, url: url(path: path, query: query), headers: sent, body: body))
        } catch let failure as OutboundClient.Failure {
            throw S3Error(status: 0, code: nil, message: failure.description, operation: operation)
        }
        return (reply, reply.body)
    }

    private func object(key: String, _ response: OutboundClient.Reply, size: Int) -> S3Object {
        S3Object(
            key: key, size: size, etag: Self.unquote(response.header("ETag") ?? ""),
            lastModified: response.header("Last-Modified").flatMap(Self.httpDate),
            contentType: response.header("Content-Type")
        )
    }

    private func error(_ response: OutboundClient.Reply, _ body: Data, _ operation: String) -> S3Error {
        let parsed = ErrorBodyParser.parse(body)
        return S3Error(status: response.status, code: parsed.code, message: parsed.message, operation: operation)
    }

    static func unquote(_ text: String) -> String {
        var text = text
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
        return text
    }

    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
