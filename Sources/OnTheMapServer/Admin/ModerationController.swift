import Foundation
import Hummingbird
import OnTheMapModels
import Storage

/// The host's tools on our own API (errors as `{"error":{"code","message"}}`):
/// administrators list accounts, disable, enable and promote them, and make password-reset
/// links; a class's moderators and teachers (and administrators) list, hide, show or delete
/// the class's posts with a reason their author sees; every reader of a class can report one
/// of its posts, and every student reads what moderators did to theirs (`GET /api/account`).
struct ModerationController: Sendable {
    let accounts: AccountsService
    /// Accounts (the administrators' list, a student's own) and moderation; map writes go through `writes`.
    let store: any AccountRepository & ModerationRepository
    /// Hiding, showing and deleting posts and disabling accounts change the map: through it.
    let writes: LocationWrites
    var configuration: Configuration { accounts.configuration }

    /// Reports one account may make in `reportWindow`, so reporting cannot flood the list.
    static let reportsPerWindow = 20
    static let reportWindow: TimeInterval = 3600
    static let maximumReasonLength = 500

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        // The student's routes read the request's class.
        let inClass = group.group(context: ClassRequestContext.self)
        inClass.get("account", use: account)
        inClass.post("locations/:objectId/report", use: report)
        // Every route below runs for a signed-in administrator only.
        let admin = group.group("admin", context: AdministratorContext.self)
        admin.get("users", use: users)
        admin.post("users/:key/disable") { try await self.setDisabled(true, $0, $1) }
        admin.post("users/:key/enable") { try await self.setDisabled(false, $0, $1) }
        admin.post("users/:key/promote", use: promote)
        admin.post("users/:key/reset-link", use: resetLink)
        // Every route below runs for a moderator of the request's class only.
        let moderation = inClass.group("admin", context: ModeratorContext.self)
        moderation.get("moderation", use: moderationList)
        moderation.post("locations/:objectId/hide") { try await self.setHidden(true, $0, $1) }
        moderation.post("locations/:objectId/unhide") { try await self.setHidden(false, $0, $1) }
        moderation.delete("locations/:objectId", use: deleteLocation)
        moderation.post("locations/:objectId/approve", use: approve)
        moderation.post("locations/:objectId/reject", use: reject)
    }

    // MARK: Every student

    /// `GET /api/account`: who I am, whether I moderate, and what moderators did to my posts.
    @Sendable func account(_ request: Request, context: ClassRequestContext) async throws -> Response {
        let me = try context.requireSignedIn(.api("Log in to see your account.")).account
        let notices = try await store.moderationNotices(accountKey: me.key, limit: 20)
        let access = context.classAccess
        return try JSONResponse.make(
            AccountView(
                account: .init(
                    key: me.key, email: me.email, firstName: me.firstName, lastName: me.lastName, isAdmin: me.isAdmin,
                    language: try await store.accountLanguage(accountKey: me.key)),
                notices: notices.map(NoticeView.init),
                classRole: access.role?.rawValue, canModerate: access.canModerate, canManageClass: access.canManage,
                hasWaitingPost: context.caller.signedIn?.hasWaitingPost ?? false
            ))
    }

    /// `POST /api/locations/:objectId/report` `{"reason"}`: once per post and student.
    @Sendable func report(_ request: Request, context: ClassRequestContext) async throws -> Response {
        let me = try context.requireSignedIn(.api("Log in to report a post.")).account
        try context.classAccess.requireReader(.api)
        let reason = try await self.reason(request)
        let objectId = context.parameters.get("objectId") ?? ""
        let since = configuration.clock.now().addingTimeInterval(-Self.reportWindow)
        guard try await store.reportCount(reporterKey: me.key, since: since) < Self.reportsPerWindow else {
            throw RetryLater(
                APIError(
                    .tooManyRequests, "rate_limited",
                    "You have reported \(Self.reportsPerWindow) posts this hour; try again later."), after: 600)
        }
        switch try await store.report(
            objectId: objectId, in: context.mapClass.id, reporterKey: me.key, reason: reason, now: configuration.clock.now())
        {
        case .notFound: throw Self.locationNotFound
        case .alreadyReported: return try JSONResponse.make(["reported": true, "already_reported": true])
        case .reported:
            context.logger.notice("post reported", metadata: ["object_id": "\(objectId)", "reporter": "\(me.key)"])
            return try JSONResponse.make(["reported": true, "already_reported": false], status: .created)
        }
    }

    // MARK: Administrators

    /// `GET /api/admin/users`
    @Sendable func users(_ request: Request, context: AdministratorContext) async throws -> Response {
        let summaries = try await store.accountSummaries()
        return try JSONResponse.make(["users": summaries.map(UserView.init)])
    }

    @Sendable func setDisabled(_ disabled: Bool, _ request: Request, _ context: AdministratorContext) async throws -> Response {
        let admin = context.administrator
        let key = context.parameters.get("key") ?? ""
        guard !(disabled && key == admin.accountKey) else {
            throw APIError(.badRequest, "cannot_disable_self", "You cannot disable your own account.")
        }
        let ended: Int
        switch try await writes.setDisabled(accountKey: key, disabled, now: configuration.clock.now()) {
        case .done(let count): ended = count
        case .notFound: throw Self.accountNotFound
        case .lastAdministrator: throw Self.lastAdministrator
        }
        context.logger.notice(
            disabled ? "account disabled" : "account enabled",
            metadata: ["account": "\(key)", "by": "\(admin.accountKey)", "sessions_ended": "\(ended)"])
        return try JSONResponse.make(DisableView(key: key, disabled: disabled, endedSessions: ended))
    }

    /// `POST /api/admin/users/:key/promote`: makes another administrator.
    @Sendable func promote(_ request: Request, context: AdministratorContext) async throws -> Response {
        let admin = context.administrator
        let key = context.parameters.get("key") ?? ""
        guard try await store.setAdmin(accountKey: key, true) != .notFound else { throw Self.accountNotFound }
        context.logger.notice("account promoted", metadata: ["account": "\(key)", "by": "\(admin.accountKey)"])
        return try JSONResponse.make(PromoteView(key: key, isAdmin: true))
    }

    /// `POST /api/admin/users/:key/reset-link`: a one-time link for a student who forgot
    /// their password, handed over by the administrator (no e-mail server needed).
    @Sendable func resetLink(_ request: Request, context: AdministratorContext) async throws -> Response {
        let admin = context.administrator
        let key = context.parameters.get("key") ?? ""
        guard try await store.account(key: key) != nil else { throw Self.accountNotFound }
        let origin: String
        do {
            origin = try accounts.origin(for: request, isHTTPS: context.isHTTPS)
        } catch {
            throw APIError(.badRequest, "unknown_host", error.description)
        }
        let link = try await PasswordResetLinks.create(for: key, store: store, origin: origin, now: configuration.clock.now())
        context.logger.notice("reset link created", metadata: ["account": "\(key)", "by": "\(admin.accountKey)"])
        return try JSONResponse.make(ResetLinkView(url: link.url, expiresAt: ParseDate.string(from: link.expiresAt)), status: .created)
    }

    /// `GET /api/admin/moderation?view=newest|reported&limit=N`
    @Sendable func moderationList(_ request: Request, context: ModeratorContext) async throws -> Response {
        let query = request.uri.queryParameters
        let viewText = query["view"].map(String.init) ?? "newest"
        guard let view = ModerationView(rawValue: viewText) else {
            throw APIError(.badRequest, "invalid_view", "view must be newest or reported.")
        }
        var limit = 50
        if let text = query["limit"] {
            guard let value = Int(text), (1...500).contains(value) else {
                throw APIError(.badRequest, "invalid_limit", "limit must be a whole number from 1 to 500.")
            }
            limit = value
        }
        let locations = try await store.moderationList(view, in: context.mapClass.id, limit: limit)
        return try JSONResponse.make(ModerationListView(view: view.rawValue, locations: locations.map(ModeratedView.init)))
    }

    @Sendable func setHidden(_ hidden: Bool, _ request: Request, _ context: ModeratorContext) async throws -> Response {
        let admin = context.moderator
        // Showing a post again needs no reason; one given is kept in the author's notices.
        let reason: String
        if hidden {
            reason = try await self.reason(request)
        } else {
            reason = (try? await self.reason(request)) ?? "Shown again by a moderator."
        }
        let objectId = context.parameters.get("objectId") ?? ""
        guard
            try await writes.setHidden(
                objectId: objectId, in: context.mapClass.id, hidden, reason: reason, moderatorKey: admin.accountKey,
                now: configuration.clock.now())
        else {
            throw Self.locationNotFound
        }
        context.logger.notice(hidden ? "post hidden" : "post shown", metadata: ["object_id": "\(objectId)", "by": "\(admin.accountKey)"])
        guard let location = try await store.moderatedLocation(objectId: objectId, in: context.mapClass.id) else {
            throw Self.locationNotFound
        }
        return try JSONResponse.make(ModeratedView(location))
    }

    /// `DELETE /api/admin/locations/:objectId` `{"reason"}`
    @Sendable func deleteLocation(_ request: Request, context: ModeratorContext) async throws -> Response {
        let admin = context.moderator
        let reason = try await self.reason(request)
        let objectId = context.parameters.get("objectId") ?? ""
        guard
            try await writes.moderatorDelete(
                objectId: objectId, in: context.mapClass.id, reason: reason, moderatorKey: admin.accountKey, now: configuration.clock.now())
        else {
            throw Self.locationNotFound
        }
        context.logger.notice("post deleted by moderator", metadata: ["object_id": "\(objectId)", "by": "\(admin.accountKey)"])
        return try JSONResponse.make(["deleted": true])
    }

    /// `POST /api/admin/locations/:objectId/approve`: a waiting post goes on the class's map.
    @Sendable func approve(_ request: Request, context: ModeratorContext) async throws -> Response {
        let objectId = context.parameters.get("objectId") ?? ""
        guard
            try await writes.approve(
                objectId: objectId, in: context.mapClass.id, moderatorKey: context.moderator.accountKey,
                now: configuration.clock.now())
        else {
            throw Self.notWaiting
        }
        guard let location = try await store.moderatedLocation(objectId: objectId, in: context.mapClass.id) else {
            throw Self.locationNotFound
        }
        return try JSONResponse.make(ModeratedView(location))
    }

    /// `POST /api/admin/locations/:objectId/reject` `{"reason"}`: a waiting post is deleted; its author is told why.
    @Sendable func reject(_ request: Request, context: ModeratorContext) async throws -> Response {
        let reason = try await self.reason(request)
        let objectId = context.parameters.get("objectId") ?? ""
        guard
            try await writes.reject(
                objectId: objectId, in: context.mapClass.id, reason: reason, moderatorKey: context.moderator.accountKey,
                now: configuration.clock.now())
        else {
            throw Self.notWaiting
        }
        return try JSONResponse.make(["rejected": true])
    }

    // MARK: Checks

    static let notWaiting = APIError(.notFound, "not_found", "There is no such post waiting for approval.")

    static let locationNotFound = APIError(.notFound, "not_found", "There is no such post.")
    static let accountNotFound = APIError(.notFound, "not_found", "There is no such account.")
    static let lastAdministrator = APIError(
        .conflict, "last_administrator",
        "This is the last enabled administrator: promote another account first, so the community always has one.")

    /// `{"reason": "..."}`: what the author (or the administrator) is told.
    private func reason(_ request: Request) async throws -> String {
        let body = try await request.collectBody(limit: configuration.maxBodySize) { APIError.tooLarge }
        guard let form = try? JSONDecoder().decode(ReasonRequest.self, from: body) else {
            throw APIError(.badRequest, "invalid_body", "Send a JSON object with a reason (a string).")
        }
        let reason = form.reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty, reason.count <= Self.maximumReasonLength, TextRules.isDisplaySafe(reason) else {
            throw APIError(
                .badRequest, "invalid_reason",
                "Give a reason of 1 to \(Self.maximumReasonLength) characters on one line, without control characters.")
        }
        return reason
    }
}

