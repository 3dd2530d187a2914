import Foundation
import Hummingbird
import OnTheMapModels
import Storage

/// Classes on our own API, `/api/classes` (errors as `{"error":{"code","message"}}`): the
/// classes I belong to and the open ones I may join; creating one; a class's settings, invite
/// link and roster for its teachers; joining with an invite code, and leaving. Which caller may
/// do what is `ClassAccess`'s to say.
struct ClassController: Sendable {
    let accounts: AccountsService
    /// Rosters, invitations and roles (an invited address's account is looked up).
    let store: any ClassRepository & AccountRepository
    let directory: ClassDirectory
    /// Creating, changing and deleting a class: through it (it keeps `directory` current).
    let classes: ClassWrites
    /// Leaving or removing a member deletes their locations there: through it.
    let writes: LocationWrites
    var configuration: Configuration { accounts.configuration }

    static let maximumNameLength = 80

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("classes", use: mine)
        group.post("classes", use: create)
        group.get("classes/:slug", use: show)
        group.patch("classes/:slug", use: change)
        group.post("classes/:slug/invite", use: newInvite)
        group.delete("classes/:slug/invite", use: revokeInvite)
        group.post("classes/:slug/join", use: join)
        group.post("classes/:slug/leave", use: leave)
        group.get("classes/:slug/members", use: members)
        group.post("classes/:slug/members", use: addMember)
        group.put("classes/:slug/members/:key", use: setRole)
        group.delete("classes/:slug/members/:key", use: removeMember)
        group.delete("classes/:slug/invitations/:email", use: withdrawInvitation)
        group.delete("classes/:slug", use: deleteClass)
    }

    // MARK: Everyone signed in

    /// `GET /api/classes`: my classes with my role in each, the ones I could join (open, or
    /// that invited my address: `invited`), and whether I may create classes.
    @Sendable func mine(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.requireSignedIn(.api("Log in to see your classes."))
        var mine = try await store.classes(ofAccount: me.accountKey).map { ClassView($0.mapClass, role: $0.role) }
        let inviting = try await store.classesInviting(email: me.account.email, notJoinedBy: me.accountKey)
        var joinable = try await store.openClasses(notJoinedBy: me.accountKey)
        joinable.removeAll { open in inviting.contains { $0.id == open.id } }
        // The default class is everyone's when it is open, roster or not.
        let main = try await directory.defaultClass()
        if main.joinRule == .open, !mine.contains(where: { $0.slug == main.slug }) {
            mine.insert(ClassView(main, role: .student), at: 0)
            joinable.removeAll { $0.slug == main.slug }
        }
        let invitedViews = inviting.filter { $0.slug != main.slug || main.joinRule != .open }.map { invited -> ClassView in
            var view = ClassView(invited, role: nil)
            view.invited = true
            return view
        }
        return try JSONResponse.make(
            ClassListView(
                classes: mine, joinable: invitedViews + joinable.map { ClassView($0, role: nil) }, defaultClass: main.slug,
                canCreate: canCreate(me)
            ))
    }

    /// `POST /api/classes` `{"slug","name","visibility"?,"join"?}`: the creator is its first teacher.
    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.requireSignedIn(.api("Log in to create a class."))
        guard canCreate(me) else {
            throw APIError(.forbidden, "forbidden", "Only the server's administrators may create classes here.")
        }
        let form = try await decode(ClassForm.self, request)
        guard let slug = form.slug else { throw APIError(.badRequest, "invalid_slug", "slug is required.") }
        if let problem = ClassSlug.problem(slug) { throw APIError(.badRequest, "invalid_slug", problem) }
        let made = MapClass(
            id: Identifiers.objectId(), slug: slug, name: try Self.name(form.name ?? slug),
            visibility: form.visibility ?? MapClass.NewClass.visibility, joinRule: form.join ?? MapClass.NewClass.joinRule,
            precision: form.precision ?? MapClass.NewClass.precision, approval: form.approval ?? MapClass.NewClass.approval,
            inviteCode: Tokens.randomHex(bytes: 12), createdAt: configuration.clock.now()
        )
        do {
            try await classes.create(made, teacherKey: me.accountKey, now: configuration.clock.now())
        } catch StorageError.slugTaken {
            throw APIError(.conflict, "slug_taken", "A class with the slug '\(slug)' exists; choose another.")
        }
        context.logger.notice("class created", metadata: ["class": "\(slug)", "by": "\(me.accountKey)"])
        return try JSONResponse.make(try detail(made, role: .teacher, access: nil, request: request, context: context), status: .created)
    }

    /// `GET /api/classes/:slug[?code=]`: the class as its reader sees it; teachers also get the
    /// invite link. Someone who may not read it yet sees it only to join: an open class, or one
    /// whose current invite code they hold (a closed class then says it is closed).
    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, access) = try await classAccess(context)
        if !access.canRead {
            let me = try context.requireSignedIn(ClassRefusal.api.signIn)
            let code = request.uri.queryParameters.get("code")
            // The current code shows the class whatever its rule, so a closed class can say so.
            var invited = false
            if let expected = found.inviteCode, let code { invited = Tokens.constantTimeEqual(code, expected) }
            if !invited, found.joinRule != .open {
                invited = try await store.classesInviting(email: me.account.email, notJoinedBy: me.accountKey).contains {
                    $0.id == found.id
                }
            }
            guard found.joinRule == .open || invited else { throw ClassRefusal.api.notMember }
        }
        return try JSONResponse.make(try detail(found, role: access.role, access: access, request: request, context: context))
    }

    /// `PATCH /api/classes/:slug` `{"name"?,"visibility"?,"join"?}` (teachers).
    /// Only the settings sent change, in the database's current class: a setting the host
    /// changed a moment ago (while this server's copy of the class was older) stands.
    @Sendable func change(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, access) = try await classAccess(context)
        try access.requireTeacher(.api)
        let form = try await decode(ClassForm.self, request)
        if form.slug != nil, form.slug != found.slug {
            throw APIError(.badRequest, "slug_fixed", "A class's slug cannot change: old apps and invite links use it.")
        }
        var changes = ClassChanges(now: configuration.clock.now())
        if let name = form.name { changes.name = try Self.name(name) }
        changes.visibility = form.visibility
        changes.approval = form.approval
        changes.archived = form.archived
        changes.precision = form.precision
        if let join = form.join {
            changes.joinRule = join
            // Turning invitations on with no link yet (a migrated default class): make one.
            if join == .invite { changes.inviteCodeIfNone = Tokens.randomHex(bytes: 12) }
        }
        guard let changed = try await classes.change(found.id, changes) else { throw Self.unknown }
        return try JSONResponse.make(try detail(changed, role: access.role, access: access, request: request, context: context))
    }

    /// `POST /api/classes/:slug/invite`: a new invite link; the old one stops working.
    @Sendable func newInvite(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await setInvite(Tokens.randomHex(bytes: 12), request, context)
    }

    /// `DELETE /api/classes/:slug/invite`: no invite link works until a new one is made.
    @Sendable func revokeInvite(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await setInvite(nil, request, context)
    }

    private func setInvite(_ code: String?, _ request: Request, _ context: AppRequestContext) async throws -> Response {
        let (found, access) = try await classAccess(context)
        try access.requireTeacher(.api)
        var changes = ClassChanges(now: configuration.clock.now())
        changes.inviteCode = .some(code)
        guard let changed = try await classes.change(found.id, changes) else { throw Self.unknown }
        return try JSONResponse.make(try detail(changed, role: access.role, access: access, request: request, context: context))
    }

    /// `POST /api/classes/:slug/join` `{"code"?}`: an open class takes anyone; an invite-only
    /// one the current invite code; a closed one nobody. Whatever its rule, a class that
    /// invited my address takes me, with the role I was invited to.
    @Sendable func join(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.requireSignedIn(.api("Log in to join a class."))
        let (found, access) = try await classAccess(context)
        if access.caller.signedIn?.role == nil {
            guard found.archivedAt == nil else {
                throw APIError(.forbidden, "class_archived", "This class is archived: it takes no new members.")
            }
            if let role = try await store.acceptInvitation(
                classId: found.id, email: me.account.email, accountKey: me.accountKey,
                now: configuration.clock.now())
            {
                context.logger.info("class invitation accepted", metadata: ["class": "\(found.slug)", "account": "\(me.accountKey)"])
                return try JSONResponse.make(try detail(found, role: role, access: nil, request: request, context: context))
            }
            switch found.joinRule {
            case .open: break
            case .closed:
                throw APIError(.forbidden, "join_closed", "This class takes no new members by itself; ask its teacher to add you.")
            case .invite:
                let form = try await decode(JoinForm.self, request)
                guard let expected = found.inviteCode, let code = form.code, Tokens.constantTimeEqual(code, expected) else {
                    throw APIError(
                        .forbidden, "invalid_invite",
                        "This invite link is not (or no longer) valid. Ask your teacher for the class's current link.")
                }
            }
            try await store.join(classId: found.id, accountKey: me.accountKey, now: configuration.clock.now())
            context.logger.info("class joined", metadata: ["class": "\(found.slug)", "account": "\(me.accountKey)"])
        }
        let role = try await store.role(classId: found.id, accountKey: me.accountKey) ?? access.role ?? .student
        return try JSONResponse.make(try detail(found, role: role, access: nil, request: request, context: context))
    }

    /// `POST /api/classes/:slug/leave`: off the roster, and off the class's map.
    @Sendable func leave(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.requireSignedIn(.api("Log in to leave a class."))
        let (found, _) = try await classAccess(context)
        switch try await writes.removeMember(classId: found.id, accountKey: me.accountKey) {
        case .lastTeacher: throw Self.lastTeacher
        case .done, .notFound: return try JSONResponse.make(["left": true])
        }
    }

    // MARK: Teachers (and moderators, who read the roster)

    /// `GET /api/classes/:slug/members`: moderators see names, roles and who is on the map
    /// (`map_status`, `last_post_at`); the email addresses, and the invitations, are for
    /// teachers, who manage the roster.
    @Sendable func members(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, access) = try await classAccess(context)
        try access.requireModerator(.api)
        return try await roster(of: found, withEmails: access.canManage)
    }

    /// `POST /api/classes/:slug/members` `{"email","role"}`: a member's address changes their
    /// role; any other address is invited (again, with this role), and its account, whenever
    /// there is one, joins by itself. The answer is the same whether or not an account has
    /// the address, so a teacher cannot learn which addresses have accounts here.
    @Sendable func addMember(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, access) = try await classAccess(context)
        try access.requireTeacher(.api)
        let form = try await decode(MemberForm.self, request)
        let email = AccountController.normalizedEmail(form.email ?? "")
        guard AccountController.isPlausibleEmail(email) else {
            throw APIError(.badRequest, "invalid_email", "email is required: an address such as name@example.com.")
        }
        let role = form.role ?? .student
        if let account = try await store.account(email: email), try await store.role(classId: found.id, accountKey: account.key) != nil {
            return try await set(role: role, of: account.key, in: found, context: context)
        }
        try await store.invite(classId: found.id, email: email, role: role, now: configuration.clock.now())
        context.logger.notice("class invitation", metadata: ["class": "\(found.slug)", "role": "\(role.rawValue)"])
        return try await roster(of: found, withEmails: true)
    }

    /// `DELETE /api/classes/:slug/invitations/:email`: the address is no longer invited.
    @Sendable func withdrawInvitation(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, access) = try await classAccess(context)
        try access.requireTeacher(.api)
        let email = AccountController.normalizedEmail(context.parameters.get("email")?.removingPercentEncoding ?? "")
        guard try await store.withdrawInvitation(classId: found.id, email: email) else {
            throw APIError(.notFound, "not_found", "This class has no invitation for that address.")
        }
        return try await roster(of: found, withEmails: true)
    }

    /// The roster, and for teachers the invitations not yet accepted.
    private func roster(of mapClass: MapClass, withEmails: Bool) async throws -> Response {
        let members = try await store.members(classId: mapClass.id)
        let invitations = withEmails ? try await store.invitations(classId: mapClass.id) : []
        return try JSONResponse.make(
            MembersView(
                members: members.map { MemberView($0, withEmail: withEmails) },
                invitations: invitations.map(InvitationView.init)))
    }

    /// `PUT /api/classes/:slug/members/:key` `{"role"}`: a member's new role. Only a member's:
    /// an account is added by email (or joins by itself), never by its key, which every post
    /// shows; a key that is not on the roster is a 404, whether or not it is an account's.
    @Sendable func setRole(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, access) = try await classAccess(context)
        try access.requireTeacher(.api)
        let form = try await decode(MemberForm.self, request)
        guard let role = form.role else { throw APIError(.badRequest, "invalid_role", "role must be teacher, moderator or student.") }
        return try await set(role: role, of: context.parameters.get("key") ?? "", in: found, context: context)
    }

    /// `DELETE /api/classes/:slug/members/:key`: off the roster and off the map.
    @Sendable func removeMember(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, access) = try await classAccess(context)
        try access.requireTeacher(.api)
        switch try await writes.removeMember(classId: found.id, accountKey: context.parameters.get("key") ?? "") {
        case .lastTeacher: throw Self.lastTeacher
        case .notFound: throw Self.notAMember
        case .done: return try JSONResponse.make(["removed": true])
        }
    }

    private func set(role: ClassRole, of key: String, in mapClass: MapClass, context: AppRequestContext) async throws -> Response {
        switch try await store.changeRole(classId: mapClass.id, accountKey: key, role: role) {
        case .lastTeacher: throw Self.lastTeacher
        case .notFound: throw Self.notAMember
        case .done:
            context.logger.notice(
                "class role set", metadata: ["class": "\(mapClass.slug)", "account": "\(key)", "role": "\(role.rawValue)"])
            return try await roster(of: mapClass, withEmails: true)
        }
    }

    /// `DELETE /api/classes/:slug` `{"confirm": "<slug>"}` (teachers): the class, its
    /// locations, roster and invite link are deleted. The default class cannot be.
    @Sendable func deleteClass(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, access) = try await classAccess(context)
        try access.requireTeacher(.api)
        struct Confirm: Decodable { var confirm: String? }
        let form = try await decode(Confirm.self, request)
        guard form.confirm == found.slug else {
            throw APIError(.badRequest, "confirm_slug", "Send {\"confirm\": \"\(found.slug)\"}: deleting a class deletes its map for good.")
        }
        guard found.slug != directory.defaultSlug else {
            throw APIError(.conflict, "default_class", "The server's default class cannot be deleted; archive it instead.")
        }
        guard try await classes.delete(found) else { throw Self.unknown }
        context.logger.notice("class deleted", metadata: ["class": "\(found.slug)"])
        return try JSONResponse.make(["deleted": true])
    }

    // MARK: Helpers

    static let unknown = APIError(.notFound, "unknown_class", "This server has no such class.")
    static let notAMember = APIError(.notFound, "not_found", "This account is not a member of the class.")
    static let lastTeacher = APIError(
        .conflict, "last_teacher",
        "A class always keeps a teacher: make another member a teacher first.")

    private func canCreate(_ me: SignedIn) -> Bool { me.isAdministrator || configuration.anyoneCreatesClasses }

    /// The class the path names and the caller's rights there (one query for the role).
    private func classAccess(_ context: AppRequestContext) async throws -> (MapClass, ClassAccess) {
        try await ClassAccess.named(context.parameters.get("slug") ?? "", for: context.caller, directory: directory, store: store)
    }

    private func detail(
        _ mapClass: MapClass, role: ClassRole?, access: ClassAccess?, request: Request,
        context: AppRequestContext
    ) throws -> ClassView {
        var view = ClassView(mapClass, role: role)
        if access?.canManage ?? (role == .teacher), let code = mapClass.inviteCode {
            let path = "/#/join/\(mapClass.slug)/\(code)"
            view.inviteCode = code
            view.invitePath = path
            view.inviteURL = (try? accounts.publicOrigin.origin(for: request, isHTTPS: context.isHTTPS)).map { $0 + path }
            // Whether Send by email can work here (`POST …/invite/email`), as `Mailer` decides.
            view.inviteEmail = configuration.smtp != nil && configuration.mailSender != nil && configuration.publicOrigin != nil
        }
        return view
    }

    private func decode<Form: Decodable>(_ type: Form.Type, _ request: Request) async throws -> Form {
        let body = try await request.collectBody(limit: configuration.maxBodySize) { APIError.tooLarge }
        if body.isEmpty, let empty = try? JSONDecoder().decode(Form.self, from: Data("{}".utf8)) { return empty }
        do {
            return try JSONDecoder().decode(Form.self, from: body)
        } catch {
            throw APIError(
                .badRequest, "invalid_body",
                "The body must be a JSON object; visibility is members, server or public; join is invite, open or closed; precision is exact, city, region or country; approval is off, new-members or all; role is teacher, moderator or student."
            )
        }
    }

    static func name(_ text: String) throws -> String {
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...maximumNameLength).contains(name.count), TextRules.isDisplaySafe(name) else {
            throw APIError(
                .badRequest, "invalid_name", "A class's name has 1 to \(maximumNameLength) characters, with no control characters.")
        }
        return name
    }
}

