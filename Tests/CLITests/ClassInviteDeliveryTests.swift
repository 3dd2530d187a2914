import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Send by email end to end: `onthemap serve` with `--smtp-url` pointing at a real relay
/// (aiosmtpd, `Tests/E2E/smtp_sink.py`); a teacher's invitations reach each address, in the
/// teacher's language, naming the class and the teacher, with the invite link on the public
/// URL; a student of the class is refused (403) and nothing more is sent.
@Suite("Class invitations by email", .serialized)
struct ClassInviteDeliveryTests {
    typealias Calls = ClassReminderDeliveryTests

    @Test func invitationsReachEachAddressWithTheLink() async throws {
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
        let teacher = try await Calls.signUp(server, "teacher@example.org", first: "Tess")
        let student = try await Calls.signUp(server, "lena@example.org", first: "Lena")
        let made = try await Calls.call(
            server, "POST", "api/classes", ["slug": "geo-101", "name": "Géographie 101", "join": "invite"], session: teacher)
        try #require(made.status == 201, "\(made.json)")
        let code = try #require(made.json["invite_code"] as? String)
        #expect(made.json["invite_email"] as? Bool == true, "the settings page may offer Send by email")
        #expect(try await Calls.call(server, "POST", "api/classes/geo-101/join", ["code": code], session: student).status == 200)
        #expect(try await Calls.call(server, "PUT", "api/account/language", ["language": "fr"], session: teacher).status == 200)

        let refused = try await Calls.call(
            server, "POST", "api/classes/geo-101/invite/email", ["emails": ["x@example.org"]], session: student)
        #expect(refused.status == 403, "\(refused.json)")

        let sent = try await Calls.call(
            server, "POST", "api/classes/geo-101/invite/email", ["emails": ["ana@example.org", "ben@example.org"]], session: teacher)
        #expect(sent.status == 202, "\(sent.json)")
        #expect(sent.json["sent"] as? Int == 2)

        let deadline = Date().addingTimeInterval(20)
        while try sink.messages().count < 2, Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        let received = try sink.messages()
        try #require(received.count == 2, "one email per address, none to the refused request's")
        #expect(Set(received.flatMap(\.rcptTos)) == ["ana@example.org", "ben@example.org"])
        for message in received {
            #expect(message.mailFrom == "map@school.example")
            let text = Calls.text(of: message.data)
            #expect(text.contains("http://map.example.org/#/join/geo-101/\(code)"), "the invite link on the public URL: \(text)")
            #expect(text.contains("Géographie 101"), "it names the class")
            #expect(text.contains("Tess Tester"), "it names the teacher")
            #expect(text.contains("vous invite"), "in the teacher's language")
        }
    }
}
