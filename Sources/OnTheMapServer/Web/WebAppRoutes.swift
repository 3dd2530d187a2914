import Foundation
import WebApp
import HTTPTypes
import Hummingbird
import Logging

/// The browser app: static files from `Public/`, Leaflet from Debian's packages (or a CDN),
/// a tiny `/config.json` for the page, and security headers on everything it serves.
public struct WebAppRoutes: Sendable {
    /// Where Debian's `libjs-leaflet` and `libjs-leaflet.markercluster` install their files.
    public static let debianLeafletDirectory = "/usr/share/javascript/leaflet"
    /// Versions asked of the CDN when Debian's copy is missing (npm package layout, `dist/`).
    static let cdnLeafletVersion = "1.9.4"
    static let cdnMarkerClusterVersion = "1.5.3"

    let configuration: Configuration
    let logger: Logger
    /// Folder holding index.html and the rest of the web app.
    public let publicDirectory: String
    /// Debian's Leaflet folder when both packages are installed; nil means redirect to the CDN.
    public let leafletDirectory: String?

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.publicDirectory = configuration.publicDirectory.flatMap { $0.isEmpty ? nil : $0 } ?? WebAppFiles.bundledDirectory()
        let fileManager = FileManager.default
        let debian = Self.debianLeafletDirectory
        if fileManager.fileExists(atPath: debian + "/leaflet.min.js"),
           fileManager.fileExists(atPath: debian + "/leaflet.markercluster.min.js") {
            self.leafletDirectory = debian
        } else {
            self.leafletDirectory = nil
        }
    }

    /// Adds the web app to the router. Call it after the API routes: its middleware only
    /// handles requests no route answered (plus the routes it adds itself).
    public func register(on router: Router<AppRequestContext>) {
        if let leafletDirectory {
            logger.info("web app", metadata: ["public": "\(publicDirectory)", "leaflet": "\(leafletDirectory)"])
        } else {
            logger.info("web app", metadata: ["public": "\(publicDirectory)", "leaflet": "redirect to \(configuration.leafletCDN)"])
        }
        router.add(middleware: SecurityHeadersMiddleware(contentSecurityPolicy: contentSecurityPolicy))
        let revalidate = CacheControl([(MediaType(type: .any), [.noCache])])
        router.add(middleware: FileMiddleware<AppRequestContext, LocalFileSystem>(
            publicDirectory, cacheControl: revalidate, searchForIndexHtml: true, logger: logger
        ).withAdditionalMediaTypes(forFileExtensions: [
            "geojson": MediaType(type: .application, subType: "geo+json"),
            "mjs": MediaType(type: .application, subType: "javascript"),
        ]))

        if let leafletDirectory {
            router.add(middleware: FileMiddleware<AppRequestContext, LocalFileSystem>(
                leafletDirectory, urlBasePath: "/vendor/leaflet",
                cacheControl: CacheControl([(MediaType(type: .any), [.public, .maxAge(86400)])]),
                logger: logger
            ))
        } else {
            let cdn = configuration.leafletCDN
            router.get("vendor/leaflet/**") { request, _ -> Response in
                guard let target = Self.cdnURL(for: request.uri.path, cdn: cdn) else { throw HTTPError(.notFound) }
                return Response(status: .found, headers: [.location: target, .cacheControl: "public, max-age=3600"])
            }
        }

        let pageConfig = PageConfig(tileURL: configuration.tileURL.flatMap { $0.isEmpty ? nil : $0 })
        let encoded = (try? JSONEncoder().encode(pageConfig)) ?? Data("{}".utf8)
        router.get("config.json") { _, _ -> Response in
            Response(
                status: .ok,
                headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: encoded))
            )
        }
    }

    /// What the page needs to know about this deployment.
    struct PageConfig: Codable {
        var tileURL: String?
        var tileAttribution: String?

        init(tileURL: String?) {
            self.tileURL = tileURL
            self.tileAttribution = tileURL == nil ? nil : "&copy; <a href=\"https://www.openstreetmap.org/copyright\">OpenStreetMap</a> contributors"
        }
    }

    // MARK: - Content-Security-Policy

    /// No inline script anywhere; scripts and styles from this origin (and the CDN when
    /// Leaflet comes from there); map tiles from the configured tile host.
    public var contentSecurityPolicy: String {
        var scriptSources = ["'self'"]
        var imageSources = ["'self'", "data:"]
        if leafletDirectory == nil, let cdn = Self.origin(of: configuration.leafletCDN) {
            scriptSources.append(cdn)
            imageSources.append(cdn)
        }
        if let tileURL = configuration.tileURL, let tiles = Self.origin(of: tileURL) {
            imageSources.append(tiles)
        }
        return [
            "default-src 'self'",
            "script-src \(scriptSources.joined(separator: " "))",
            "style-src \(scriptSources.joined(separator: " "))",
            "img-src \(imageSources.joined(separator: " "))",
            "connect-src 'self'",
            "font-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    /// `https://*.tile.openstreetmap.org` for `https://{s}.tile.openstreetmap.org/{z}/{x}/{y}.png`.
    static func origin(of urlTemplate: String) -> String? {
        guard let schemeEnd = urlTemplate.range(of: "://") else { return nil }
        let scheme = urlTemplate[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { return nil }
        let rest = urlTemplate[schemeEnd.upperBound...]
        var host = String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
        host = host.replacingOccurrences(of: "{s}", with: "*")
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:*[]")
        guard !host.isEmpty, host.unicodeScalars.allSatisfy({ allowed.contains($0) }) else { return "\(scheme):" }
        return "\(scheme)://\(host)"
    }

    // MARK: - CDN fallback

    /// `/vendor/leaflet/leaflet.css` -> `<cdn>/leaflet@1.9.4/dist/leaflet.css`;
    /// markercluster files -> `<cdn>/leaflet.markercluster@1.5.3/dist/<file>`. Debian's
    /// `*.min.js` names map to the npm packages' `*.js`, which are the minified builds.
    static func cdnURL(for path: String, cdn: String) -> String? {
        let prefix = "/vendor/leaflet/"
        guard path.hasPrefix(prefix) else { return nil }
        var file = String(path.dropFirst(prefix.count))
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/")
        guard !file.isEmpty, !file.contains(".."), !file.hasPrefix("/"),
              file.unicodeScalars.allSatisfy({ allowed.contains($0) })
        else { return nil }
        if file.hasSuffix(".min.js") { file = String(file.dropLast(".min.js".count)) + ".js" }
        var base = cdn
        while base.hasSuffix("/") { base.removeLast() }
        if file.lowercased().contains("markercluster") {
            return "\(base)/leaflet.markercluster@\(cdnMarkerClusterVersion)/dist/\(file)"
        }
        return "\(base)/leaflet@\(cdnLeafletVersion)/dist/\(file)"
    }
}

/// Content-Security-Policy (no inline script), nosniff, a strict referrer policy and no
/// framing, on every response that passes through it.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let headers: HTTPFields

    init(contentSecurityPolicy: String) {
        var headers = HTTPFields()
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "strict-origin-when-cross-origin"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[HTTPField.Name("Permissions-Policy")!] = "camera=(), microphone=(), geolocation=()"
        self.headers = headers
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        for field in headers where response.headers[field.name] == nil {
            response.headers.append(field)
        }
        return response
    }
}
