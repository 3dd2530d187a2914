import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import OnTheMapServer
import Testing

@Suite("Moderation: administrators, reports, disabled accounts")
struct ModerationAPITests {
    /// Every administrator route, with a body that would be valid for it.
    static let adminRoutes: [(HTTPRequest.Method, String, [String: String]?)] = [
        (.get, "/api/admin/users", nil),
        (.post, "/api/admin/users/{student}/disable", nil),
        (.post, "/api/admin/users/{student}/enable", nil),
        (.post, "/api/admin/users/{student}/promote", nil),
        (.post, "/api/admin/users/{student}/reset-link", nil),
        (.get, "/api/admin/moderation?view=reported", nil),
        (.post, "/api/admin/locations/{post}/hide", ["reason": "spam"]),
        (.post, "/api/admin/locations/{post}/unhide", nil),
        (.delete, "/api/admin/locations/{post}", ["reason": "spam"]),
    ]

    @Test("the first account is the administrator, later ones are not; GET /api/account says so")
    func firstAccountIsAdmin() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let admin = try await client.makeUser()
            let student = try await client.makeUser()
            for (user, expected) in [(admin, true), (student, false)] {
                try await client.execute(uri: "/api/account", method: .get, headers: user.cookieHeaders) { response throws in
                    #expect(response.status == .ok)
                    let account = try #require(try response.json["account"] as? [String: Any])
                    #expect(account["key"] as? String == user.key)
                    #expect(account["is_admin"] as? Bool == expected)
                }
            }
            try await client.execute(uri: "/api/account", method: .get) { response throws in
                #expect(response.status == .unauthorized)
                #expect(try (response.json["error"] as? [String: Any])?["code"] as? String == "not_logged_in")
            }
        }
    }

    @Test("a student gets 403 forbidden, a visitor 401, on every administrator route, and nothing changes")
    func roleChecks() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let admin = try await client.makeUser()
            let student = try await client.makeUser()
            let post = try await client.postLocation(admin)
            for (method, template, body) in Self.adminRoutes {
                let uri = template.replacingOccurrences(of: "{student}", with: student.key).replacingOccurrences(of: "{post}", with: post)
                for (headers, status, code) in [
                    (student.cookieHeaders, HTTPResponse.Status.forbidden, "forbidden"),
                    (student.parseHeaders, .forbidden, "forbidden"),
                    ([:], .unauthorized, "not_logged_in"),
                ] {
                    try await client.execute(uri: uri, method: method, headers: headers, body: body.map(jsonBody)) { response throws in
                        #expect(response.status == status, "\(method) \(uri)")
                        let error = try #require(try response.json["error"] as? [String: Any])
                        #expect(error["code"] as? String == code)
                        #expect((error["message"] as? String)?.isEmpty == false)
                    }
                }
            }
            // Nothing happened: the post is listed, the student can still log in and is no admin.
            #expect(try await client.count() == 1)
            _ = try await client.login(email: student.email, password: student.password)
            try await client.execute(uri: "/api/account", method: .get, headers: student.cookieHeaders) { response throws in
                #expect(try (response.json["account"] as? [String: Any])?["is_admin"] as? Bool == false)
            }
        }
    }

    @Test("hide: gone from lists, counts and lookups for everyone; the author reads the reason; unhide brings it back")
    func hideAndUnhide() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let admin = try await client.makeUser()
            let author = try await client.makeUser()
            let post = try await client.postLocation(author, ["mapString": "Lyon, France"])
            _ = try await client.list("")  // fills the list cache, which the hide must drop
            try await client.execute(
                uri: "/api/admin/locations/\(post)/hide", method: .post, headers: admin.cookieHeaders,
                body: jsonBody(["reason": "Advertising is not allowed here."])
            ) { response throws in
                #expect(response.status == .ok)
                #expect(try response.json["hidden"] as? Bool == true)
            }
            #expect(try await client.count() == 0)
            #expect((try await client.list("")["results"] as! [Any]).isEmpty)
            for uri in ["/parse/classes/StudentLocation/\(post)", "/v1/StudentLocation?uniqueKey=\(author.key)"] {
                try await client.execute(uri: uri, method: .get, headers: parseHeaders) { response throws in
                    if uri.contains("uniqueKey") {
                        #expect((try response.json["results"] as? [Any])?.isEmpty == true)
                    } else {
                        #expect(response.status == .notFound)
                    }
                }
            }
            // The author cannot edit it behind the moderator's back.
            try await client.execute(
                uri: "/parse/classes/StudentLocation/\(post)", method: .put, headers: author.parseHeaders,
                body: jsonBody(["mapString": "Elsewhere"])
            ) { response throws in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/api/account", method: .get, headers: author.cookieHeaders) { response throws in
                let notices = try #require(try response.json["notices"] as? [[String: Any]])
                #expect(notices.count == 1)
                #expect(notices.first?["action"] as? String == "hide")
                #expect(notices.first?["reason"] as? String == "Advertising is not allowed here.")
                #expect(notices.first?["map_string"] as? String == "Lyon, France")
            }
            try await client.execute(uri: "/api/admin/moderation?view=newest", method: .get, headers: admin.cookieHeaders) {
                response throws in
                let locations = try #require(try response.json["locations"] as? [[String: Any]])
                #expect(locations.first?["hidden"] as? Bool == true)
                #expect(locations.first?["hidden_reason"] as? String == "Advertising is not allowed here.")
            }
            try await client.execute(uri: "/api/admin/locations/\(post)/unhide", method: .post, headers: admin.cookieHeaders) {
                response throws in
                #expect(response.status == .ok)
                #expect(try response.json["hidden"] as? Bool == false)
            }
            #expect(try await client.count() == 1)
        }
    }

    @Test("delete: the post is gone and its author is told where and why")
    func moderatorDelete() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let admin = try await client.makeUser()
            let author = try await client.makeUser()
            let post = try await client.postLocation(author, ["mapString": "Oslo"])
            try await client.execute(
                uri: "/api/admin/locations/\(post)", method: .delete, headers: admin.cookieHeaders,
                body: jsonBody(["reason": "Offensive link"])
            ) { response throws in
                #expect(response.status == .ok)
            }
            #expect(try await client.count() == 0)
            try await client.execute(
                uri: "/api/admin/locations/\(post)", method: .delete, headers: admin.cookieHeaders,
                body: jsonBody(["reason": "again"])
            ) { response throws in
                #expect(response.status == .notFound)
                #expect(try (response.json["error"] as? [String: Any])?["code"] as? String == "not_found")
            }
            try await client.execute(uri: "/api/account", method: .get, headers: author.cookieHeaders) { response throws in
                let notice = try #require((try response.json["notices"] as? [[String: Any]])?.first)
                #expect(notice["action"] as? String == "delete")
                #expect(notice["map_string"] as? String == "Oslo")
                #expect(notice["reason"] as? String == "Offensive link")
            }
        }
    }

    @Test("bad moderation input: missing, empty, over-long or multi-line reasons, bad view or limit; 400 and nothing changes")
    func badInput() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let admin = try await client.makeUser()
            let post = try await client.postLocation(admin)
            let bodies: [(ByteBuffer?, String)] = [
                (nil, "invalid_body"), (textBody("not json"), "invalid_body"), (jsonBody(["why": "x"]), "invalid_body"),
                (jsonBody(["reason": "   "]), "invalid_reason"),
                (jsonBody(["reason": String(repeating: "x", count: 501)]), "invalid_reason"),
                (jsonBody(["reason": "two\nlines"]), "invalid_reason"), (jsonBody(["reason": 5]), "invalid_body"),
            ]
            for (body, code) in bodies {
                for (method, uri) in [
                    (HTTPRequest.Method.post, "/api/admin/locations/\(post)/hide"), (.delete, "/api/admin/locations/\(post)"),
                    (.post, "/api/locations/\(post)/report"),
                ] {
                    try await client.execute(
                        uri: uri, method: method, headers: admin.cookieHeaders.merging([.contentType: "application/json"]), body: body
                    ) { response throws in
                        #expect(response.status == .badRequest, "\(uri)")
                        #expect(try (response.json["error"] as? [String: Any])?["code"] as? String == code)
                    }
                }
            }
            #expect(try await client.count() == 1)
            for (query, code) in [
                ("view=oldest", "invalid_view"), ("limit=0", "invalid_limit"), ("limit=x", "invalid_limit"), ("limit=501", "invalid_limit"),
            ] {
                try await client.execute(uri: "/api/admin/moderation?\(query)", method: .get, headers: admin.cookieHeaders) {
                    response throws in
                    #expect(response.status == .badRequest)
                    #expect(try (response.json["error"] as? [String: Any])?["code"] as? String == code)
                }
            }
            for uri in [
                "/api/admin/users/0000000000/disable", "/api/admin/users/0000000000/promote", "/api/admin/users/0000000000/reset-link",
            ] {
                try await client.execute(uri: uri, method: .post, headers: admin.cookieHeaders) { response throws in
                    #expect(response.status == .notFound)
                }
            }
            try await client.execute(uri: "/api/admin/users/\(admin.key)/disable", method: .post, headers: admin.cookieHeaders) {
                response throws in
                #expect(response.status == .badRequest)
                #expect(try (response.json["error"] as? [String: Any])?["code"] as? String == "cannot_disable_self")
            }
        }
    }

    @Test("reports: any student, once per post, listed for the administrator with reasons; bounded per hour")
    func reports() async throws {
        let clock = ManualClock()
        try await withTestServer({ $0.clock = clock.clock }, defaultClass: .public) { client in
            let admin = try await client.makeUser()
            let author = try await client.makeUser()
            let reporter = try await client.makeUser()
            let spam = try await client.postLocation(author)
            clock.advance(by: 1)  // distinct creation times, so "newest" has one order
            let fine = try await client.postLocation(admin)
            try await client.execute(uri: "/api/locations/\(spam)/report", method: .post, body: jsonBody(["reason": "spam"])) {
                response throws in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(
                uri: "/api/locations/\(spam)/report", method: .post, headers: reporter.cookieHeaders,
                body: jsonBody(["reason": "Selling watches"])
            ) { response throws in
                #expect(response.status == .created)
                #expect(try response.json["already_reported"] as? Bool == false)
            }
            try await client.execute(
                uri: "/api/locations/\(spam)/report", method: .post, headers: reporter.cookieHeaders,
                body: jsonBody(["reason": "again"])
            ) { response throws in
                #expect(response.status == .ok)
                #expect(try response.json["already_reported"] as? Bool == true)
            }
            try await client.execute(
                uri: "/api/locations/nosuchpost/report", method: .post, headers: reporter.cookieHeaders,
                body: jsonBody(["reason": "x"])
            ) { response throws in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/api/admin/moderation?view=reported", method: .get, headers: admin.cookieHeaders) {
                response throws in
                let locations = try #require(try response.json["locations"] as? [[String: Any]])
                #expect(locations.count == 1)
                let first = try #require(locations.first)
                #expect((first["location"] as? [String: Any])?["objectId"] as? String == spam)
                #expect(first["report_count"] as? Int == 1)
                #expect(first["report_reasons"] as? [String] == ["Selling watches"])
                #expect(first["owner_key"] as? String == author.key)
            }
            try await client.execute(uri: "/api/admin/moderation", method: .get, headers: admin.cookieHeaders) { response throws in
                let ids = (try response.json["locations"] as? [[String: Any]])?.compactMap {
                    ($0["location"] as? [String: Any])?["objectId"] as? String
                }
                #expect(ids == [fine, spam])
            }
            // The bound: 20 reports an hour, then 429 with Retry-After.
            var posts: [String] = []
            for _ in 0..<20 { posts.append(try await client.postLocation(author)) }
            for (index, post) in posts.enumerated() {
                try await client.execute(
                    uri: "/api/locations/\(post)/report", method: .post, headers: reporter.cookieHeaders,
                    body: jsonBody(["reason": "spam"])
                ) { response throws in
                    #expect(response.status == (index < 19 ? .created : .tooManyRequests))
                    if index == 19 {
                        #expect(response.headers[.retryAfter] != nil)
                        #expect(try (response.json["error"] as? [String: Any])?["code"] as? String == "rate_limited")
                    }
                }
            }
        }
    }

    @Test("disable: every session ends at once, login is refused, posts vanish for everyone; enable restores the posts")
    func disableAndEnable() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let admin = try await client.makeUser()
            let student = try await client.makeUser()
            let second = try await client.login(email: student.email, password: student.password)
            try await client.postLocation(student)
            try await client.postLocation(admin)
            #expect(try await client.count() == 2)
            try await client.execute(uri: "/api/admin/users/\(student.key)/disable", method: .post, headers: admin.cookieHeaders) {
                response throws in
                #expect(response.status == .ok)
                #expect(try response.json["ended_sessions"] as? Int == 2)
            }
            #expect(try await client.count() == 1)
            for session in [student.sessionID, second] {
                try await client.execute(uri: "/api/account", method: .get, headers: [.cookie: "onthemap_session=\(session)"]) {
                    response throws in
                    #expect(response.status == .unauthorized)
                }
            }
            try await client.execute(
                uri: "/api/session", method: .post,
                body: jsonBody(["udacity": ["username": student.email, "password": student.password]])
            ) { response throws in
                #expect(response.status == .forbidden)
                #expect(try response.udacityJSON["error"] as? String == "This account has been disabled by the community's administrator.")
            }
            // A wrong password is told nothing about the account being disabled.
            try await client.execute(
                uri: "/api/session", method: .post,
                body: jsonBody(["udacity": ["username": student.email, "password": "wrong password"]])
            ) { response throws in
                #expect(try response.udacityJSON["error"] as? String == "Account not found or invalid credentials.")
            }
            try await client.execute(uri: "/api/admin/users", method: .get, headers: admin.cookieHeaders) { response throws in
                let users = try #require(try response.json["users"] as? [[String: Any]])
                #expect(Set(users.compactMap { $0["key"] as? String }) == [admin.key, student.key])
                for user in users {
                    let isStudent = user["key"] as? String == student.key
                    #expect(user["disabled"] as? Bool == isStudent)
                    #expect(user["is_admin"] as? Bool == !isStudent)
                    #expect(user["location_count"] as? Int == 1)
                }
            }
            try await client.execute(uri: "/api/admin/users/\(student.key)/enable", method: .post, headers: admin.cookieHeaders) {
                response throws in
                #expect(response.status == .ok)
            }
            #expect(try await client.count() == 2)
            _ = try await client.login(email: student.email, password: student.password)
        }
    }

    @Test("promote: the promoted student can moderate")
    func promote() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let admin = try await client.makeUser()
            let student = try await client.makeUser()
            try await client.execute(uri: "/api/admin/users/\(student.key)/promote", method: .post, headers: admin.cookieHeaders) {
                response throws in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/api/admin/users", method: .get, headers: student.cookieHeaders) { response throws in
                #expect(response.status == .ok)
            }
        }
    }
}

extension HTTPFields {
    func merging(_ other: HTTPFields) -> HTTPFields {
        var result = self
        for field in other { result[field.name] = field.value }
        return result
    }
}