// MARK: Wire shapes

struct ReasonRequest: Decodable {
    let reason: String
}

struct AccountView: Encodable {
    struct Me: Encodable {
        let key, email, firstName, lastName: String
        let isAdmin: Bool
        /// The web app's language the account chose (a tag), or null for the browser's.
        @ExplicitNull var language: String?
        enum CodingKeys: String, CodingKey {
            case key, email
            case firstName = "first_name"
            case lastName = "last_name"
            case isAdmin = "is_admin"
            case language
        }
    }
    let account: Me
    let notices: [NoticeView]
    /// The caller's role in the request's class (nil: not a member), and what it allows.
    let classRole: String?
    let canModerate: Bool
    let canManageClass: Bool
    /// A post of mine in this class waits for a moderator's approval.
    let hasWaitingPost: Bool
    enum CodingKeys: String, CodingKey {
        case account, notices
        case classRole = "class_role"
        case canModerate = "can_moderate"
        case canManageClass = "can_manage_class"
        case hasWaitingPost = "has_waiting_post"
    }
}

struct NoticeView: Encodable {
    let action: String
    let objectId: String?
    let mapString: String?
    let reason: String
    let createdAt: String

    init(_ notice: ModerationNotice) {
        action = notice.action.rawValue
        objectId = notice.objectId
        mapString = notice.mapString
        reason = notice.reason
        createdAt = ParseDate.string(from: notice.createdAt)
    }

