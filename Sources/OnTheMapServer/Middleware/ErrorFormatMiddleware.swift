import HTTPTypes
import Hummingbird
import OnTheMapModels
import Storage

/// Errors that no route turned into a protocol error (unknown paths, wrong methods, bugs)
/// still answer in the format of the route family the path belongs to (`RouteFamily`), so a
/// client always gets a body it can decode.
struct ErrorFormatMiddleware<Context: RequestContext>: RouterMiddleware {

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            throw translate(status: error.status, message: error.body, path: request.uri.path) ?? error
        } catch let error as any HTTPResponseError {
            throw error
        } catch is PasswordHashingBusy {
            let message = "Too many logins at once; try again in a few seconds."
            switch RouteFamily.of(request.uri.path).errors {
            case .udacity: throw RetryLater(UdacityError(status: 503, message), after: 2)
            default: throw RetryLater(APIError(.serviceUnavailable, "busy", message), after: 2)
            }
        } catch let error as MalformedRequestBody {
            context.logger.notice("malformed request body", metadata: ["reason": "\(error.reason.prefix(200))"])
            let message = "The request body could not be read: its framing (Content-Length or chunked encoding) is malformed."
            throw translate(status: .badRequest, message: message, path: request.uri.path) ?? HTTPError(.badRequest, message: message)
        } catch StorageError.queryTimeout {
            // The database cancelled a query past its deadline (or none could start in time):
            // the protocol's timeout answer, never a 500.
            throw Self.timeout(path: request.uri.path)
        } catch let error as StorageError where error.isCausedByInput {
            // Input the database refused (PostgreSQL takes no NUL characters and has its own
            // regex dialect): the client's mistake, answered as one, never a 500.
            throw translate(status: .badRequest, message: error.description, path: request.uri.path) ?? HTTPError(.badRequest)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            throw translate(status: .internalServerError, message: nil, path: request.uri.path) ?? error
        }
    }

    static func timeout(path: String) -> any HTTPResponseError {
        let message = StorageError.queryTimeout.description
        switch RouteFamily.of(path).errors {
        case .parse:
            // Parse's TIMEOUT (124), sent with 400 like its other codes.
            return ParseError(124, message)
        case .udacity:
            return RetryLater(UdacityError(status: 503, message), after: 1)
        case .api, .other:
            return RetryLater(APIError(.serviceUnavailable, "timeout", message), after: 1)
        }
    }

    private func translate(status: HTTPResponse.Status, message: String?, path: String) -> (any HTTPResponseError)? {
        let text =
            message
            ?? (status == .notFound ? "Not found." : status == .internalServerError ? "Internal server error." : status.reasonPhrase)
        switch RouteFamily.of(path).errors {
        case .udacity:
            return UdacityError(status: status.code, text)
        case .parse:
            if status == .notFound { return ParseError(101, "Not found: no such route.", status: .notFound) }
            if status == .internalServerError { return ParseError(1, "Internal server error.") }
            return ParseError(102, text, status: status)
        case .api:
            let code = status == .notFound ? "not_found" : status == .internalServerError ? "internal_error" : "bad_request"
            return APIError(status, code, text)
        case .other:
            return nil
        }
    }
}
