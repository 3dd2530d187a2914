import Foundation
import HTTPTypes
import Hummingbird

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Address blocks (CIDR) of the reverse proxies in front of the server. Only a request whose
/// peer is one of them has its `Forwarded` / `X-Forwarded-For` / `X-Forwarded-Proto` believed:
/// anyone else could write those headers to pose as another client or dodge a rate limit.
struct TrustedProxies: Sendable {
    struct Block: Sendable, Equatable {
        let bytes: [UInt8]
        let prefixLength: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefixLength
            for index in 0..<bytes.count where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if address[index] & mask != bytes[index] & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    let blocks: [Block]

    /// No proxy trusted: every peer is the client.
    static let none = TrustedProxies(blocks: [])

    private init(blocks: [Block]) {
        self.blocks = blocks
    }

    /// Parses `10.0.0.0/8`, `192.168.1.7`, `::1`, `fd00::/8`; throws on anything else.
    init(_ texts: [String]) throws {
        blocks = try texts.map { text in
            let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", maxSplits: 1).map(String.init)
            guard let bytes = parts.first.flatMap(Self.addressBytes) else {
                throw ConfigurationError("Trusted proxy '\(text)' is not an IP address or CIDR block (like 10.0.0.0/8 or fd00::/8).")
            }
            let length = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
            guard let length, (0...(bytes.count * 8)).contains(length) else {
                throw ConfigurationError("Trusted proxy '\(text)' has an invalid prefix length.")
            }
            return Block(bytes: bytes, prefixLength: length)
        }
    }

    var isEmpty: Bool { blocks.isEmpty }

    func contains(_ address: String) -> Bool {
        guard let bytes = Self.addressBytes(address) else { return false }
        return blocks.contains { $0.contains(bytes) }
    }

    /// An IPv4 address as 4 bytes, IPv6 as 16 (an IPv4-mapped IPv6 address as its IPv4 bytes).
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes.prefix(10).allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes.suffix(4)) }
        return bytes
    }
}

/// Who sent a request and over what, as far as the server can honestly tell: the peer, or
/// behind a trusted proxy the address and scheme the proxy reports.
struct ForwardedClient: Sendable, Equatable {
    var address: String
    var isHTTPS: Bool

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let forwarded = HTTPField.Name("Forwarded")!

    /// Walks the proxy chain from the nearest hop outward and stops at the first address that
    /// is not a trusted proxy: entries further left were written by the client and prove nothing.
    static func resolve(peer: String, headers: HTTPFields, trusted: TrustedProxies) -> ForwardedClient {
        guard trusted.contains(peer) else { return ForwardedClient(address: peer, isHTTPS: false) }
        let hops: [String]
        var proto: String?
        if let forwarded = headers[values: Self.forwarded].nonEmpty {
            let elements = forwarded.joined(separator: ",").split(separator: ",").map { parameters($0) }
            hops = elements.compactMap { $0["for"].map(hostOnly) }
            proto = elements.first?["proto"]
        } else {
            hops = headers[values: Self.forwardedFor].joined(separator: ",").split(separator: ",")
                .map { hostOnly($0.trimmingCharacters(in: .whitespaces)) }
            proto = headers[Self.forwardedProto]?.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        var address = peer
        for hop in hops.reversed() {
            // "unknown" or an obfuscated name: nothing further left can be checked.
            guard TrustedProxies.addressBytes(hop) != nil else { break }
            address = hop
            if !trusted.contains(hop) { break }
        }
        return ForwardedClient(address: address, isHTTPS: proto?.lowercased() == "https")
    }

    /// `for=192.0.2.60;proto=https` as a dictionary (RFC 7239), keys in lower case.
    private static func parameters(_ element: Substring) -> [String: String] {
        var result: [String: String] = [:]
        for pair in element.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let value = parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            result[parts[0].trimmingCharacters(in: .whitespaces).lowercased()] = value
        }
        return result
    }

    /// `[2001:db8::1]:4711` -> `2001:db8::1`; `192.0.2.1:80` -> `192.0.2.1`.
    private static func hostOnly(_ text: String) -> String {
        if text.hasPrefix("["), let end = text.firstIndex(of: "]") { return String(text[text.index(after: text.startIndex)..<end]) }
        if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") { return String(text[..<colon]) }
        return text
    }
}

/// Puts the real client address and scheme in the context before any route, rate limit or
/// log line reads them.
struct ForwardedClientMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let trusted: TrustedProxies
    /// `https://…` when the host set a public URL: every request counts as HTTPS.
    let publicURLIsHTTPS: Bool

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws
        -> Response
    {
        var context = context
        if !trusted.isEmpty || publicURLIsHTTPS {
            let client = ForwardedClient.resolve(peer: context.clientAddress, headers: request.headers, trusted: trusted)
            context.clientAddress = client.address
            context.isHTTPS = client.isHTTPS || publicURLIsHTTPS
        }
        context.logger[metadataKey: "client"] = .string(context.clientAddress)
        return try await next(request, context)
    }
}

extension Array {
    fileprivate var nonEmpty: Self? { isEmpty ? nil : self }
}
