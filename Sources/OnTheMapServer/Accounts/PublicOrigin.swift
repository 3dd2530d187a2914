import Foundation
import Hummingbird

/// Where people reach this server: the origin of every absolute URL it hands out (reset
/// links, a provider's redirect URI and post-logout address, and LTI URLs as they land).
///
/// `--public-url` wins. Without it the request's `Host` is used only when it names an address
/// the host allowed: `--allowed-origin`'s, or the listening address (for a loopback listener,
/// any loopback name). Any other `Host` is refused, because whoever sends a request chooses
/// its `Host`: a reset link or a redirect URI built from it would point at their site.
struct PublicOrigin: Sendable {
    /// `--public-url`'s origin.
    let configured: String?
    /// `host:port` in lower case, with the scheme's default port written out.
    let allowedAuthorities: Set<String>
    /// Listening hosts whose port is not known before start (`--port 0`): any port.
    let hostsOnAnyPort: Set<String>

    init(configuration: Configuration) {
        configured = configuration.publicOrigin
        var authorities = Set<String>()
        for origin in configuration.allowedOrigins + [configuration.publicOrigin].compactMap({ $0 }) {
            if let authority = Self.authority(ofOrigin: origin) { authorities.insert(authority) }
        }
        var anyPort = Set<String>()
        for host in Self.names(ofListeningHost: configuration.host) {
            if configuration.port == 0 { anyPort.insert(host) } else { authorities.insert("\(host):\(configuration.port)") }
        }
        allowedAuthorities = authorities
        hostsOnAnyPort = anyPort
    }

    /// Refused: the request's `Host` is not an address this server hands out links for.
    struct UnknownHost: Error, CustomStringConvertible {
        let host: String
        var description: String {
            "This server does not hand out links for the address '\(host.prefix(100))' this request was sent to. "
                + "Its host must set --public-url to the address people use (or add that address with --allowed-origin)."
        }
    }

    /// `scheme://host[:port]` for links in the answer to `request`.
    func origin(for request: Request, isHTTPS: Bool) throws(UnknownHost) -> String {
        if let configured { return configured }
        let scheme = isHTTPS ? "https" : "http"
        guard let host = request.head.authority else {
            // HTTP/1.0 without Host: nobody chose an address, so the listening one.
            guard let fallback = allowedAuthorities.sorted().first ?? hostsOnAnyPort.sorted().first else { throw UnknownHost(host: "") }
            return "\(scheme)://\(fallback)"
        }
        guard let authority = Self.normalizedAuthority(host, scheme: scheme) else { throw UnknownHost(host: host) }
        if allowedAuthorities.contains(authority) { return Self.origin(scheme: scheme, authority: authority) }
        if let name = Self.hostName(ofAuthority: authority), hostsOnAnyPort.contains(name) {
            return Self.origin(scheme: scheme, authority: authority)
        }
        throw UnknownHost(host: host)
    }

    /// A `Host` value as `host:port`, lower case: a name or IPv4 address, or a bracketed IPv6
    /// address, and an optional port. Anything else (`evil.example/#`, `a@b`, spaces) is nil.
    static func normalizedAuthority(_ text: String, scheme: String) -> String? {
        let text = text.lowercased()
        guard !text.isEmpty, text.count <= 260 else { return nil }
        var host = Substring(text)
        var port: Int?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[...close]
            let rest = text[text.index(after: close)...]
            guard host.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }), host.count > 2 else { return nil }
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = Int(rest.dropFirst()), rest.count <= 6 else { return nil }
                port = value
            }
        } else {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { return nil }
            host = parts[0]
            guard !host.isEmpty, host.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "." || $0 == "-" }) else {
                return nil
            }
            if parts.count == 2 {
                guard parts[1].count <= 5, let value = Int(parts[1]) else { return nil }
                port = value
            }
        }
        let effective = port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(effective) else { return nil }
        return "\(host):\(effective)"
    }

    static func authority(ofOrigin origin: String) -> String? {
        guard let normalized = Configuration.normalizedOrigin(origin), let components = URLComponents(string: normalized),
            let scheme = components.scheme, let host = components.host
        else { return nil }
        let hostText = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return normalizedAuthority(hostText + (components.port.map { ":\($0)" } ?? ""), scheme: scheme)
    }

    /// The names a `Host` may give for the listening address: none when listening on every
    /// address (`0.0.0.0`, `::`), which names no host; every loopback name for a loopback one.
    static func names(ofListeningHost host: String) -> [String] {
        let host = host.lowercased()
        switch host {
        case "", "0.0.0.0", "::", "[::]": return []
        case "127.0.0.1", "localhost", "::1", "[::1]": return ["127.0.0.1", "localhost", "[::1]"]
        default: return [host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host]
        }
    }

    private static func hostName(ofAuthority authority: String) -> String? {
        guard let colon = authority.lastIndex(of: ":") else { return nil }
        return String(authority[..<colon])
    }

    /// The origin as a browser writes it: the scheme's default port left out.
    private static func origin(scheme: String, authority: String) -> String {
        let defaultSuffix = scheme == "https" ? ":443" : ":80"
        return "\(scheme)://" + (authority.hasSuffix(defaultSuffix) ? String(authority.dropLast(defaultSuffix.count)) : authority)
    }
}
