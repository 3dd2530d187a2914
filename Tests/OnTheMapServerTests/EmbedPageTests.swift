import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Storage
import Testing

@testable import OnTheMapServer

/// `/embed/<slug>`: a public class's map may be framed by any site; every other page, and
/// every class that is not public, keeps refusing to be framed, and a class that is not
/// public answers exactly as a slug no class has (nobody learns that a private class exists).
@Suite("Embed page")
struct EmbedPageTests {
    static let frameOptions = HTTPField.Name("X-Frame-Options")!

    @Test("a public class's embed page is framable by any site; the app's own pages still refuse framing")
    func publicClass() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let embed = try await client.execute(uri: "/embed/main", method: .get)
            #expect(embed.status == .ok)
            #expect(embed.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(embed.headers[Self.frameOptions] == nil)
            let policy = try #require(embed.headers[.contentSecurityPolicy])
            #expect(policy.contains("frame-ancestors *"))
            #expect(!policy.contains("frame-ancestors 'none'"))
            // Still no inline script, nothing from another origin.
            #expect(policy.contains("script-src 'self'"))
            #expect(embed.headers[.xContentTypeOptions] == "nosniff")
            #expect(embed.text.contains("/js/embed.js"))

            for path in ["/", "/index.html", "/config.json", "/embed.html", "/js/embed.js", "/reset.html"] {
                let page = try await client.execute(uri: path, method: .get)
                #expect(page.status == .ok, "\(path)")
                #expect(page.headers[Self.frameOptions] == "DENY", "\(path)")
                #expect(page.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true, "\(path)")
            }
            // Not a slug, a slug no class has, more path: 404, not framable.
            for path in ["/embed/nobody-here", "/embed/Main", "/embed/main/more", "/embed/", "/embed/%2e%2e"] {
                let missing = try await client.execute(uri: path, method: .get)
                #expect(missing.status == .notFound, "\(path)")
                #expect(missing.headers[Self.frameOptions] == "DENY", "\(path)")
            }
        }
    }

    @Test(
        "a members-only or server class's embed page is the 404 of a slug no class has, and refuses framing",
        arguments: [MapClass.Visibility.members, .server])
    func privateClass(_ visibility: MapClass.Visibility) async throws {
        try await withTestServer(defaultClass: visibility) { client in
            let embed = try await client.execute(uri: "/embed/main", method: .get)
            let unknown = try await client.execute(uri: "/embed/no-such-class", method: .get)
            #expect(embed.status == .notFound)
            #expect(embed.text == unknown.text)
            #expect(embed.headers[.contentType] == unknown.headers[.contentType])
            #expect(embed.headers[Self.frameOptions] == "DENY")
            #expect(embed.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            #expect(!embed.text.contains("embed.js"))
        }
    }

    @Test("a class made public answers its embed page at once, and members-only again a 404")
    func visibilityChange() async throws {
        try await withTestServer { client in
            let admin = try await client.makeUser()
            _ = try await ClassTests.makeClass(client, by: admin, slug: "geo-101", visibility: "public", join: "open")
            _ = try await ClassTests.makeClass(client, by: admin, slug: "bio-101", visibility: "members")
            let open = try await client.execute(uri: "/embed/geo-101", method: .get)
            #expect(open.status == .ok)
            #expect(open.headers[Self.frameOptions] == nil)
            #expect(try await client.execute(uri: "/embed/bio-101", method: .get).status == .notFound)
            let change = try await client.execute(
                uri: "/api/classes/geo-101", method: .patch, headers: admin.cookieHeaders, body: jsonBody(["visibility": "members"]))
            #expect(change.status == .ok)
            let closed = try await client.execute(uri: "/embed/geo-101", method: .get)
            #expect(closed.status == .notFound)
            #expect(closed.headers[Self.frameOptions] == "DENY")
        }
    }
}
