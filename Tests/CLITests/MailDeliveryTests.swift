import Foundation
import OnTheMapServer
import Testing

/// Email through a real SMTP relay process (aiosmtpd, `Tests/E2E/smtp_sink.py`): plain, STARTTLS
/// and implicit TLS, AUTH, refusals and a relay that is down, and `onthemap admin mail test`.
@Suite("Mail delivery", .serialized)
struct MailDeliveryTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-mail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    static let sender = MailAddress(name: "On the Map · École", address: "map@school.example")

    func message(to recipient: String = "ana@example.org") -> OutgoingMessage {
        MailComposer.compose(
            from: Self.sender, to: recipient,
            content: MailContent(
                subject: "Réinitialiser votre mot de passe — 地图",
                text: "Bonjour Ana,\n.\n..point\nhttps://map.example.org/reset.html#token=abc",
                html: MailContent.simpleHTML(lang: "fr", paragraphs: ["Bonjour <Ana>"])),
            date: Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test func sendsAMessageThatArrivesWhole() async throws {
        guard SMTPSink.available else { return }
        let sink = try await SMTPSink(in: directory)
        defer { sink.stop() }
        let transport = SMTPTransport(
            settings: try SMTPSettings.parse("smtp://127.0.0.1:\(sink.port)"), clientName: "map.example.org")
        let message = message()
        let answer = try await transport.send(message)
        #expect(answer.hasPrefix("250"), "\(answer)")
        let received = try sink.messages()
        try #require(received.count == 1)
        #expect(received[0].mailFrom == "map@school.example")
        #expect(received[0].rcptTos == ["ana@example.org"])
        #expect(!received[0].tls)
        let data = received[0].data
        #expect(data.contains("Message-ID: \(message.messageID)"))
        #expect(data.contains("Date: Tue, 14 Nov 2023 22:13:20 +0000"))
        #expect(data.contains("Subject: =?UTF-8?B?"))
        #expect(data.contains("Content-Type: multipart/alternative"))
        // The text part arrives as written (dot-stuffing undone by the relay).
        let textPart = try #require(data.components(separatedBy: "Content-Transfer-Encoding: base64").dropFirst().first)
        let base64 = textPart.split(whereSeparator: \.isNewline).prefix { !$0.hasPrefix("--") }.filter { !$0.contains(":") }.joined()
        let text = String(decoding: try #require(Data(base64Encoded: base64)), as: UTF8.self)
        #expect(text == "Bonjour Ana,\r\n.\r\n..point\r\nhttps://map.example.org/reset.html#token=abc")
    }

    @Test func dotStuffingKeepsLinesThatStartWithADot() async throws {
        guard SMTPSink.available else { return }
        let sink = try await SMTPSink(in: directory)
        defer { sink.stop() }
        let transport = SMTPTransport(settings: try SMTPSettings.parse("smtp://127.0.0.1:\(sink.port)"), clientName: "map.example.org")
        let raw = "Subject: dots\r\nMessage-ID: <dots@example.org>\r\n\r\nfirst\r\n.\r\n.second\r\n..third\r\nlast\r\n"
        _ = try await transport.send(
            OutgoingMessage(sender: "a@example.org", recipient: "b@example.org", messageID: "<dots@example.org>", data: raw))
        let received = try #require(try sink.messages().first)
        #expect(
            received.data.hasSuffix("first\r\n.\r\n.second\r\n..third\r\nlast\r\n")
                || received.data.hasSuffix("first\n.\n.second\n..third\nlast\n"), "\(received.data)")
    }

    @Test func startTLSWithALoginAndImplicitTLS() async throws {
        guard SMTPSink.available else { return }
        let (certificate, key) = try SMTPSink.makeCertificate(in: directory)
        let sink = try await SMTPSink(["--tls-cert", certificate, "--tls-key", key, "--auth", "mapper:s3cret pass"], in: directory)
        defer { sink.stop() }
        // The password from the environment, as ONTHEMAP_SMTP_PASSWORD gives it.
        let settings = try SMTPSettings.parse(
            "smtp://mapper@localhost:\(sink.port)?tls=required&ca-file=\(certificate)", environmentPassword: "s3cret pass")
        #expect(!settings.description.contains("s3cret"))
        _ = try await SMTPTransport(settings: settings, clientName: "map.example.org").send(message())
        let received = try sink.messages()
        #expect(received.count == 1)
        #expect(received.first?.tls == true)
        #expect(received.first?.auth == true)

        // A wrong password: refused at the login, not the message's fault, and never quoted.
        var wrong = settings
        wrong.password = "not it"
        do {
            _ = try await SMTPTransport(settings: wrong, clientName: "map.example.org").send(message())
            Issue.record("a wrong password was accepted")
        } catch let error as MailDeliveryError {
            #expect(!error.isPermanent)
            #expect(!error.description.contains("not it"))
            #expect(error.description.contains("535"), "\(error)")
        }
        // A certificate nobody vouches for is refused.
        var untrusted = settings
        untrusted.caFile = nil
        await #expect(throws: MailDeliveryError.self) { try await SMTPTransport(settings: untrusted, clientName: "x").send(message()) }

        let implicit = try await SMTPSink(
            ["--tls-cert", certificate, "--tls-key", key, "--implicit-tls", "--auth", "mapper:s3cret pass"], in: directory)
        defer { implicit.stop() }
        _ = try await SMTPTransport(
            settings: try SMTPSettings.parse("smtps://mapper:s3cret%20pass@localhost:\(implicit.port)?ca-file=\(certificate)"),
            clientName: "map.example.org"
        ).send(message())
        #expect(try implicit.messages().first?.tls == true)
    }

    @Test func refusalsAndARelayThatIsDown() async throws {
        guard SMTPSink.available else { return }
        let permanent = try await SMTPSink(["--refuse", "550"], in: directory)
        defer { permanent.stop() }
        do {
            _ = try await SMTPTransport(settings: try SMTPSettings.parse("smtp://127.0.0.1:\(permanent.port)"), clientName: "x").send(
                message())
            Issue.record("a refused recipient was sent")
        } catch let error as MailDeliveryError {
            #expect(error.isPermanent, "\(error)")
            #expect(error == .rejected(code: 550, reply: "5.1.1 no such mailbox here"))
        }
        let temporary = try await SMTPSink(["--refuse", "451"], in: directory)
        defer { temporary.stop() }
        do {
            _ = try await SMTPTransport(settings: try SMTPSettings.parse("smtp://127.0.0.1:\(temporary.port)"), clientName: "x").send(
                message())
            Issue.record("a refused recipient was sent")
        } catch let error as MailDeliveryError {
            #expect(!error.isPermanent, "\(error)")
        }
        // STARTTLS required, and this relay has none.
        do {
            _ = try await SMTPTransport(
                settings: try SMTPSettings.parse("smtp://127.0.0.1:\(temporary.port)?tls=required"), clientName: "x"
            )
            .send(message())
            Issue.record("sent without TLS")
        } catch let error as MailDeliveryError {
            #expect(error.description.contains("STARTTLS"), "\(error)")
        }
        let nobody = try freePort()
        do {
            _ = try await SMTPTransport(settings: try SMTPSettings.parse("smtp://127.0.0.1:\(nobody)"), clientName: "x").send(message())
            Issue.record("sent to nobody")
        } catch let error as MailDeliveryError {
            guard case .connection = error else {
                Issue.record("\(error)")
                return
            }
        }
    }

    @Test func adminMailTestPrintsTheRelaysAnswer() async throws {
        guard SMTPSink.available else { return }
        let sandbox = try CLISandbox()
        let sink = try await SMTPSink(in: directory)
        defer { sink.stop() }
        let result = try sandbox.run(
            [
                "admin", "mail", "test", "teacher@example.org", "--smtp-url", "smtp://127.0.0.1:\(sink.port)",
                "--mail-from", "On the Map <map@school.example>", "--public-url", "https://map.school.example",
            ])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("The relay accepted it: 250"), "\(result)")
        #expect(try sink.messages().first?.rcptTos == ["teacher@example.org"])

        let unset = try sandbox.run(["admin", "mail", "test", "teacher@example.org"], environment: ["ONTHEMAP_SMTP_URL": ""])
        #expect(unset.status != 0)
        #expect(unset.stderr.contains("Email is not set up"), "\(unset)")

        let down = try sandbox.run([
            "admin", "mail", "test", "teacher@example.org", "--smtp-url", "smtp://127.0.0.1:\(try freePort())", "--public-url",
            "https://map.school.example",
        ])
        #expect(down.status == 1, "\(down)")
        #expect(down.stderr.contains("Not sent: no answer from the relay"), "\(down)")
    }

    @Test func emailNeedsThePublicURL() throws {
        #expect(throws: (any Error).self) {
            _ = try Settings.configuration(arguments: ["--smtp-url", "smtp://relay.example.org"], environment: [:])
        }
        do {
            _ = try Settings.configuration(arguments: ["--smtp-url", "smtp://relay.example.org"], environment: [:])
        } catch {
            #expect("\(error)".contains("--public-url"))
        }
        let configuration = try Settings.configuration(
            arguments: ["--smtp-url", "smtps://me:urlpass@relay.example.org", "--public-url", "https://map.school.example"],
            environment: ["ONTHEMAP_SMTP_PASSWORD": "envpass"])
        #expect(configuration.smtp?.password == "envpass")
        #expect(configuration.smtp?.port == 465)
        #expect(configuration.smtp?.security == .implicitTLS)
        #expect(configuration.mailSender == MailAddress(name: "On the Map", address: "onthemap@map.school.example"))
        #expect(throws: (any Error).self) {
            _ = try Settings.configuration(
                arguments: ["--smtp-url", "http://relay.example.org", "--public-url", "https://m.example"], environment: [:])
        }
        // Without --smtp-url, email is simply off.
        #expect(try Settings.configuration(arguments: [], environment: [:]).mailTransport == nil)
    }
}
