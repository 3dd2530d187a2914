import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import OnTheMapServer

/// Who is asking is resolved once, from the session cookie or `X-Parse-Session-Token`, and each
/// protected route family answers each kind of caller as it should, in its own format.
@Suite("The caller in the request context")
struct CallerTests {
    enum Who: CaseIterable, CustomStringConvertible {
        case visitor, endedSession, student, administrator
        var description: String { "\(self)" }
    }

    /// One route per protected family: method, path, body, whether Parse keys go with it, and
    /// the status each kind of caller gets.
    static let location =
        #"{"mapString":"Lyon","mediaURL":"https://example.com","firstName":"A","lastName":"B","latitude":45.76,"longitude":4.84}"#
    static let families:
        [(
            family: String, method: HTTPRequest.Method, path: String, body: String?, parse: Bool,
            expected: [Who: HTTPResponse.Status]
        )] = [
            (
                "who am I", .get, "/api/auth/me", nil, false,
                [.visitor: .unauthorized, .endedSession: .unauthorized, .student: .ok, .administrator: .ok]
            ),
            (
                "account and notices", .get, "/api/account", nil, false,
                [.visitor: .unauthorized, .endedSession: .unauthorized, .student: .ok, .administrator: .ok]
            ),
            (
                "sign-in methods", .get, "/api/account/identities", nil, false,
                [.visitor: .unauthorized, .endedSession: .unauthorized, .student: .ok, .administrator: .ok]
            ),
            (
                "password change", .post, "/api/account/password", #"{"current_password":"not it at all","new_password":"long enough"}"#,
                false,
                [.visitor: .unauthorized, .endedSession: .unauthorized, .student: .forbidden, .administrator: .forbidden]
            ),
            (
                "Travel", .get, "/api/pins", nil, false,
                [.visitor: .unauthorized, .endedSession: .unauthorized, .student: .ok, .administrator: .ok]
            ),
            (
                "Parse writes", .post, "/parse/classes/StudentLocation", location, true,
                [.visitor: .unauthorized, .endedSession: .unauthorized, .student: .created, .administrator: .created]
            ),
            (
                "Udacity-hosted Parse writes", .post, "/v1/StudentLocation", location, false,
                [.visitor: .unauthorized, .endedSession: .unauthorized, .student: .created, .administrator: .created]
            ),
            (
                "administration", .get, "/api/admin/users", nil, false,
                [.visitor: .unauthorized, .endedSession: .unauthorized, .student: .forbidden, .administrator: .ok]
            ),
            (
                "moderation", .get, "/api/admin/moderation", nil, false,
                [.visitor: .unauthorized, .endedSession: .unauthorized, .student: .forbidden, .administrator: .ok]
            ),
            // A new server's default class is members-only, and open: every account is a member.
            (
                "reading the map", .get, "/parse/classes/StudentLocation?limit=1", nil, true,
                [.visitor: .unauthorized, .endedSession: .unauthorized, .student: .ok, .administrator: .ok]
            ),
            (
                "the live map", .get, "/api/locations/snapshot", nil, false,
                [.visitor: .unauthorized, .endedSession: .unauthorized, .student: .ok, .administrator: .ok]
            ),
            (
                "my classes", .get, "/api/classes", nil, false,
                [.visitor: .unauthorized, .endedSession: .unauthorized, .student: .ok, .administrator: .ok]
            ),
            (
                "creating a class", .post, "/api/classes", #"{"slug":"x","name":"Too short a slug"}"#, false,
                [.visitor: .unauthorized, .endedSession: .unauthorized, .student: .forbidden, .administrator: .badRequest]
            ),
            (
                "a class's roster", .get, "/api/classes/main/members", nil, false,
                [.visitor: .unauthorized, .endedSession: .unauthorized, .student: .forbidden, .administrator: .ok]
            ),
        ]

    @Test("each protected route family answers a visitor, an ended session, a student and an administrator as it should")
    func families() async throws {
        try await withTestServer { client in
            let administrator = try await client.makeUser()
            let student = try await client.makeUser()
            let ended = try await client.login(email: student.email, password: student.password)
            try await client.execute(uri: "/api/session", method: .delete, headers: [.cookie: "onthemap_session=\(ended)"]) { response in
                #expect(response.status == .ok)
            }
            for route in Self.families {
                for who in Who.allCases {
                    // Both ways of carrying the session: the cookie and the header. A token too
                    // long to be a session counts as an ended one.
                    let tokens: [String?] =
                        switch who {
                        case .visitor: [nil]
                        case .endedSession: [ended, String(repeating: "a", count: 129)]
                        case .student: [student.sessionID]
                        case .administrator: [administrator.sessionID]
                        }
                    for token in tokens {
                        for useHeader in token == nil ? [false] : [false, true] {
                            var headers: HTTPFields = route.parse ? parseHeaders : [:]
                            if let token {
                                if useHeader {
                                    headers[SessionCredential.headerName] = token
                                } else {
                                    headers[.cookie] = "onthemap_session=\(token)"
                                }
                                if route.body != nil { headers[.contentType] = "application/json" }
                            }
                            try await client.execute(
                                uri: route.path, method: route.method, headers: headers,
                                body: route.body.map(textBody)
                            ) { response in
                                #expect(
                                    response.status == route.expected[who],
                                    "\(route.family), \(who), header: \(useHeader): \(response.text)")
                            }
                        }
                    }
                }
            }
        }
    }
}
