import Foundation
import Hummingbird
import Storage

/// Resolves the request's credential (see `SessionCredential`) into `context.caller`, once,
/// with one query for the session, its account and the account's role in the request's
/// class (`context.requestClass`, resolved before routing by `ClassMiddleware`). Mounted on
/// the API routes; static files never need a caller.
struct CallerMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let sessions: any SessionRepository
    let clock: WallClock

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws
        -> Response
    {
        guard let mapClass = context.requestClass else {
            context.logger.error("CallerMiddleware ran before ClassMiddleware resolved the class")
            throw ContextMissing(what: "class")
        }
        var context = context
        switch SessionCredential.presented(in: request) {
        case .none: context.resolveCaller(.anonymous)
        case .malformed: context.resolveCaller(.invalidSession)
        case .token(let token):
            if let found = try await sessions.signedIn(token: token, now: clock.now(), classId: mapClass.id) {
                context.resolveCaller(
                    .signedIn(
                        SignedIn(
                            session: found.session, account: found.account, role: found.role,
                            hasWaitingPost: found.hasWaitingPost)))
            } else {
                context.resolveCaller(.invalidSession)
            }
        }
        return try await next(request, context)
    }
}
