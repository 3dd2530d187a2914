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

/// The emails' words, in the web app's eight languages.
enum MailTexts {
    struct Words {
        let subject: String
        let greeting: String
        let body: String
        let button: String
        let after: String
    }

    static let reset: [Language: Words] = [
        .english: Words(
            subject: "Reset your On the Map password", greeting: "Hello {name},",
            body: "Someone (we hope you) asked to reset the password of your On the Map account. Open this link to choose a new one:",
            button: "Choose a new password",
            after: "The link works once, for 24 hours. If you did not ask, ignore this email: your password stays as it is."),
        .german: Words(
            subject: "Ihr Passwort für On the Map zurücksetzen", greeting: "Hallo {name},",
            body:
                "Jemand (hoffentlich Sie) möchte das Passwort Ihres On-the-Map-Kontos zurücksetzen. Öffnen Sie diesen Link, um ein neues zu wählen:",
            button: "Neues Passwort wählen",
            after:
                "Der Link gilt einmal, 24 Stunden lang. Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail: Ihr Passwort bleibt, wie es ist."
        ),
        .spanish: Words(
            subject: "Restablece tu contraseña de On the Map", greeting: "Hola, {name}:",
            body:
                "Alguien (esperamos que tú) pidió restablecer la contraseña de tu cuenta de On the Map. Abre este enlace para elegir una nueva:",
            button: "Elegir una contraseña nueva",
            after: "El enlace sirve una vez, durante 24 horas. Si no lo pediste, ignora este correo: tu contraseña no cambia."),
        .french: Words(
            subject: "Réinitialiser votre mot de passe On the Map", greeting: "Bonjour {name},",
            body:
                "Quelqu’un (vous, nous l’espérons) a demandé à réinitialiser le mot de passe de votre compte On the Map. Ouvrez ce lien pour en choisir un nouveau :",
            button: "Choisir un nouveau mot de passe",
            after:
                "Le lien fonctionne une fois, pendant 24 heures. Si vous n’avez rien demandé, ignorez ce courriel : votre mot de passe ne change pas."
        ),
        .portugueseBrazil: Words(
            subject: "Redefinir sua senha do On the Map", greeting: "Olá, {name},",
            body:
                "Alguém (esperamos que você) pediu para redefinir a senha da sua conta do On the Map. Abra este link para escolher uma nova:",
            button: "Escolher uma nova senha",
            after: "O link funciona uma vez, por 24 horas. Se você não pediu, ignore este e-mail: sua senha continua a mesma."),
        .hindi: Words(
            subject: "अपना On the Map पासवर्ड रीसेट करें", greeting: "नमस्ते {name},",
            body: "किसी ने (हमें आशा है, आपने) आपके On the Map खाते का पासवर्ड रीसेट करने के लिए कहा है। नया पासवर्ड चुनने के लिए यह लिंक खोलें:",
            button: "नया पासवर्ड चुनें",
            after: "यह लिंक एक बार, 24 घंटे तक काम करता है। अगर आपने नहीं कहा था, तो इस ईमेल को अनदेखा करें: आपका पासवर्ड वैसा ही रहेगा।"),
        .chineseSimplified: Words(
            subject: "重置你的 On the Map 密码", greeting: "{name}，你好：",
            body: "有人（希望是你）请求重置你的 On the Map 帐户密码。打开此链接来设置新密码：",
            button: "设置新密码",
            after: "此链接只能使用一次，24 小时内有效。如果不是你请求的，请忽略此邮件：你的密码不会改变。"),
        .arabic: Words(
            subject: "إعادة تعيين كلمة مرور On the Map", greeting: "مرحبًا {name}،",
            body: "طلب أحدهم (نأمل أن تكون أنت) إعادة تعيين كلمة مرور حسابك في On the Map. افتح هذا الرابط لاختيار كلمة مرور جديدة:",
            button: "اختر كلمة مرور جديدة",
            after: "يعمل الرابط مرة واحدة خلال 24 ساعة. إذا لم تطلب ذلك فتجاهل هذه الرسالة: تبقى كلمة مرورك كما هي."),
    ]

    static let providerOnlyWords: [Language: (subject: String, body: String)] = [
        .english: (
            "Signing in to On the Map",
            "Someone asked to reset the password of your On the Map account, but it has no password: you sign in with your school or other account (the buttons under the login form). Sign in that way at {origin}"
        ),
        .german: (
            "Anmelden bei On the Map",
            "Jemand möchte das Passwort Ihres On-the-Map-Kontos zurücksetzen, aber es hat keines: Sie melden sich mit Ihrem Schul- oder anderen Konto an (die Schaltflächen unter dem Anmeldeformular). Melden Sie sich so an unter {origin}"
        ),
        .spanish: (
            "Iniciar sesión en On the Map",
            "Alguien pidió restablecer la contraseña de tu cuenta de On the Map, pero no tiene contraseña: entras con tu cuenta de la escuela u otra (los botones bajo el formulario). Entra así en {origin}"
        ),
        .french: (
            "Se connecter à On the Map",
            "Quelqu’un a demandé à réinitialiser le mot de passe de votre compte On the Map, mais il n’en a pas : vous vous connectez avec votre compte d’école ou un autre compte (les boutons sous le formulaire). Connectez-vous ainsi sur {origin}"
        ),
        .portugueseBrazil: (
            "Entrar no On the Map",
            "Alguém pediu para redefinir a senha da sua conta do On the Map, mas ela não tem senha: você entra com a conta da escola ou outra (os botões abaixo do formulário). Entre assim em {origin}"
        ),
        .hindi: (
            "On the Map में साइन इन करना",
            "किसी ने आपके On the Map खाते का पासवर्ड रीसेट करने के लिए कहा, पर उसका कोई पासवर्ड नहीं है: आप अपने स्कूल या किसी दूसरे खाते से साइन इन करते हैं (लॉगिन फ़ॉर्म के नीचे के बटन)। वैसे ही साइन इन करें: {origin}"
        ),
        .chineseSimplified: (
            "登录 On the Map",
            "有人请求重置你的 On the Map 帐户密码，但该帐户没有密码：你是用学校或其他帐户登录的（登录表单下方的按钮）。请这样登录：{origin}"
        ),
        .arabic: (
            "تسجيل الدخول إلى On the Map",
            "طلب أحدهم إعادة تعيين كلمة مرور حسابك في On the Map، لكن ليس له كلمة مرور: أنت تسجّل الدخول بحساب مدرستك أو حساب آخر (الأزرار أسفل نموذج الدخول). سجّل الدخول بهذه الطريقة في {origin}"
        ),
    ]

    static func resetLink(language: Language, name: String, link: String) -> MailContent {
        let words = reset[language] ?? reset[.english]!
        let greeting = words.greeting.replacingOccurrences(of: "{name}", with: name)
        let text = [greeting, words.body, link, words.after].joined(separator: "\n\n")
        return MailContent(
            subject: words.subject, text: text,
            html: MailContent.simpleHTML(
                lang: language.tag, paragraphs: [greeting + " " + words.body, words.after], link: (words.button, link)))
    }

    static func providerOnly(language: Language, origin: String) -> MailContent {
        let words = providerOnlyWords[language] ?? providerOnlyWords[.english]!
        let body = words.body.replacingOccurrences(of: "{origin}", with: origin)
        return MailContent(subject: words.subject, text: body, html: MailContent.simpleHTML(lang: language.tag, paragraphs: [body]))
    }
}
