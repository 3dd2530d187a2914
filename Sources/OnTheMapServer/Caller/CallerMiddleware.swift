import Foundation
import Hummingbird
import Storage

/// Resolves the request's credential (see `SessionCredential`) into `context.caller`, once,
/// with one query for the session, its account and the account's role in the request's
/// class (`context.requestClass`, resolved before routing by `ClassMiddleware`). Mounted on
/// the API routes; static files never need a caller. With `cache`, a read (GET, HEAD) may be
/// answered from the callers resolved a moment ago; any other request asks the database and
/// empties the cache once it is done (`CallerCache` says why that is never staler than the
/// live map).
struct CallerMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let sessions: any SessionRepository
    let clock: WallClock
    var cache: CallerCache? = nil

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws
        -> Response
    {
        guard let mapClass = context.requestClass else {
            context.logger.error("CallerMiddleware ran before ClassMiddleware resolved the class")
            throw ContextMissing(what: "class")
        }
        var context = context
        let reads = request.method == .get || request.method == .head
        switch SessionCredential.presented(in: request) {
        case .none: context.resolveCaller(.anonymous)
        case .malformed: context.resolveCaller(.invalidSession)
        case .token(let token):
            if let found = try await signedIn(token: token, classId: mapClass.id, fromCache: reads) {
                context.resolveCaller(
                    .signedIn(
                        SignedIn(
                            session: found.session, account: found.account, role: found.role,
                            hasWaitingPost: found.hasWaitingPost)))
            } else {
                context.resolveCaller(.invalidSession)
            }
        }
        guard let cache, !reads else { return try await next(request, context) }
        // A request that may change who may do what: nothing resolved before it is kept.
        defer { cache.forgetAll() }
        return try await next(request, context)
    }

    private func signedIn(token: String, classId: String, fromCache: Bool) async throws -> SignedInRecord? {
        let now = clock.now()
        guard let cache, fromCache else { return try await sessions.signedIn(token: token, now: now, classId: classId) }
        if let kept = cache.lookup(token: token, classId: classId, now: now) { return kept }
        let generation = cache.generation
        guard let found = try await sessions.signedIn(token: token, now: now, classId: classId) else { return nil }
        cache.keep(found, token: token, classId: classId, now: now, generation: generation)
        return found
    }
}