struct ClassForm: Decodable {
    var slug: String?
    var name: String?
    var visibility: MapClass.Visibility?
    var join: MapClass.JoinRule?
    var precision: MapClass.Precision?
    var approval: MapClass.Approval?
    var archived: Bool?
}

struct JoinForm: Decodable {
    var code: String?
}

struct MemberForm: Decodable {
    var email: String?
    var role: ClassRole?
}

struct ClassView: Encodable {
    let slug, name: String
    let visibility: MapClass.Visibility
    let join: MapClass.JoinRule
    let precision: MapClass.Precision
    let approval: MapClass.Approval
    /// Read-only since the end of term.
    let archived: Bool
    /// The caller's role (nil: not a member).
    let role: ClassRole?
    /// In the list of classes one may join: it invited the caller's address.
    var invited: Bool?
    /// Teachers only.
    var inviteCode: String?
    var invitePath: String?
    var inviteURL: String?
    /// Teachers only: the server can send the invite link by email.
    var inviteEmail: Bool?

    init(_ mapClass: MapClass, role: ClassRole?) {
        slug = mapClass.slug
        name = mapClass.name
        visibility = mapClass.visibility
        join = mapClass.joinRule
        precision = mapClass.precision
        approval = mapClass.approval
        archived = mapClass.archivedAt != nil
        self.role = role
    }

