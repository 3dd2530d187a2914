import ArgumentParser
import Foundation
import OnTheMapServer

/// `onthemap admin mail …`: checks the SMTP relay the server sends email through.
struct MailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mail", abstract: "Check the SMTP relay email goes through.", subcommands: [Test.self])

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send one test message through the relay, as serve would, and print what the relay answered.")
        @Argument(help: "Where to send it.") var address: String
        @Option(help: "The relay, as for serve. [env: ONTHEMAP_SMTP_URL; password: ONTHEMAP_SMTP_PASSWORD]") var smtpURL: String?
        @Option(help: "Who it comes from, as for serve. [env: ONTHEMAP_MAIL_FROM]") var mailFrom: String?
        @OptionGroup var publicURL: PublicURLOption

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            func setting(_ given: String?, _ name: String) -> String? {
                given ?? environment[name].flatMap { $0.isEmpty ? nil : $0 }
            }
            var configuration = Configuration()
            configuration.smtpURL = setting(smtpURL, "ONTHEMAP_SMTP_URL")
            configuration.smtpPassword = setting(nil, "ONTHEMAP_SMTP_PASSWORD")
            configuration.mailFrom = setting(mailFrom, "ONTHEMAP_MAIL_FROM")
            configuration.publicURL = setting(publicURL.publicURL, "ONTHEMAP_PUBLIC_URL")
            guard configuration.smtpURL != nil else {
                throw ValidationError("Email is not set up: give --smtp-url smtp://user@host:587 (or ONTHEMAP_SMTP_URL).")
            }
            do {
                try configuration.validate()
            } catch let error as ConfigurationError {
                throw ValidationError(error.description)
            }
            guard MailAddress.isPlausible(address) else { throw ValidationError("'\(address.prefix(80))' is not an email address.") }
            guard let transport = configuration.mailTransport, let sender = configuration.mailSender else { return }
            let origin = configuration.publicOrigin ?? ""
            let text =
                "This is a test message from On the Map at \(origin).\n\nEmail from this server works: forgotten passwords and invitations will reach people."
            let message = MailComposer.compose(
                from: sender, to: address,
                content: MailContent(
                    subject: "On the Map: test message", text: text,
                    html: MailContent.simpleHTML(lang: "en", paragraphs: text.components(separatedBy: "\n\n"))),
                date: Date())
            print("Sending to \(address) through \(transport.settings.description) as \(sender.address) …")
            do {
                let answer = try await transport.send(message)
                print("The relay accepted it: \(answer)")
                print("Message-ID: \(message.messageID)")
            } catch {
                FileHandle.standardError.write(Data("Not sent: \(error)\n".utf8))
                throw ExitCode(1)
            }
        }
    }
}
