import Foundation
import Hummingbird
import Localization
import OnTheMapModels
import Storage

/// "Remind those not yet on the map" (class managers: teachers and administrators). One email
/// to each student or moderator with no post in the class (`ClassMapStatus.notYet`: not on the map and
/// nothing waiting for approval), disabled accounts aside, in the member's language when they
/// chose one, else the server's; it names the class and links to its map on the public URL.
/// At most one round a day per class (a second press that day: 429 `reminded_recently` with
/// `Retry-After`). Without email set up: 503 `email_not_set_up`.
struct ClassReminderController: Sendable {
    let store: any OnTheMapStore
    let directory: ClassDirectory
    let mailer: Mailer?
    let configuration: Configuration

    /// One round a day per class.
    static let interval: TimeInterval = 86_400

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("classes/:slug/reminders", use: status)
        group.post("classes/:slug/reminders", use: remind)
    }

    struct StatusView: Encodable {
        /// Email is set up on this server.
        let email: Bool
        /// The last round (null: none this week).
        @ExplicitNull var last_sent_at: String?
        /// When the next round may be sent (null: now).
        @ExplicitNull var next_at: String?
        /// Members a round would email now.
        let waiting_members: Int
    }

    /// `GET /api/classes/:slug/reminders`: whether a round can be sent, and when.
    @Sendable func status(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, access) = try await ClassAccess.named(
            context.parameters.get("slug") ?? "", for: context.caller, directory: directory, store: store)
        _ = try access.requireTeacher(.api)
        let now = configuration.clock.now()
        let last = try await store.lastClassReminder(classId: found.id)
        let next = last.map { $0.addingTimeInterval(Self.interval) }.flatMap { $0 > now ? $0 : nil }
        let recipients = Self.recipients(try await store.members(classId: found.id))
        return try JSONResponse.make(
            StatusView(
                email: mailer != nil, last_sent_at: last.map(ParseDate.string(from:)), next_at: next.map(ParseDate.string(from:)),
                waiting_members: recipients.count))
    }

    /// `POST /api/classes/:slug/reminders`: 202 `{"reminded": N, "next_at"}`.
    @Sendable func remind(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, access) = try await ClassAccess.named(
            context.parameters.get("slug") ?? "", for: context.caller, directory: directory, store: store)
        let me = try access.requireTeacher(.api)
        guard let mailer else { throw APIError(.serviceUnavailable, "email_not_set_up", Configuration.mailNotSetUp) }
        guard found.archivedAt == nil else {
            throw APIError(.forbidden, "class_archived", "This class is archived: it is read-only.")
        }
        let now = configuration.clock.now()
        let recipients = Self.recipients(try await store.members(classId: found.id))
        let serverLanguage = Language.preferred(environment: ProcessInfo.processInfo.environment)
        var mails: [NewOutboxMail] = []
        for member in recipients {
            let language =
                try await store.accountLanguage(accountKey: member.accountKey).flatMap(Language.init(rawValue:)) ?? serverLanguage
            let content = Self.content(language: language, name: member.firstName, mapClass: found, origin: mailer.publicOrigin)
            mails.append(mailer.mail(kind: "class_reminder", to: member.email, content: content, now: now))
        }
        if !mails.isEmpty,
            let last = try await store.enqueueClassReminder(
                classId: found.id, mails: mails, since: now.addingTimeInterval(-Self.interval), now: now)
        {
            let next = last.addingTimeInterval(Self.interval)
            let seconds = max(1, Int(next.timeIntervalSince(now).rounded(.up)))
            throw RetryLater(
                APIError(
                    .tooManyRequests, "reminded_recently",
                    "This class's members were reminded at \(ParseDate.string(from: last)); the next reminder can be sent from \(ParseDate.string(from: next))."
                ), after: seconds)
        }
        if !mails.isEmpty { mailer.messageWritten() }
        context.logger.notice(
            "class reminder sent", metadata: ["class": "\(found.slug)", "by": "\(me.accountKey)", "members": "\(mails.count)"])
        let next = mails.isEmpty ? nil : now.addingTimeInterval(Self.interval)
        struct Answer: Encodable {
            let reminded: Int
            @ExplicitNull var next_at: String?
        }
        return try JSONResponse.make(Answer(reminded: mails.count, next_at: next.map(ParseDate.string(from:))), status: .accepted)
    }

    /// Who a round emails: students and moderators with no post in the class, their accounts
    /// not disabled (its teachers are the ones who remind).
    static func recipients(_ members: [ClassMember]) -> [ClassMember] {
        members.filter { $0.role != .teacher && $0.mapStatus == .notYet && !$0.disabled && MailAddress.isPlausible($0.email) }
    }

    /// The email, in `language`: it names the class and links to its map.
    static func content(language: Language, name: String, mapClass: MapClass, origin: String) -> MailContent {
        let say = Translator(language)
        let link = "\(origin)/c/\(mapClass.slug)"
        let greeting = say("mail.reminder.greeting", ["name": .text(name)])
        let body = say("mail.reminder.body", ["class": .text(mapClass.name)])
        let after = say("mail.reminder.after", ["class": .text(mapClass.name)])
        let text = [greeting, body, link, after].joined(separator: "\n\n")
        return MailContent(
            subject: say("mail.reminder.subject", ["class": .text(mapClass.name)]), text: text,
            html: MailContent.simpleHTML(
                lang: language.tag, paragraphs: [greeting + " " + body, after], link: (say("mail.reminder.button"), link)))
    }
}