    enum CodingKeys: String, CodingKey {
        case slug, name, visibility, join, precision, approval, archived, role, invited
        case inviteCode = "invite_code"
        case invitePath = "invite_path"
        case inviteURL = "invite_url"
        case inviteEmail = "invite_email"
    }
}

struct ClassListView: Encodable {
    let classes: [ClassView]
    let joinable: [ClassView]
    let defaultClass: String
    let canCreate: Bool
    enum CodingKeys: String, CodingKey {
        case classes, joinable
        case defaultClass = "default_class"
        case canCreate = "can_create"
    }
}

struct MemberView: Encodable {
    let key, firstName, lastName, role, joinedAt: String
    /// Teachers only.
    let email: String?
    /// On the map, waiting for approval, or not yet (`ClassMapStatus`).
    let mapStatus: ClassMapStatus
    /// Their newest post there that is still there; null when none.
    @ExplicitNull var lastPostAt: String?
    init(_ member: ClassMember, withEmail: Bool) {
        key = member.accountKey
        email = withEmail ? member.email : nil
        firstName = member.firstName
        lastName = member.lastName
        role = member.role.rawValue
        joinedAt = ParseDate.string(from: member.joinedAt)
        mapStatus = member.mapStatus
        lastPostAt = member.lastPostAt.map { ParseDate.string(from: $0) }
    }
    enum CodingKeys: String, CodingKey {
        case key, email, role
        case firstName = "first_name"
        case lastName = "last_name"
        case joinedAt = "joined_at"
        case mapStatus = "map_status"
        case lastPostAt = "last_post_at"
    }
}

struct MembersView: Encodable {
    let members: [MemberView]
    /// Teachers only: the addresses invited, not yet joined.
    let invitations: [InvitationView]
}

struct InvitationView: Encodable {
    let email, role, invitedAt: String
    init(_ invitation: ClassInvitation) {
        email = invitation.email
        role = invitation.role.rawValue
        invitedAt = ParseDate.string(from: invitation.invitedAt)
    }
    enum CodingKeys: String, CodingKey {
        case email, role
        case invitedAt = "invited_at"
    }
}
