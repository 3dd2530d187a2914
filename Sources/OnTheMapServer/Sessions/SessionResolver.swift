import Foundation
import HTTPTypes
import Hummingbird
import Storage

/// Finds the login session a request carries: the session cookie (browsers and old clients,
/// whose shared cookie jar sends it to every path) or `X-Parse-Session-Token` (SDK, scripts).
struct SessionResolver: Sendable {
    static let cookieName = "onthemap_session"
    static let headerName = HTTPField.Name("X-Parse-Session-Token")!

    enum Outcome: Sendable {
        case none
        case invalid
        case valid(Session)

        /// The live session, if any.
        var session: Session? {
            if case .valid(let session) = self { return session }
            return nil
        }
    }

    let sessions: any SessionRepository

    func resolve(_ request: Request) async throws -> Outcome {
        let token = request.headers[Self.headerName] ?? request.cookies[Self.cookieName]?.value
        guard let token, !token.isEmpty else { return .none }
        // Session ids are short ASCII; anything else cannot be one, so skip the lookup.
        guard token.count <= 128 else { return .invalid }
        if let session = try await sessions.session(id: token, now: Date()) { return .valid(session) }
        return .invalid
    }
}
