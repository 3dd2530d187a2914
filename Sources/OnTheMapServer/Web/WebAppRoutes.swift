import Foundation
import HTTPTypes
import Hummingbird
import Logging
import WebApp

/// The browser app: static files from `Public/`, Leaflet from a folder on this machine
/// (Debian's packages or `--leaflet-dir`), a tiny `/config.json` for the page, and security
/// headers on everything it serves. Browsers load nothing from another origin unless the
/// host asks for street tiles (`--tile-url`).
public struct WebAppRoutes: Sendable {
    /// Where Debian's `libjs-leaflet` installs its files.
    public static let debianLeafletDirectory = "/usr/share/javascript/leaflet"
    /// The page asks for Debian's name; npm's `dist` folder calls the same minified build
    /// `leaflet.js`. (The map clusters its pins itself: no Leaflet plugin is needed.)
    static let scriptNames = [
        "leaflet.min.js": "leaflet.js"
    ]
    static let requiredFiles = ["leaflet.css"]

    let configuration: Configuration
    let logger: Logger
    /// Folder holding index.html and the rest of the web app.
    public let publicDirectory: String
    /// The Leaflet folder served at `/vendor/leaflet`; nil when this machine has none.
    public let leafletDirectory: String?

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.publicDirectory = configuration.publicDirectory.flatMap { $0.isEmpty ? nil : $0 } ?? WebAppFiles.bundledDirectory()
        if let folder = configuration.leafletDirectory, Self.leafletProblem(in: folder) == nil {
            self.leafletDirectory = folder
        } else if Self.leafletProblem(in: Self.debianLeafletDirectory) == nil {
            self.leafletDirectory = Self.debianLeafletDirectory
        } else {
            self.leafletDirectory = nil
        }
    }

    /// Why `folder` cannot serve Leaflet (a sentence for the host), or nil when it can.
    public static func leafletProblem(in folder: String) -> String? {
        let fileManager = FileManager.default
        var missing: [String] = []
        for (debian, npm) in scriptNames.sorted(by: { $0.key < $1.key })
        where !fileManager.fileExists(atPath: folder + "/" + debian) && !fileManager.fileExists(atPath: folder + "/" + npm) {
            missing.append("\(debian) (or \(npm))")
        }
        for file in requiredFiles where !fileManager.fileExists(atPath: folder + "/" + file) {
            missing.append(file)
        }
        return missing.isEmpty ? nil : "The Leaflet folder \(folder) lacks \(missing.joined(separator: ", "))."
    }

    /// Adds the web app to the router. Call it after the API routes: its middleware only
    /// handles requests no route answered (plus the routes it adds itself).
    public func register(on router: Router<AppRequestContext>) {
        register(on: router, framing: nil)
    }

    /// `framing`: the LTI platforms whose course pages may frame the app for a launch's session.
    /// `embedding`: the classes, for `/embed/<slug>` (a public class's map any site may frame).
    func register(on router: Router<AppRequestContext>, framing: LTIPlatforms?, embedding: ClassDirectory? = nil) {
        if let leafletDirectory {
            logger.info("web app", metadata: ["public": "\(publicDirectory)", "leaflet": "\(leafletDirectory)"])
        } else {
            logger.warning("web app without maps: no Leaflet on this machine; install Debian's libjs-leaflet or pass --leaflet-dir")
        }
        router.add(middleware: SecurityHeadersMiddleware(contentSecurityPolicy: contentSecurityPolicy, framing: framing))
        if let embedding {
            router.add(
                middleware: EmbedPageMiddleware<AppRequestContext>(
                    directory: embedding, publicDirectory: publicDirectory, contentSecurityPolicy: contentSecurityPolicy))
        }
        let revalidate = CacheControl([(MediaType(type: .any), [.noCache])])
        router.add(
            middleware: FileMiddleware<AppRequestContext, LocalFileSystem>(
                publicDirectory, cacheControl: revalidate, searchForIndexHtml: true, logger: logger
            ).withAdditionalMediaTypes(forFileExtensions: [
                "geojson": MediaType(type: .application, subType: "geo+json"),
                "mjs": MediaType(type: .application, subType: "javascript"),
                "webmanifest": MediaType(type: .application, subType: "manifest+json"),
            ]))

        if let leafletDirectory {
            let cache = CacheControl([(MediaType(type: .any), [.public, .maxAge(86400)])])
            // An npm-style folder: the name the page asks for, answered from npm's file
            // (read once here, so no request blocks on the disk).
            for (debian, npm) in Self.scriptNames where !FileManager.default.fileExists(atPath: leafletDirectory + "/" + debian) {
                guard let data = FileManager.default.contents(atPath: leafletDirectory + "/" + npm) else { continue }
                let script = ByteBuffer(bytes: data)
                router.get("vendor/leaflet/\(debian)") { _, _ -> Response in
                    Response(
                        status: .ok,
                        headers: [.contentType: "application/javascript", .cacheControl: "public, max-age=86400"],
                        body: .init(byteBuffer: script)
                    )
                }
            }
            router.add(
                middleware: FileMiddleware<AppRequestContext, LocalFileSystem>(
                    leafletDirectory, urlBasePath: "/vendor/leaflet", cacheControl: cache, logger: logger
                ))
        }

        let pageConfig = PageConfig(
            tileURL: configuration.tileURL.flatMap { $0.isEmpty ? nil : $0 },
            parseApplicationID: configuration.parseApplicationID,
            parseRESTAPIKey: configuration.parseRESTAPIKey,
            sharedComputers: configuration.sharedComputers)
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
        /// The Parse keys this server checks on `/parse/…` (`--parse-app-id`, `--parse-rest-key`):
        /// the web app sends what the server expects instead of the original clients' values.
        /// Not secrets: every original client ships them.
        var parseApplicationID: String
        var parseRESTAPIKey: String
        /// `--shared-computers`: the login card's "This is a shared computer" starts ticked
        /// (every session cookie ends with the browser whatever is ticked).
        var sharedComputers: Bool

        init(tileURL: String?, parseApplicationID: String, parseRESTAPIKey: String, sharedComputers: Bool = false) {
            self.parseApplicationID = parseApplicationID
            self.parseRESTAPIKey = parseRESTAPIKey
            self.sharedComputers = sharedComputers
            self.tileURL = tileURL
            self.tileAttribution =
                tileURL == nil ? nil : "&copy; <a href=\"https://www.openstreetmap.org/copyright\">OpenStreetMap</a> contributors"
        }
    }

    // MARK: - Content-Security-Policy

    /// No inline script anywhere; scripts, styles, connections and workers from this origin
    /// only; images from this origin, plus the tile host when `--tile-url` names one, plus
    /// the object store when photos are redirected to presigned URLs there.
    public var contentSecurityPolicy: String {
        var imageSources = ["'self'", "data:"]
        if let tileURL = configuration.tileURL, let tiles = Self.origin(of: tileURL) {
            imageSources.append(tiles)
        }
        if configuration.photoRedirectSeconds != nil, configuration.photoStore?.isEmpty == false {
            let endpoint = configuration.photoStoreEndpoint ?? "https://s3.\(configuration.photoStoreRegion).amazonaws.com"
            if let store = Self.origin(of: endpoint), !imageSources.contains(store) { imageSources.append(store) }
        }
        return [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src \(imageSources.joined(separator: " "))",
            "connect-src 'self'",
            "font-src 'self'",
            "worker-src 'self'",
            "manifest-src 'self'",
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
}

/// Content-Security-Policy (no inline script), nosniff, a strict referrer policy and no
/// framing, on every response that passes through it. A request carrying a launch's cookie
/// (`LTIController.embeddedCookie`, set only inside a registered platform's frame) may be
/// framed by the registered platforms' origins, never by anyone else. A response that names
/// its own `frame-ancestors` other than `'none'` (only `/embed/<slug>` of a public class,
/// `EmbedPageMiddleware`) keeps them, and gets no `X-Frame-Options`.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let headers: HTTPFields
    let contentSecurityPolicy: String
    let framing: LTIPlatforms?

    init(contentSecurityPolicy: String, framing: LTIPlatforms? = nil) {
        var headers = HTTPFields()
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "strict-origin-when-cross-origin"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        // Geolocation for the page itself only ("Use my location" posts the town it is in, never
        // the point); no frame, no other origin.
        headers[HTTPField.Name("Permissions-Policy")!] = "camera=(), microphone=(), geolocation=(self)"
        self.headers = headers
        self.contentSecurityPolicy = contentSecurityPolicy
        self.framing = framing
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        var fields = headers
        if let framing, request.cookies[LTIController.embeddedCookie] != nil {
            let ancestors = await framing.frameAncestors()
            if !ancestors.isEmpty {
                fields[.contentSecurityPolicy] = contentSecurityPolicy.replacingOccurrences(
                    of: "frame-ancestors 'none'", with: "frame-ancestors " + ancestors.joined(separator: " "))
                fields[HTTPField.Name("X-Frame-Options")!] = nil
            }
        }
        if let own = response.headers[.contentSecurityPolicy], own.contains("frame-ancestors "),
            !own.contains("frame-ancestors 'none'")
        {
            fields[HTTPField.Name("X-Frame-Options")!] = nil
        }
        for field in fields where response.headers[field.name] == nil {
            response.headers.append(field)
        }
        return response
    }
}
