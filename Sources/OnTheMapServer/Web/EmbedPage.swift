import Foundation
import HTTPTypes
import Hummingbird
import Storage

/// `/embed/<slug>`: a public class's map, read-only and live, for another site's page to frame
/// (`embed.html`, which reads the class's snapshot and changes with no session). Only a class
/// anyone may read without signing in (`public`) is answered; any other slug, a class's that
/// exists or not, is the same 404 (the framework's, as for an unknown path), so the page tells
/// nobody that a private class exists. Its Content-Security-Policy is the web app's with `frame-ancestors *`, which
/// `SecurityHeadersMiddleware` keeps (and then adds no `X-Frame-Options`); every other page
/// keeps refusing to be framed.
struct EmbedPageMiddleware<Context: RequestContext>: RouterMiddleware {
    static var prefix: String { "/embed/" }

    let directory: ClassDirectory
    /// `embed.html`, read once; nil when the web app's folder has none (every embed is a 404).
    let page: ByteBuffer?
    let contentSecurityPolicy: String

    init(directory: ClassDirectory, publicDirectory: String, contentSecurityPolicy: String) {
        self.directory = directory
        self.page = FileManager.default.contents(atPath: publicDirectory + "/embed.html").map { ByteBuffer(bytes: $0) }
        self.contentSecurityPolicy = Self.framable(contentSecurityPolicy)
    }

    /// The app's policy, framable by any site.
    static func framable(_ policy: String) -> String {
        policy.replacingOccurrences(of: "frame-ancestors 'none'", with: "frame-ancestors *")
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix(Self.prefix), request.method == .get || request.method == .head else {
            return try await next(request, context)
        }
        let slug = String(path.dropFirst(Self.prefix.count))
        guard ClassSlug.isWellFormed(slug), let page, let mapClass = try await directory.mapClass(slug: slug),
            mapClass.visibility == .public
        else {
            // The framework's own 404, as for any unknown path, but answered here so that it
            // carries the security headers (not framable) like every page.
            return try HTTPError(.notFound).response(from: request, context: context)
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        // A class made members-only later stops being framed at the next load.
        headers[.cacheControl] = "no-cache"
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        return Response(status: .ok, headers: headers, body: request.method == .head ? .init() : .init(byteBuffer: page))
    }
}
