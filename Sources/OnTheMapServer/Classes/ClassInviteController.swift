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

/// The invitation email's words, in the web app's eight languages.
enum InviteMailTexts {
    struct Words {
        let subject: String
        let body: String
        let button: String
        let after: String
    }

    static let words: [Language: Words] = [
        .english: Words(
            subject: "{inviter} invites you to {class} on On the Map",
            body:
                "{inviter} invites you to join the class {class} on On the Map, the map of where everybody in the class is. Open this link to sign up (or log in) and join:",
            button: "Join {class}",
            after: "If you were not expecting this invitation, ignore this email: nothing happens until you open the link."),
        .german: Words(
            subject: "{inviter} lädt Sie in {class} auf On the Map ein",
            body:
                "{inviter} lädt Sie in die Klasse {class} auf On the Map ein, die Karte, auf der alle aus der Klasse zu sehen sind. Öffnen Sie diesen Link, um sich zu registrieren (oder anzumelden) und beizutreten:",
            button: "{class} beitreten",
            after:
                "Wenn Sie diese Einladung nicht erwartet haben, ignorieren Sie diese E-Mail: Es passiert nichts, solange Sie den Link nicht öffnen."
        ),
        .spanish: Words(
            subject: "{inviter} te invita a {class} en On the Map",
            body:
                "{inviter} te invita a unirte a la clase {class} en On the Map, el mapa de dónde está cada persona de la clase. Abre este enlace para registrarte (o iniciar sesión) y unirte:",
            button: "Unirme a {class}",
            after: "Si no esperabas esta invitación, ignora este correo: no pasa nada hasta que abras el enlace."),
        .french: Words(
            subject: "{inviter} vous invite dans {class} sur On the Map",
            body:
                "{inviter} vous invite à rejoindre la classe {class} sur On the Map, la carte où l’on voit où se trouve chacun dans la classe. Ouvrez ce lien pour vous inscrire (ou vous connecter) et la rejoindre :",
            button: "Rejoindre {class}",
            after: "Si vous n’attendiez pas cette invitation, ignorez ce courriel : rien ne se passe tant que vous n’ouvrez pas le lien."),
        .portugueseBrazil: Words(
            subject: "{inviter} convida você para {class} no On the Map",
            body:
                "{inviter} convida você a entrar na turma {class} no On the Map, o mapa de onde está cada pessoa da turma. Abra este link para se cadastrar (ou entrar) e participar:",
            button: "Entrar em {class}",
            after: "Se você não esperava este convite, ignore este e-mail: nada acontece até você abrir o link."),
        .hindi: Words(
            subject: "{inviter} आपको On the Map पर {class} में आमंत्रित करते हैं",
            body:
                "{inviter} आपको On the Map पर कक्षा {class} में शामिल होने के लिए आमंत्रित करते हैं, वह नक्शा जिस पर दिखता है कि कक्षा में हर कोई कहाँ है। साइन अप (या लॉग इन) करके शामिल होने के लिए यह लिंक खोलें:",
            button: "{class} में शामिल हों",
            after: "अगर आपको इस आमंत्रण की उम्मीद नहीं थी, तो इस ईमेल को अनदेखा करें: जब तक आप लिंक नहीं खोलते, कुछ नहीं होगा।"),
        .chineseSimplified: Words(
            subject: "{inviter} 邀请你加入 On the Map 上的 {class}",
            body: "{inviter} 邀请你加入 On the Map 上的班级 {class}，这张地图显示班上每个人在哪里。打开此链接注册（或登录）并加入：",
            button: "加入 {class}",
            after: "如果你没有预料到这份邀请，请忽略此邮件：在你打开链接之前，什么都不会发生。"),
        .arabic: Words(
            subject: "{inviter} يدعوك إلى {class} على On the Map",
            body:
                "يدعوك {inviter} للانضمام إلى الصف {class} على On the Map، الخريطة التي تُظهر مكان كل من في الصف. افتح هذا الرابط لإنشاء حساب (أو تسجيل الدخول) والانضمام:",
            button: "انضم إلى {class}",
            after: "إذا لم تكن تتوقع هذه الدعوة فتجاهل هذه الرسالة: لن يحدث شيء ما لم تفتح الرابط."),
    ]

    static func invitation(language: Language, className: String, inviter: String, link: String) -> MailContent {
        let chosen = words[language] ?? words[.english]!
        func fill(_ text: String) -> String {
            text.replacingOccurrences(of: "{inviter}", with: inviter).replacingOccurrences(of: "{class}", with: className)
        }
        let body = fill(chosen.body)
        let text = [body, link, chosen.after].joined(separator: "\n\n")
        return MailContent(
            subject: fill(chosen.subject), text: text,
            html: MailContent.simpleHTML(lang: language.tag, paragraphs: [body, chosen.after], link: (fill(chosen.button), link)))
    }
}
