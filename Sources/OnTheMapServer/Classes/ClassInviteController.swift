import Foundation
import Hummingbird
import Localization
import OnTheMapModels
import Storage

/// A class's invite link beyond copying it (`/api`, errors as `{"error":{"code","message"}}`):
///
/// - `POST /api/classes/:slug/invite/email` `{"emails":[…]}` (the class's teachers): one email
///   per address with the class's invite link on the server's public URL, in the teacher's
///   language (else the request's), naming the class and the teacher; all written to the
///   outbox in one transaction. At most `maximumAddresses` a request and `perClassPerDay` a
///   class in 24 hours (429). Without email set up: 503 `email_not_set_up`.
/// - `GET /api/invites/:slug/:code` (anyone, rate-limited per client network): what the invite
///   page shows a visitor before they sign up, the class's name and its teacher's first name
///   and last initial. An unknown class and a wrong or revoked code answer the same 404, so
///   the route tells nobody which classes exist.
struct ClassInviteController: Sendable {
    let store: any OnTheMapStore
    let directory: ClassDirectory
    let mailer: Mailer?
    let configuration: Configuration
    /// Per client network: 30 at once, then one a second.
    let lookups = RateLimiter(perSecond: 1, burst: 30)

    static let maximumAddresses = 200
    static let perClassPerDay = 500
    static let invalidInvite = APIError(
        .notFound, "invalid_invite", "This invite link is not (or no longer) valid. Ask your teacher for a new link.")

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("classes/:slug/invite/email", use: sendByEmail)
        group.get("invites/:slug/:code", use: lookUp)
    }

    /// The outbox's kind for one class's invitations: the daily limit counts it.
    static func kind(classId: String) -> String { "class_invite:\(classId)" }

    @Sendable func sendByEmail(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, access) = try await ClassAccess.named(
            context.parameters.get("slug") ?? "", for: context.caller, directory: directory, store: store)
        let me = try access.requireTeacher(.api)
        let body = try await request.collectBody(limit: configuration.maxBodySize) { APIError.tooLarge }
        struct Form: Decodable { let emails: [String] }
        guard let form = try? JSONDecoder().decode(Form.self, from: body) else {
            throw APIError(.badRequest, "invalid_body", "Send a JSON object with emails (a list of addresses).")
        }
        var addresses: [String] = []
        for raw in form.emails {
            let email = AccountController.normalizedEmail(raw)
            guard MailAddress.isPlausible(email) else {
                throw APIError(
                    .badRequest, "invalid_email",
                    "'\(String(raw.prefix(100)))' is not an email address; write addresses like name@example.com.")
            }
            if !addresses.contains(email) { addresses.append(email) }
        }
        guard !addresses.isEmpty else {
            throw APIError(.badRequest, "invalid_email", "Write at least one email address, like name@example.com.")
        }
        guard addresses.count <= Self.maximumAddresses else {
            throw APIError(.badRequest, "too_many_addresses", "At most \(Self.maximumAddresses) addresses at a time.")
        }
        guard let mailer else {
            throw APIError(
                .serviceUnavailable, "email_not_set_up", Configuration.mailNotSetUp + " Copy the invite link and send it yourself.")
        }
        guard found.archivedAt == nil else {
            throw APIError(.conflict, "class_archived", "This class is archived: it takes no new members.")
        }
        guard let code = found.inviteCode else {
            throw APIError(.conflict, "no_invite_link", "This class has no invite link: make one first.")
        }
        let language = try await store.accountLanguage(accountKey: me.accountKey).flatMap(Language.init(rawValue:)) ?? request.language
        let inviter = [me.account.firstName, me.account.lastName].filter { !$0.isEmpty }.joined(separator: " ")
        let link = "\(mailer.publicOrigin)/#/join/\(found.slug)/\(code)"
        let content = InviteMailTexts.invitation(language: language, className: found.name, inviter: inviter, link: link)
        let now = configuration.clock.now()
        let kind = Self.kind(classId: found.id)
        let mails = addresses.map { mailer.mail(kind: kind, to: $0, content: content, now: now) }
        guard
            try await store.enqueueMails(
                mails, kind: kind, now: now, since: now.addingTimeInterval(-86_400), limit: Self.perClassPerDay)
        else {
            throw APIError(
                .tooManyRequests, "too_many_invitations",
                "A class sends at most \(Self.perClassPerDay) invitations by email a day; try again tomorrow, or copy the link.")
        }
        mailer.messageWritten()
        // Each address not yet a member is on the roster as invited (as a student, unless it was
        // invited with another role): the teacher sees who joined, may send again or withdraw,
        // and an account with the address finds the class among those it may join.
        let invited = Set(try await store.invitations(classId: found.id).map { $0.email.lowercased() })
        for email in addresses where !invited.contains(email.lowercased()) {
            if let account = try await store.account(email: email), try await store.role(classId: found.id, accountKey: account.key) != nil
            {
                continue
            }
            try await store.invite(classId: found.id, email: email, role: .student, now: now)
        }
        context.logger.notice("class invitations emailed", metadata: ["class": "\(found.slug)", "count": "\(mails.count)"])
        var response = try JSONResponse.make(["sent": mails.count])
        response.status = .accepted
        return response
    }

    @Sendable func lookUp(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await lookups.admit(ForgotPasswordController.network(of: context.clientAddress))
        let slug = context.parameters.get("slug") ?? ""
        let code = context.parameters.get("code") ?? ""
        guard ClassSlug.isWellFormed(slug), code.count <= 100, let found = try await directory.mapClass(slug: slug),
            let expected = found.inviteCode, Tokens.constantTimeEqual(code, expected)
        else { throw Self.invalidInvite }
        let teacher = try await store.members(classId: found.id).filter { $0.role == .teacher }.min { $0.joinedAt < $1.joinedAt }
        return try JSONResponse.make(
            InviteView(
                slug: found.slug, name: found.name, teacher: teacher.map { Self.shortName(first: $0.firstName, last: $0.lastName) },
                archived: found.archivedAt != nil))
    }

    /// "Ada L.": a first name and the last name's initial, all a visitor sees of a teacher.
    static func shortName(first: String, last: String) -> String {
        guard let initial = last.trimmingCharacters(in: .whitespaces).first else { return first }
        return first.isEmpty ? "\(initial)." : "\(first) \(initial)."
    }
}

struct InviteView: Encodable {
    let slug, name: String
    /// The class's first teacher, as "Ada L."; null when it has none.
    @ExplicitNull var teacher: String?
    let archived: Bool
}

/// The invitation email, in the inviting teacher's language (their account's choice, else their
/// request's): the catalogues' `mail.invite.*` messages.
enum InviteMailTexts {
    static func invitation(language: Language, className: String, inviter: String, link: String) -> MailContent {
        let say = Translator(language)
        let names: [String: MessageArgument] = ["inviter": .text(inviter), "class": .text(className)]
        let body = say("mail.invite.body", names)
        let after = say("mail.invite.after", names)
        let text = [body, link, after].joined(separator: "\n\n")
        return MailContent(
            subject: say("mail.invite.subject", names), text: text,
            html: MailContent.simpleHTML(lang: language.tag, paragraphs: [body, after], link: (say("mail.invite.button", names), link)))
    }
}
