import Hummingbird
import Logging
import Storage

/// The context of the routes of a class's map (its locations, live map, placement, reports
/// and moderation): a route in a group of this context runs only once the request's class
/// (`ClassMiddleware`) and its caller (`CallerMiddleware`) are resolved, and reads them here,
/// never a stand-in. A group mounted without either is a wiring mistake: every request to it
/// is logged and answered 500 (`ContextMissing`), before the route runs.
struct ClassRequestContext: ChildRequestContext, CallerContext {
    var coreContext: CoreRequestContextStorage
    /// The class the request is for: the one `/c/<slug>` named, or the default class.
    let mapClass: MapClass
    /// Who is asking, with their role in `mapClass`.
    let caller: Caller
    let clientAddress: String
    let isHTTPS: Bool
    /// What the client put before the path the routes see: "" or `/c/<slug>`.
    let pathPrefix: String

    init(context: AppRequestContext) throws {
        guard let mapClass = context.requestClass else {
            context.logger.error("a class-scoped route was reached before ClassMiddleware resolved the class")
            throw ContextMissing(what: "class")
        }
        guard let caller = context.resolvedCallerIfAny else {
            context.logger.error("a class-scoped route was reached on a group without CallerMiddleware")
            throw ContextMissing(what: "caller")
        }
        coreContext = context.coreContext
        self.mapClass = mapClass
        self.caller = caller
        clientAddress = context.clientAddress
        isHTTPS = context.isHTTPS
        pathPrefix = context.pathPrefix
    }

    var maxUploadSize: Int { AppRequestContext.transportBodyLimit }

    /// The rules of the request's class for its caller.
    var classAccess: ClassAccess { ClassAccess(mapClass: mapClass, caller: caller) }
}

/// A route (or `CallerMiddleware`) reached without the class or the caller it needs: a server
/// bug, answered as the route family's 500, never as some other class or an anonymous caller.
struct ContextMissing: Error, CustomStringConvertible {
    let what: String
    var description: String { "The request's \(what) was not resolved before a route that needs it." }
}
