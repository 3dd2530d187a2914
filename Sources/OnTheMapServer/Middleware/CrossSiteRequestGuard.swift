import Foundation
import HTTPTypes
import Hummingbird

/// Refuses cross-site request forgery on every request that changes something and is not
/// authenticated by a header: cookie-authenticated writes, and login and sign-up, which a
/// forged form would use to sign a visitor in as the attacker.
///
/// A browser says where a request comes from: `Sec-Fetch-Site` (every current browser, on
/// secure origins and localhost) must be `same-origin` (or `none`, typed by the user); without
/// it `Origin` must be this server's own origin (as the `Host` header names it) or one the
/// host allowed. A request with neither header does not come from a browser (the old iOS
/// clients, the SDK, curl), so no visitor's cookie can be abused through it. Bodies must be
/// JSON: the `text/plain`, form and multipart encodings are what an HTML form can send.
/// A request carrying `X-Parse-Session-Token` is left alone: a page on another origin cannot
/// add that header without a CORS preflight, which this server never grants.
struct CrossSiteRequestGuard<Context: RequestContext>: RouterMiddleware {
    /// Extra origins allowed to write, normalized as `scheme://host[:port]` (a proxy that
    /// rewrites `Host`, say).
    let allowedOrigins: Set<String>

    init(allowedOrigins: [String]) {
        self.allowedOrigins = Set(allowedOrigins.compactMap(Self.normalizedOrigin))
    }

    static var fetchSiteHeader: HTTPField.Name { HTTPField.Name("Sec-Fetch-Site")! }

    enum Refusal: Equatable {
        case crossSite(String)
        case notJSON(String)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = refusal(for: request) {
            context.logger.notice("cross-site request refused", metadata: ["reason": "\(refusal)"])
            throw Self.error(for: refusal, path: request.uri.path)
        }
        return try await next(request, context)
    }

    /// LTI's browser steps arrive as HTML form posts from the platform's pages; each is
    /// proven by what it carries (a signed token and a state bound to the browser), not by
    /// where it comes from.
    static var ltiFromPlatforms: Set<String> { ["/lti/login", "/lti/launch"] }
    /// The deep-linking picker's and the window hand-off's forms: this site's own pages,
    /// form-encoded, each carrying a one-time code.
    static var ltiOwnForms: Set<String> { ["/lti/deep-link", "/lti/window"] }
    /// A notice email's one-click stop (RFC 8058): the mail app's server posts a form to the
    /// link, proven by the token in it; no cookie is read there.
    static var oneClickStops: Set<String> { ["/api/notices/stop"] }

    func refusal(for request: Request) -> Refusal? {
        switch request.method {
        case .get, .head, .options: return nil
        default: break
        }
        if request.headers[SessionCredential.headerName] != nil { return nil }
        let path = request.uri.path
        if Self.ltiFromPlatforms.contains(path) || Self.oneClickStops.contains(path) { return nil }
        if let site = request.headers[Self.fetchSiteHeader]?.lowercased() {
            guard site == "same-origin" || site == "none" else { return .crossSite("Sec-Fetch-Site: \(site)") }
        } else if let origin = request.headers[.origin] {
            guard isOwnOrigin(origin, host: request.head.authority) else { return .crossSite("Origin: \(origin)") }
        }
        if let type = request.headers[.contentType], hasBody(request), !Self.isJSON(type), !Self.ltiOwnForms.contains(path) {
            return .notJSON(type)
        }
        return nil
    }

    private func hasBody(_ request: Request) -> Bool {
        if let length = request.headers[.contentLength] { return (Int(length) ?? 1) > 0 }
        return request.headers[.transferEncoding] != nil
    }

    static func isJSON(_ contentType: String) -> Bool {
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }

    private func isOwnOrigin(_ origin: String, host: String?) -> Bool {
        guard let normalized = Self.normalizedOrigin(origin) else { return false }
        if allowedOrigins.contains(normalized) { return true }
        guard let host, let url = URL(string: normalized), let scheme = url.scheme else { return false }
        return Self.normalizedOrigin("\(scheme)://\(host)") == normalized
    }

    /// `scheme://host[:port]` in lower case, without the scheme's default port; nil for
    /// anything else (`null`, a path, another scheme).
    static func normalizedOrigin(_ text: String) -> String? {
        guard let components = URLComponents(string: text.trimmingCharacters(in: .whitespaces)),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host?.lowercased(), !host.isEmpty,
            components.path.isEmpty || components.path == "/", components.query == nil
        else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = components.port.flatMap { $0 == defaultPort ? nil : $0 }
        return "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "")
    }

    /// The refusal in the format of the API the path belongs to. Cross-site is 403, which
    /// every old client already shows as a refusal; a non-JSON body is 415.
    static func error(for refusal: Refusal, path: String) -> any HTTPResponseError {
        let message: String
        let status: HTTPResponse.Status
        switch refusal {
        case .crossSite:
            status = .forbidden
            message = "Refused: this request came from another site. Use OnTheMap's own pages or send X-Parse-Session-Token."
        case .notJSON:
            status = .unsupportedMediaType
            message = "Send the request body as JSON (Content-Type: application/json)."
        }
        switch RouteFamily.of(path).errors {
        case .udacity: return UdacityError(status: status.code, message)
        case .parse: return ParseError(status == .forbidden ? 119 : 107, message, status: status)
        case .api, .other: return APIError(status, status == .forbidden ? "cross_site_request" : "unsupported_media_type", message)
        }
    }
}
