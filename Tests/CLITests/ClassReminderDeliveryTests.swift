import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// "Remind those not yet on the map" end to end: `onthemap serve` with `--smtp-url` pointing at
/// a real relay (aiosmtpd, `Tests/E2E/smtp_sink.py`); a teacher's press reaches the member with
/// no post, in their language, with the class map's link on the public URL; a second press the
/// same day is a 429 that says when.
@Suite("Class reminders by email", .serialized)
struct ClassReminderDeliveryTests {
    struct Answer {
        let status: Int
        let json: [String: Any]
        let retryAfter: String?
    }

    static func call(_ server: ServerProcess, _ method: String, _ path: String, _ body: [String: Any]? = nil, session: String? = nil)
        async throws -> Answer
    {
        var request = URLRequest(url: server.url.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let session { request.setValue(session, forHTTPHeaderField: "X-Parse-Session-Token") }
        // The Parse protocol's well-known application keys (the old iOS app's).
        if path.contains("parse/") {
            request.setValue("QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr", forHTTPHeaderField: "X-Parse-Application-Id")
            request.setValue("QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY", forHTTPHeaderField: "X-Parse-REST-API-Key")
        }
        if let body { request.httpBody = try JSONSerialization.data(withJSONObject: body) }
        let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        var text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix(")]}'") { text = String(text.dropFirst(5)) }
        let http = response as? HTTPURLResponse
        let json = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        return Answer(status: http?.statusCode ?? 0, json: json, retryAfter: http?.value(forHTTPHeaderField: "Retry-After"))
    }

    static func signUp(_ server: ServerProcess, _ email: String, first: String) async throws -> String {
        let made = try await call(
            server, "POST", "api/users", ["email": email, "password": "correct horse", "first_name": first, "last_name": "Tester"])
        try #require(made.status == 201, "sign-up: \(made.status) \(made.json)")
        let session = try await call(server, "POST", "api/session", ["udacity": ["username": email, "password": "correct horse"]])
        return try #require((session.json["session"] as? [String: Any])?["id"] as? String)
    }

    /// The text part of a received message.
    static func text(of data: String) -> String {
        let part = data.components(separatedBy: "Content-Transfer-Encoding: base64").dropFirst().first ?? ""
        let base64 = part.split(whereSeparator: \.isNewline).prefix { !$0.hasPrefix("--") }.filter { !$0.contains(":") }.joined()
        return String(decoding: Data(base64Encoded: base64) ?? Data(), as: UTF8.self)
    }

    @Test func aReminderReachesTheMemberWithNoPostInTheirLanguage() async throws {
        guard SMTPSink.available else { return }
        let sandbox = try CLISandbox()
        let sink = try await SMTPSink(in: sandbox.directory)
        defer { sink.stop() }
        let server = try await ServerProcess(
            sandbox: sandbox,
            arguments: [
                "--smtp-url", "smtp://127.0.0.1:\(sink.port)", "--public-url", "http://map.example.org",
                "--mail-from", "On the Map <map@school.example>",
            ])
        defer { server.stop() }

        // The first account is the server's administrator: it makes the class and teaches it.
        let teacher = try await Self.signUp(server, "teacher@example.org", first: "Tess")
        let student = try await Self.signUp(server, "lena@example.org", first: "Lena")
        let posted = try await Self.signUp(server, "paul@example.org", first: "Paul")
        let made = try await Self.call(
            server, "POST", "api/classes", ["slug": "erdkunde-7", "name": "Erdkunde 7", "join": "invite"], session: teacher)
        try #require(made.status == 201, "\(made.json)")
        let code = try #require(made.json["invite_code"] as? String)
        for member in [student, posted] {
            #expect(try await Self.call(server, "POST", "api/classes/erdkunde-7/join", ["code": code], session: member).status == 200)
        }
        #expect(try await Self.call(server, "PUT", "api/account/language", ["language": "de"], session: student).status == 200)
        let post = try await Self.call(
            server, "POST", "c/erdkunde-7/parse/classes/StudentLocation",
            [
                "firstName": "Paul", "lastName": "Tester", "mapString": "Berlin", "mediaURL": "https://example.org",
                "latitude": 52.52, "longitude": 13.405,
            ], session: posted)
        #expect(post.status == 201, "\(post.json)")

        let sent = try await Self.call(server, "POST", "api/classes/erdkunde-7/reminders", session: teacher)
        #expect(sent.status == 202, "\(sent.json)")
        #expect(sent.json["reminded"] as? Int == 1)

        let deadline = Date().addingTimeInterval(20)
        while try sink.messages().isEmpty, Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        let received = try sink.messages()
        try #require(received.count == 1, "one reminder, to the member with no post")
        #expect(received[0].rcptTos == ["lena@example.org"])
        #expect(received[0].mailFrom == "map@school.example")
        let text = Self.text(of: received[0].data)
        #expect(text.contains("Hallo Lena"), "in the member's language: \(text)")
        #expect(text.contains("Erdkunde 7"), "it names the class")
        #expect(text.contains("http://map.example.org/c/erdkunde-7"), "it links to the class map on the public URL")

        let again = try await Self.call(server, "POST", "api/classes/erdkunde-7/reminders", session: teacher)
        #expect(again.status == 429)
        #expect((again.json["error"] as? [String: Any])?["code"] as? String == "reminded_recently")
        #expect(again.retryAfter.flatMap(Int.init).map { $0 > 86_000 && $0 <= 86_400 } == true)
        #expect(try sink.messages().count == 1)
    }
}
