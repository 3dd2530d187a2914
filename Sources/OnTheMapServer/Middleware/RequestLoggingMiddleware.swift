import Foundation
import HTTPTypes
import Hummingbird

/// One log line per request with its id, method, path, status and duration, and the id
/// echoed as `X-Request-Id` so a user's report can be matched to the log.
struct RequestLoggingMiddleware<Context: RequestContext>: RouterMiddleware {
    static var requestIDHeader: HTTPField.Name { HTTPField.Name("X-Request-Id")! }

    /// Paths that carry a one-time code are logged without it.
    static func loggedPath(_ path: String) -> String {
        path.hasPrefix("/lti/window/") ? "/lti/window/…" : path
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let id = context.id
        func log(_ status: HTTPResponse.Status) {
            let elapsed = ContinuousClock.now - start
            let millis = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
            context.logger.info(
                "\(request.method) \(Self.loggedPath(request.uri.path)) \(status.code)",
                metadata: [
                    "duration_ms": "\(String(format: "%.2f", millis))"
                ])
        }
        do {
            var response = try await next(request, context)
            response.headers[Self.requestIDHeader] = id
            log(response.status)
            return response
        } catch let error as any HTTPResponseError {
            log(error.status)
            var response = try error.response(from: request, context: context)
            response.headers[Self.requestIDHeader] = id
            return response
        } catch {
            context.logger.error("unhandled error", metadata: ["error": "\(error)"])
            log(.internalServerError)
            throw error
        }
    }
}
