import HTTPTypes
import Hummingbird

/// Where a request carries its login session: the session cookie (browsers and old clients,
/// whose shared cookie jar sends it to every path) or `X-Parse-Session-Token` (SDK, scripts).
/// Read only by `CallerMiddleware`; every route reads the caller from its context.
enum SessionCredential {
    static let cookieName = "onthemap_session"
    static let headerName = HTTPField.Name("X-Parse-Session-Token")!

    enum Presented: Equatable {
        case none
        /// Something that cannot be a session token (session ids are short ASCII).
        case malformed
        case token(String)
    }

    static func presented(in request: Request) -> Presented {
        let token = request.headers[headerName] ?? request.cookies[cookieName]?.value
        guard let token, !token.isEmpty else { return .none }
        guard token.count <= 128 else { return .malformed }
        return .token(token)
    }
}
