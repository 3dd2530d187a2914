import HTTPTypes
import Hummingbird

/// Parse-era routes require the app's `X-Parse-Application-Id` and `X-Parse-REST-API-Key`
/// (docs/api/parse-student-location.md §2.2); failures answer exactly as parse-server did.
struct ParseCredentialsMiddleware<Context: RequestContext>: RouterMiddleware {
    static var applicationIDHeader: HTTPField.Name { HTTPField.Name("X-Parse-Application-Id")! }
    static var restAPIKeyHeader: HTTPField.Name { HTTPField.Name("X-Parse-REST-API-Key")! }

    let applicationID: String
    let restAPIKey: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[Self.applicationIDHeader] == applicationID,
            request.headers[Self.restAPIKeyHeader] == restAPIKey
        else { throw ParseUnauthorized() }
        return try await next(request, context)
    }
}
