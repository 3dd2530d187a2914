import Foundation
import Hummingbird
import Localization
import OnTheMapModels
import Storage

/// `POST /api/password-reset/request` `{"email"}`: "Forgot password?". Always the same answer
/// (202), whether or not an account has the address, so nobody learns who has one here. When
/// one has: a reset link (the host's kind: single use, 24 hours, spent by any other reset or
/// password change) is written with its email in one transaction; an account that signs in
/// only with a provider gets an email saying so instead. In the account's language, else the
/// request's. Throttled per address (3 an hour, quietly: the answer stays the same) and per
/// client network (429). Without email set up: 503 `email_not_set_up`, saying so.
struct ForgotPasswordController: Sendable {
    let store: any OnTheMapStore
    let mailer: Mailer?
    let configuration: Configuration
    /// Per client network (an IPv4 /24, an IPv6 /48): 10 at once, then one a minute.
    let networks = RateLimiter(perSecond: 1.0 / 60, burst: 10)
    static let perAddressPerHour = 3

    static let answer = "If an account has this address, a link is on its way."

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("password-reset/request", use: request)
    }

    @Sendable func request(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await request.collectBody(limit: configuration.maxBodySize) { APIError.tooLarge }
        struct Form: Decodable { let email: String }
        guard let form = try? JSONDecoder().decode(Form.self, from: body) else {
            throw APIError(.badRequest, "invalid_body", "Send a JSON object with email (a string).")
        }
        let email = AccountController.normalizedEmail(form.email)
        guard MailAddress.isPlausible(email) else {
            throw APIError(.badRequest, "invalid_email", "Enter a valid email address, like name@example.com.")
        }
        guard let mailer else {
            throw APIError(
                .serviceUnavailable, "email_not_set_up", Configuration.mailNotSetUp + " Ask your teacher or the host for a reset link.")
        }
        try await networks.admit(Self.network(of: context.clientAddress))
        let now = configuration.clock.now()
        let quiet = try await store.mailCount(recipient: email, kind: "password_reset", since: now.addingTimeInterval(-3600))
        if quiet < Self.perAddressPerHour, let account = try await store.account(email: email), account.disabledAt == nil {
            let language = try await store.accountLanguage(accountKey: account.key).flatMap(Language.init(rawValue:)) ?? request.language
            if account.passwordHash.isEmpty {
                let content = MailTexts.providerOnly(language: language, origin: mailer.publicOrigin)
                try await store.enqueueMail(mailer.mail(kind: "password_reset", to: account.email, content: content, now: now), now: now)
            } else {
                let token = Tokens.randomHex(bytes: 32)
                let link = "\(mailer.publicOrigin)/reset.html#token=\(token)"
                let content = MailTexts.resetLink(language: language, name: account.firstName, link: link)
                try await store.createPasswordReset(
                    token: token, accountKey: account.key, now: now, expiresAt: now.addingTimeInterval(PasswordResetLinks.lifetime),
                    mail: mailer.mail(kind: "password_reset", to: account.email, content: content, now: now))
            }
            mailer.messageWritten()
            context.logger.notice("password reset requested by email", metadata: ["account": "\(account.key)"])
        }
        var response = try JSONResponse.make(["message": Self.answer])
        response.status = .accepted
        return response
    }

    /// The network a client address belongs to, so one place cannot spray addresses.
    static func network(of address: String) -> String {
        if address.contains(":") {
            return address.split(separator: ":", omittingEmptySubsequences: false).prefix(3).joined(separator: ":") + "::/48"
        }
        let parts = address.split(separator: ".")
        return parts.count == 4 ? parts.prefix(3).joined(separator: ".") + ".0/24" : address
    }
}

/// The password emails, in the account's language: the catalogues' `mail.reset.*` and
/// `mail.providerOnly.*` messages.
enum MailTexts {
    static func resetLink(language: Language, name: String, link: String) -> MailContent {
        let say = Translator(language)
        let greeting = say("mail.reset.greeting", ["name": .text(name)])
        let body = say("mail.reset.body")
        let after = say("mail.reset.after")
        let text = [greeting, body, link, after].joined(separator: "\n\n")
        return MailContent(
            subject: say("mail.reset.subject"), text: text,
            html: MailContent.simpleHTML(
                lang: language.tag, paragraphs: [greeting + " " + body, after], link: (say("mail.reset.button"), link)))
    }

    static func providerOnly(language: Language, origin: String) -> MailContent {
        let say = Translator(language)
        let body = say("mail.providerOnly.body", ["origin": .text(origin)])
        return MailContent(
            subject: say("mail.providerOnly.subject"), text: body, html: MailContent.simpleHTML(lang: language.tag, paragraphs: [body]))
    }
}