    enum CodingKeys: String, CodingKey {
        case action
        case objectId = "object_id"
        case mapString = "map_string"
        case reason
        case createdAt = "created_at"
    }
}

struct UserView: Encodable {
    let key, email, firstName, lastName, createdAt: String
    let isAdmin, disabled: Bool
    let locationCount: Int

    init(_ summary: AccountSummary) {
        let account = summary.account
        key = account.key
        email = account.email
        firstName = account.firstName
        lastName = account.lastName
        createdAt = ParseDate.string(from: account.createdAt)
        isAdmin = account.isAdmin
        disabled = account.disabledAt != nil
        locationCount = summary.locationCount
    }

    enum CodingKeys: String, CodingKey {
        case key, email
        case firstName = "first_name"
        case lastName = "last_name"
        case createdAt = "created_at"
        case isAdmin = "is_admin"
        case disabled
        case locationCount = "location_count"
    }
}

struct DisableView: Encodable {
    let key: String
    let disabled: Bool
    let endedSessions: Int
    enum CodingKeys: String, CodingKey {
        case key, disabled
        case endedSessions = "ended_sessions"
    }
}

struct ResetLinkView: Encodable {
    let url, expiresAt: String
    enum CodingKeys: String, CodingKey {
        case url
        case expiresAt = "expires_at"
    }
}

struct ModeratedView: Encodable {
    let location: StudentInformation
    let ownerKey: String?
    let hidden: Bool
    let hiddenReason: String?
    let ownerDisabled: Bool
    let waiting: Bool
    let reportCount: Int
    let reportReasons: [String]

    init(_ moderated: ModeratedLocation) {
        waiting = moderated.waiting
        location = moderated.record
        ownerKey = moderated.ownerKey
        hidden = moderated.hiddenAt != nil
        hiddenReason = moderated.hiddenReason
        ownerDisabled = moderated.ownerDisabled
        reportCount = moderated.reportCount
        reportReasons = moderated.reportReasons
    }

    enum CodingKeys: String, CodingKey {
        case location
        case ownerKey = "owner_key"
        case hidden
        case hiddenReason = "hidden_reason"
        case ownerDisabled = "owner_disabled"
        case waiting
        case reportCount = "report_count"
        case reportReasons = "report_reasons"
    }
}

struct ModerationListView: Encodable {
    let view: String
    let locations: [ModeratedView]
}

struct PromoteView: Encodable {
    let key: String
    let isAdmin: Bool
    enum CodingKeys: String, CodingKey {
        case key
        case isAdmin = "is_admin"
    }
}
