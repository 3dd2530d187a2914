import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import OnTheMapServer

/// `AppRequestContext.caller` exists only where `CallerMiddleware` resolved it: a route that
/// reads it on a group mounted without it is a wiring mistake, answered 500 (and logged),
/// never served as an anonymous caller.
@Suite("Request context: the caller")
struct CallerContextTests {
    @Test("reading the caller on a group without CallerMiddleware answers 500, not anonymous")
    func callerWithoutMiddlewareIsAServerError() async throws {
        let router = Router(context: AppRequestContext.self)
        router.get("who") { _, context -> String in
            switch try context.caller {
            case .anonymous: "anonymous"
            case .invalidSession: "invalid session"
            case .signedIn: "signed in"
            }
        }
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/who", method: .get) { response in
                #expect(response.status == .internalServerError)
                #expect(String(buffer: response.body) != "anonymous")
            }
        }
    }
}
