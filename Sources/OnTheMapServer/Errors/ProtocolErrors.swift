import Foundation
import Hummingbird
import Localization
import OnTheMapModels

/// An error on a Udacity-compatible route: `{"status":N,"parameter"?,"error":"..."}` behind
/// the 5-byte prefix, with the HTTP status equal to `status` (docs/api/udacity-session.md §1.4).
struct UdacityError: HTTPResponseError {
    let body: UdacityErrorBody
    var status: HTTPResponse.Status { .init(code: body.status) }

    init(status: Int, parameter: String? = nil, _ message: String) {
        body = UdacityErrorBody(status: status, parameter: parameter, error: message)
    }

    static let invalidCredentials = UdacityError(status: 403, "Account not found or invalid credentials.")
    static func missing(_ field: String) -> UdacityError {
        UdacityError(status: 400, parameter: "udacity.\(field)", "trails.Error 400: Missing parameter '\(field)'")
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        try JSONResponse.make(body, status: status, prefix: udacityResponsePrefix)
    }
}

/// An error on a Parse-compatible route: `{"code":N,"error":"..."}`; HTTP 404 for code 101,
/// 500 for code 1, 400 otherwise unless a status is given (docs/api/parse-student-location.md §2.9).
struct ParseError: HTTPResponseError {
    let code: Int
    let message: String
    let status: HTTPResponse.Status

    init(_ code: Int, _ message: String, status: HTTPResponse.Status? = nil) {
        self.code = code
        self.message = message
        self.status = status ?? (code == 101 ? .notFound : code == 1 ? .internalServerError : .badRequest)
    }

    static let objectNotFound = ParseError(101, "Object not found.")
    static let invalidJSON = ParseError(107, "Invalid JSON: the body must be a JSON object.")
    static let tooLarge = ParseError(116, "The request body is too large.", status: .contentTooLarge)
    static let loginRequired = ParseError(
        209, "Log in to change student locations: send the session cookie or X-Parse-Session-Token.", status: .unauthorized)
    static let invalidSession = ParseError(209, "Invalid session token: log in again.", status: .unauthorized)
    static let notOwner = ParseError(119, "This location belongs to another account; only its owner can change it.", status: .forbidden)

    func response(from request: Request, context: some RequestContext) throws -> Response {
        try JSONResponse.make(ParseErrorBody(code: code, error: message), status: status)
    }
}

/// The bare Parse app-id failure: exactly `{"error":"unauthorized"}` with 403.
struct ParseUnauthorized: HTTPResponseError {
    var status: HTTPResponse.Status { .forbidden }
    func response(from request: Request, context: some RequestContext) throws -> Response {
        JSONResponse.raw(Data(#"{"error":"unauthorized"}"#.utf8), status: .forbidden)
    }
}

/// An error on our own `/api/...` routes: `{"error":{"code":"...","message":"..."}}`.
struct APIError: HTTPResponseError {
    let status: HTTPResponse.Status
    let code: String
    let message: String

    init(_ status: HTTPResponse.Status, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    static let tooLarge = APIError(.contentTooLarge, "body_too_large", "The request body is too large.")

    /// The message in the request's language (`Request.language`): English as written here;
    /// another language's catalogue message for the code (`api.error.<code>`) when it has
    /// one, else English. The code, which programs read, never changes.
    func response(from request: Request, context: some RequestContext) throws -> Response {
        let language = request.language
        let key = "api.error." + Self.camelCase(code)
        guard language != .english, Catalogue.shared.has(key, in: language) else {
            return try JSONResponse.make(APIErrorBody(code: code, message: message), status: status)
        }
        var response = try JSONResponse.make(APIErrorBody(code: code, message: Catalogue.shared.message(key, in: language)), status: status)
        response.headers[.contentLanguage] = language.tag
        return response
    }

    /// "not_a_member" → "notAMember", a catalogue key's last segment.
    static func camelCase(_ code: String) -> String {
        let words = code.split(separator: "_")
        return words.enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.prefix(1).uppercased() + $0.element.dropFirst() }
            .joined()
    }
}

/// Any protocol error, answered with `Retry-After` (a 503 from a bound being reached).
struct RetryLater: HTTPResponseError {
    let error: any HTTPResponseError
    let seconds: Int

    init(_ error: any HTTPResponseError, after seconds: Int) {
        self.error = error
        self.seconds = seconds
    }

    var status: HTTPResponse.Status { error.status }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try error.response(from: request, context: context)
        response.headers[.retryAfter] = "\(seconds)"
        return response
    }
}
