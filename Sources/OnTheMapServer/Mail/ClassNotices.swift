import Foundation
import Hummingbird
import Localization
import Logging
import OnTheMapModels
import ServiceLifecycle
import Storage

/// Teachers' notices on our own API:
/// - `GET /api/classes/:slug/notices`: `{"email": Bool, "waiting": Bool, "reported": Bool}`,
///   what the caller (a moderator or teacher of the class, or an administrator) asked to be told
///   by email, and whether this server sends email at all.
/// - `PUT /api/classes/:slug/notices` `{"waiting"?: Bool, "reported"?: Bool}`: changes it, and
///   answers as GET. Asking without email set up: 503 `email_not_set_up`.
/// - `POST /api/notices/stop` `{"token"}` (the web page behind an email's link) or
///   `POST /api/notices/stop?token=…` (RFC 8058 one-click, as mail apps send it): ends that one
///   notice; `{"class", "kind"}`, or 404 `invalid_stop_link` when it is already stopped.
struct ClassNoticeController: Sendable {
    let store: any ClassNoticeRepository & ClassRepository
    let directory: ClassDirectory
    let mailer: Mailer?
    let configuration: Configuration

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("classes/:slug/notices", use: show)
        group.put("classes/:slug/notices", use: change)
        group.post("notices/stop", use: stop)
    }

    struct Settings: Codable {
        var email: Bool
        var waiting: Bool
        var reported: Bool
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (mapClass, signedIn) = try await moderator(context)
        return try await answer(mapClass, signedIn)
    }

    @Sendable func change(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (mapClass, signedIn) = try await moderator(context)
        let body = try await request.collectBody(limit: 4096) { APIError.tooLarge }
        struct Form: Decodable {
            let waiting: Bool?
            let reported: Bool?
        }
        guard let form = try? JSONDecoder().decode(Form.self, from: body), form.waiting != nil || form.reported != nil else {
            throw APIError(.badRequest, "invalid_body", "Send a JSON object with waiting and/or reported (true or false).")
        }
        if mailer == nil, form.waiting == true || form.reported == true {
            throw APIError(.serviceUnavailable, "email_not_set_up", Configuration.mailNotSetUp)
        }
        let now = configuration.clock.now()
        for (kind, on) in [(NoticeKind.waiting, form.waiting), (.reported, form.reported)] {
            guard let on else { continue }
            try await store.setNotice(kind, on: on, classId: mapClass.id, accountKey: signedIn.accountKey, now: now)
        }
        return try await answer(mapClass, signedIn)
    }

    @Sendable func stop(_ request: Request, context: AppRequestContext) async throws -> Response {
        var token = request.uri.queryParameters.get("token")
        if token == nil {
            let body = try await request.collectBody(limit: 4096) { APIError.tooLarge }
            struct Form: Decodable { let token: String }
            token = (try? JSONDecoder().decode(Form.self, from: body))?.token
        }
        guard let token, token.count == 48, token.allSatisfy(\.isHexDigit) else {
            throw APIError(.badRequest, "invalid_stop_link", "This link to stop emails is not complete: open it from the email again.")
        }
        guard let stopped = try await store.stopNotice(token: token) else {
            throw APIError(.notFound, "invalid_stop_link", "These emails are already stopped.")
        }
        context.logger.notice("class notice stopped from its email", metadata: ["kind": "\(stopped.kind.rawValue)"])
        return try JSONResponse.make(["class": stopped.className, "kind": stopped.kind.rawValue])
    }

    private func moderator(_ context: AppRequestContext) async throws -> (MapClass, SignedIn) {
        let (mapClass, access) = try await ClassAccess.named(
            context.parameters.get("slug") ?? "", for: context.caller, directory: directory, store: store)
        return (mapClass, try access.requireModerator(.api))
    }

    private func answer(_ mapClass: MapClass, _ signedIn: SignedIn) async throws -> Response {
        let kinds = try await store.notices(classId: mapClass.id, accountKey: signedIn.accountKey)
        return try JSONResponse.make(
            Settings(email: mailer != nil, waiting: kinds.contains(.waiting), reported: kinds.contains(.reported)))
    }
}

/// Writes teachers' notices, as a background service: every `pollSeconds` it looks for notices
/// with news (posts that began waiting, reports made, since the last one) whose last email is
/// at least `quietSeconds` old, and writes each one email (the count, a link to the class, a
/// one-click way to stop) with the record that it was told, in one transaction; the outbox
/// sends it. What is news is read from the posts and reports themselves, so a server killed at
/// any moment loses no notice, and two servers never write one twice.
struct ClassNoticeWorker: Service {
    let store: any ClassNoticeRepository
    let mailer: Mailer
    let clock: WallClock
    let logger: Logger
    var pollSeconds: TimeInterval = 15
    var quietSeconds: TimeInterval = 3600

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await writeDue()
            } catch {
                logger.warning("class notices: cannot read what is due", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown {
                try await Task.sleep(for: .seconds(pollSeconds))
            }
        }
    }

    /// One look: writes every notice that is due; returns how many.
    @discardableResult
    func writeDue(limit: Int = 200) async throws -> Int {
        let now = clock.now()
        let quietSince = now.addingTimeInterval(-quietSeconds)
        var written = 0
        for notice in try await store.dueNotices(quietSince: quietSince, limit: limit) {
            let language = notice.language.flatMap(Language.init(rawValue:)) ?? .english
            let content = NoticeTexts.content(for: notice, language: language, origin: mailer.publicOrigin)
            let mail = mailer.mail(kind: "notice_\(notice.kind.rawValue)", to: notice.email, content: content, now: now)
            if try await store.recordNotice(notice, quietSince: quietSince, mail: mail, now: now) { written += 1 }
        }
        if written > 0 {
            mailer.messageWritten()
            logger.info("class notices written", metadata: ["count": "\(written)"])
        }
        return written
    }
}

/// The notices' words, in the teacher's language: the catalogues' `mail.notice.*` messages,
/// `{class}` the class's name and `{count}` a number (written as "…: 3", so no plural forms
/// are needed).
enum NoticeTexts {
    static func content(for notice: DueNotice, language: Language, origin: String) -> MailContent {
        let say = Translator(language)
        let names: [String: MessageArgument] = ["class": .text(notice.className), "count": .text(String(notice.total))]
        let waiting = notice.kind == .waiting
        let subject = say(waiting ? "mail.notice.waitingSubject" : "mail.notice.reportedSubject", names)
        let body = say(waiting ? "mail.notice.waitingBody" : "mail.notice.reportedBody", names)
        let open = say("mail.notice.open")
        let stop = say("mail.notice.stop")
        let classLink = "\(origin)/#/c/\(notice.classSlug)/map"
        let stopLink = "\(origin)/#/stop-notice/\(notice.stopToken)"
        let text = [body, "\(open): \(classLink)", "\(stop) \(stopLink)"].joined(separator: "\n\n")
        var content = MailContent(
            subject: subject, text: text,
            html: MailContent.simpleHTML(lang: language.tag, paragraphs: [body, "\(stop) \(stopLink)"], link: (open, classLink)))
        content.oneClickStop = "\(origin)/api/notices/stop?token=\(notice.stopToken)"
        return content
    }
}
