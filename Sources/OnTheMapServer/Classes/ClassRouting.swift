import Foundation
import HTTPTypes
import Hummingbird
import Storage

/// Serves every API route under `/c/<slug>` too, for the class `<slug>`: an old app pointed at
/// `https://host/c/<slug>` calls `…/c/<slug>/parse/classes/StudentLocation` and gets exactly
/// what the unprefixed route answers, for that class. The prefix is taken off before routing
/// (the router knows each route once) and kept in the context; `/c/<slug>` itself sends a
/// browser to the class's map in the web app (when there is such a class).
struct ClassPrefixResponder<Wrapped: HTTPResponder>: HTTPResponder where Wrapped.Context == AppRequestContext {
    typealias Context = AppRequestContext
    let wrapped: Wrapped
    let directory: ClassDirectory

    @Sendable func respond(to request: Request, context: AppRequestContext) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix("/c/") else { return try await wrapped.respond(to: request, context: context) }
        let rest = path.dropFirst(3)
        let slug = String(rest.prefix { $0 != "/" })
        let remainder = String(rest.dropFirst(slug.count))
        if remainder.isEmpty || remainder == "/" {
            guard request.method == .get || request.method == .head, ClassSlug.isWellFormed(slug),
                try await directory.mapClass(slug: slug) != nil
            else {
                return try await wrapped.respond(to: request, context: context)
            }
            return Response(status: .found, headers: [.location: "/#/c/\(slug)/map", .cacheControl: "no-store"])
        }
        guard RouteFamily.of(remainder).servedPerClass else {
            return try await wrapped.respond(to: request, context: context)
        }
        var head = request.head
        let query = request.uri.query.map { "?" + $0 } ?? ""
        head.path = remainder + query
        var context = context
        context.classSlug = slug
        context.pathPrefix = "/c/\(slug)"
        return try await wrapped.respond(to: Request(head: head, body: request.body), context: context)
    }
}

/// Resolves the request's class into `context.requestClass`, which a `ClassRequestContext`
/// is built from: the one `/c/<slug>` named, or the default class. A slug no class has is a 404 in the path's protocol format.
struct ClassMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let directory: ClassDirectory
    /// Counts each answered request to a class's map by class (a bounded label).
    var metrics: ServerMetrics? = nil

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws
        -> Response
    {
        let mapClass: MapClass
        if let slug = context.classSlug {
            guard ClassSlug.isWellFormed(slug), let found = try await directory.mapClass(slug: slug) else {
                throw Self.unknownClass(slug, path: request.uri.path)
            }
            mapClass = found
        } else {
            mapClass = try await directory.defaultClass()
        }
        var context = context
        context.requestClass = mapClass
        let response = try await next(request, context)
        if let metrics, response.status.code < 400, RouteFamily.of(request.uri.path).countedPerClass {
            metrics.recordClassRequest(slug: mapClass.slug, visibility: mapClass.visibility)
        }
        return response
    }

    static func unknownClass(_ slug: String, path: String) -> any Error {
        let message = "This server has no class '\(slug.prefix(40))'. Check the address your teacher gave you."
        switch RouteFamily.of(path).errors {
        case .parse: return ParseError(101, message)
        case .udacity: return UdacityError(status: 404, message)
        case .api, .other: return APIError(.notFound, "unknown_class", message)
        }
    }
}
