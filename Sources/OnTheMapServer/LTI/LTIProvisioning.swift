import Foundation
import OnTheMapModels
import Storage

/// What a verified launch makes on this server: the person's account (found by the
/// platform's `sub` for that registration; linked to an existing account by email only
/// when the host trusts the platform to vouch for emails), the course's class (one per
/// platform, deployment and context, made by a teacher's launch), and the person's
/// membership with the role the course gives, never lowered by a launch.
struct LTIProvisioning: Sendable {
    let accounts: AccountsService
    let directory: ClassDirectory
    /// The course's class is made (and a duplicate deleted) through it.
    let classes: ClassWrites
    /// Course links and memberships; identity links and accounts (through `SignInPolicy`).
    let store: any LTIRepository & ClassRepository & SignInRepository & AccountRepository

    /// The identity-link provider name of a registration.
    static func provider(_ platform: LTIPlatform) -> String { "lti-\(platform.id)" }

    func account(for claims: LTILaunchClaims, platform: LTIPlatform) async throws -> Account {
        let email = platform.trustEmail ? claims.email : nil
        let identity = SignInPolicy.ExternalIdentity(
            provider: Self.provider(platform), subject: claims.sub ?? "", email: email, emailVerified: email != nil,
            firstName: claims.firstName, lastName: claims.lastName
        )
        do {
            return try await SignInPolicy(accounts: accounts, store: store).resolve(identity, linking: nil, session: nil).account
        } catch let problem as SignInController.Problem {
            throw LTIProblem(problem.status, title: problem.title, message: problem.message, log: "account: \(problem.title)")
        }
    }

    /// The class a resource-link launch opens, when it exists: the one deep linking chose
    /// (`onthemap_class`, which must belong to this course), else the course's own class.
    func existingClass(for claims: LTILaunchClaims, platform: LTIPlatform) async throws -> MapClass? {
        let links = try await store.courseLinks(
            platformID: platform.id, deploymentID: claims.deploymentID ?? "", contextID: claims.context?.id ?? "")
        if let wanted = claims.custom?["onthemap_class"] {
            guard let found = try await directory.mapClass(slug: wanted), links.contains(where: { $0.classID == found.id }) else {
                throw LTIProblem(.notFound, "foreignClass", log: "custom class not linked to the course")
            }
            return found
        }
        guard let own = links.first(where: \.courseClass) else { return nil }
        return try await directory.mapClass(id: own.classID)
    }

    /// Makes the course's own class (or finds the one a simultaneous launch just made).
    func courseClass(
        platform: LTIPlatform, deploymentID: String, contextID: String, title: String?, teacherKey: String,
        now: Date
    ) async throws -> MapClass {
        let made = try await newClass(named: title ?? "Course map", teacherKey: teacherKey, now: now)
        let link = LTICourseLink(
            platformID: platform.id, deploymentID: deploymentID, contextID: contextID, classID: made.id, courseClass: true)
        if try await store.addCourseLink(link) { return made }
        // Another launch made the course's class first: use it, drop ours.
        _ = try await classes.delete(made)
        let links = try await store.courseLinks(platformID: link.platformID, deploymentID: link.deploymentID, contextID: link.contextID)
        guard let own = links.first(where: \.courseClass), let found = try await directory.mapClass(id: own.classID) else {
            throw LTIProblem(.conflict, "launchesMet", tryAgain: true)
        }
        return found
    }

    /// A members-only class for a course: closed (its members come from the course), with
    /// the server's defaults for new classes, its slug made from the name.
    func newClass(named title: String, teacherKey: String, now: Date) async throws -> MapClass {
        let name = (try? ClassController.name(String(title.prefix(80)))) ?? "Course map"
        let stem = Self.slugStem(name)
        for _ in 0..<5 {
            let slug = "\(stem)-\(Tokens.randomHex(bytes: 3))"
            let made = MapClass(
                id: Identifiers.objectId(), slug: slug, name: name, visibility: .members, joinRule: .closed,
                inviteCode: nil, createdAt: now)
            do {
                try await classes.create(made, teacherKey: teacherKey, now: now)
                return made
            } catch StorageError.slugTaken {
                continue
            }
        }
        throw LTIProblem(.conflict, "unnamedClass", tryAgain: true)
    }

    /// Up to 30 of a-z, 0-9 and -, from the course's name ("course" when nothing is left).
    static func slugStem(_ name: String) -> String {
        let folded = name.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).lowercased()
        var stem = ""
        for scalar in folded.unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                stem.unicodeScalars.append(scalar)
            } else if !stem.isEmpty, stem.last != "-" {
                stem.append("-")
            }
            if stem.count >= 30 { break }
        }
        while stem.hasSuffix("-") { stem.removeLast() }
        return stem.count >= 2 ? stem : "course"
    }

    /// Makes the person a member with the course's role, unless they already hold a higher one.
    func enrol(accountKey: String, in mapClass: MapClass, roles: [String], now: Date) async throws {
        let role = LTIRoles.classRole(roles)
        if let current = try await store.role(classId: mapClass.id, accountKey: accountKey), current >= role { return }
        _ = try await store.setMember(classId: mapClass.id, accountKey: accountKey, role: role, now: now)
    }
}
