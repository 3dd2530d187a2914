import Foundation
import OnTheMapModels
import TestDatabases
import Testing

@testable import Storage

/// LTI in the store, on every backend: registrations are unique per issuer and client id,
/// a login's state is spent once, a course has one class of its own, a roster sync says
/// who left, one-time tickets work once and only while alive, and the tool's keys rotate.
@Suite("LTI in the store")
struct LTIStoreTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    static func platform(_ id: String, clientID: String = "client-1", deployments: [String] = ["d1"]) -> LTIPlatform {
        LTIPlatform(
            id: id, issuer: "https://lms.example.edu", clientID: clientID, name: "LMS", authURL: "https://lms.example.edu/auth",
            tokenURL: "https://lms.example.edu/token", jwksURL: "https://lms.example.edu/jwks", trustEmail: false,
            deploymentIDs: deployments, createdAt: now)
    }

    @Test("platforms: unique per issuer and client id; removing one takes its deployments, links and roster", arguments: Backend.available)
    func platforms(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.addPlatform(Self.platform("p1", deployments: ["d1", "d2"]))
            await #expect(throws: StorageError.platformExists) { try await store.addPlatform(Self.platform("p2")) }
            try await store.addPlatform(Self.platform("p3", clientID: "client-2", deployments: []))
            try await store.addDeployment(platformID: "p3", deploymentID: "d9")
            try await store.addDeployment(platformID: "p3", deploymentID: "d9")
            #expect(try await store.ltiPlatforms().map(\.id) == ["p1", "p3"])
            #expect(try await store.ltiPlatform(id: "p1")?.deploymentIDs == ["d1", "d2"])
            #expect(try await store.ltiPlatform(id: "p3")?.deploymentIDs == ["d9"])
            var changed = try #require(try await store.ltiPlatform(id: "p3"))
            changed.trustEmail = true
            changed.tokenAudience = "https://api.example.edu/token"
            changed.frameOrigins = ["https://school.example.edu", "https://other.example.edu"]
            #expect(try await store.updatePlatform(changed))
            #expect(try await store.ltiPlatform(id: "p3") == changed)
            #expect(try await store.addFrameOrigin("https://third.example.edu", platformID: "p3"))
            #expect(try await store.addFrameOrigin("https://school.example.edu", platformID: "p3") == false, "there already")
            #expect(
                try await store.ltiPlatform(id: "p3")?.frameOrigins == [
                    "https://school.example.edu", "https://other.example.edu", "https://third.example.edu",
                ])
            #expect(try await store.ltiPlatform(id: "p3")?.trustEmail == true, "nothing else is written")

            try await ClassStoreTests.account("1000000001", on: store)
            let made = try await ClassStoreTests.makeClass("course-a", on: store, teacher: "1000000001")
            #expect(
                try await store.addCourseLink(
                    LTICourseLink(platformID: "p1", deploymentID: "d1", contextID: "c1", classID: made.id, courseClass: true)))
            try await store.recordLaunch(
                classID: made.id, platformID: "p1", entry: LTIRosterEntry(subject: "s1", name: "Ada", roles: []),
                accountKey: "1000000001")
            #expect(
                try await store.linkIdentity(
                    IdentityLink(
                        provider: "lti-p1", subject: "s1", accountKey: "1000000001", email: "",
                        createdAt: Self.now, origin: .signUp)))
            #expect(try await store.removePlatform(id: "p1"))
            #expect(try await store.identityAccountKey(provider: "lti-p1", subject: "s1") == nil, "its people's ways in through it go")
            #expect(try await store.account(key: "1000000001") != nil, "their accounts stay")
            #expect(try await store.removePlatform(id: "p1") == false)
            #expect(try await store.courseLinks(classID: made.id).isEmpty)
            #expect(try await store.roster(classID: made.id).lines.isEmpty)
            #expect(try await store.mapClass(slug: "course-a") != nil, "the class stays")
        }
    }

    @Test("a login's state is spent by the first launch; expired logins and tickets are swept", arguments: Backend.available)
    func logins(backend: Backend) async throws {
        try await backend.withStore { store in
            let login = LTIPendingLogin(
                stateDigest: "digest-1", platformID: "p1", nonce: "n", browserDigest: "b", targetLinkURI: "https://t/x",
                expiresAt: Self.now.addingTimeInterval(600))
            try await store.saveLTILogin(login)
            #expect(try await store.takeLTILogin(stateDigest: "digest-1") == login)
            #expect(try await store.takeLTILogin(stateDigest: "digest-1") == nil)
            try await store.saveLTILogin(login)
            try await store.saveTicket(
                digest: "t1", LTITicket(kind: .window, accountKey: nil, payload: "x", expiresAt: Self.now.addingTimeInterval(60)))
            #expect(try await store.deleteExpiredLTILogins(now: Self.now.addingTimeInterval(30)) == 0)
            #expect(try await store.deleteExpiredLTILogins(now: Self.now.addingTimeInterval(700)) == 2)
        }
    }

    @Test("tickets: one use, of their kind, while alive", arguments: Backend.available)
    func tickets(backend: Backend) async throws {
        try await backend.withStore { store in
            let ticket = LTITicket(
                kind: .window, accountKey: "1000000001", payload: "course-a", expiresAt: Self.now.addingTimeInterval(600))
            try await store.saveTicket(digest: "t1", ticket)
            #expect(try await store.peekTicket(digest: "t1", kind: .window, now: Self.now) == ticket)
            #expect(try await store.peekTicket(digest: "t1", kind: .window, now: Self.now.addingTimeInterval(601)) == nil, "expired")
            #expect(try await store.takeTicket(digest: "t1", kind: .deepLink, now: Self.now) == nil, "another kind")
            #expect(try await store.takeTicket(digest: "t1", kind: .window, now: Self.now) == ticket)
            #expect(try await store.takeTicket(digest: "t1", kind: .window, now: Self.now) == nil, "spent")
            try await store.saveTicket(digest: "t2", ticket)
            #expect(try await store.takeTicket(digest: "t2", kind: .window, now: Self.now.addingTimeInterval(601)) == nil, "expired")
        }
    }

    @Test("a course has one class of its own; the roster says who is on the map and who left", arguments: Backend.available)
    func courses(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.addPlatform(Self.platform("p1"))
            for key in ["1000000001", "1000000002", "1000000003"] { try await ClassStoreTests.account(key, on: store) }
            let own = try await ClassStoreTests.makeClass("course-a", on: store, teacher: "1000000001")
            let other = try await ClassStoreTests.makeClass("course-b", on: store, teacher: "1000000001")
            #expect(
                try await store.addCourseLink(
                    LTICourseLink(platformID: "p1", deploymentID: "d1", contextID: "c1", classID: own.id, courseClass: true)))
            #expect(
                try await store.addCourseLink(
                    LTICourseLink(platformID: "p1", deploymentID: "d1", contextID: "c1", classID: other.id, courseClass: true)) == false,
                "a second class of the course's own is refused")
            #expect(
                try await store.addCourseLink(
                    LTICourseLink(platformID: "p1", deploymentID: "d1", contextID: "c1", classID: other.id, courseClass: false)))
            #expect(
                try await store.courseLinks(platformID: "p1", deploymentID: "d1", contextID: "c1").map(\.classID) == [own.id, other.id])
            try await store.setMembershipsURL("https://lms.example.edu/nrps/c1", platformID: "p1", deploymentID: "d1", contextID: "c1")
            #expect(try await store.courseLinks(classID: own.id).first?.membershipsURL == "https://lms.example.edu/nrps/c1")

            // Two launched; one of them posts.
            #expect(try await store.setMember(classId: own.id, accountKey: "1000000002", role: .student, now: Self.now) == .done)
            #expect(try await store.setMember(classId: own.id, accountKey: "1000000003", role: .student, now: Self.now) == .done)
            try await store.recordLaunch(
                classID: own.id, platformID: "p1", entry: LTIRosterEntry(subject: "s2", name: "Bea", roles: ["Learner"]),
                accountKey: "1000000002")
            try await store.recordLaunch(
                classID: own.id, platformID: "p1", entry: LTIRosterEntry(subject: "s3", name: "Cy", roles: ["Learner"]),
                accountKey: "1000000003")
            var post = record("onmap00001", key: "1000000002")
            post.classId = own.id
            post.ownerKey = "1000000002"
            try await store.insertLocation(post)

            // The platform's roster: Bea, and Dee who never launched; Cy left the course.
            let gone = try await store.replaceRoster(
                classID: own.id, platformID: "p1",
                entries: [
                    LTIRosterEntry(subject: "s2", name: "Bea", roles: ["Learner"]),
                    LTIRosterEntry(subject: "s4", name: "Dee", roles: ["Learner", "Mentor"]),
                ], now: Self.now)
            #expect(gone == ["1000000003"])
            let roster = try await store.roster(classID: own.id)
            #expect(roster.syncedAt == Self.now)
            #expect(roster.lines.map(\.entry.name) == ["Bea", "Dee"])
            #expect(roster.lines.map(\.onMap) == [true, false])
            #expect(roster.lines.map(\.role) == [.student, nil])
            #expect(roster.lines.last?.entry.roles == ["Learner", "Mentor"])

            // Deleting the class takes its links and roster.
            #expect(try await store.deleteClass(id: own.id))
            #expect(try await store.courseLinks(classID: own.id).isEmpty)
            #expect(try await store.roster(classID: own.id).lines.isEmpty)
        }
    }

    @Test("the tool's keys: adding one retires the others; retired keys are forgotten after their time", arguments: Backend.available)
    func keys(backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.addToolKey(LTIToolKey(kid: "k1", privateKeyPEM: "pem1", createdAt: Self.now), retiringOthersAt: Self.now)
            let later = Self.now.addingTimeInterval(3600)
            try await store.addToolKey(LTIToolKey(kid: "k2", privateKeyPEM: "pem2", createdAt: later), retiringOthersAt: later)
            let keys = try await store.ltiToolKeys()
            #expect(keys.map(\.kid) == ["k2", "k1"])
            #expect(keys.map(\.retiredAt) == [nil, later])
            #expect(try await store.deleteToolKeys(retiredBefore: later) == 0)
            #expect(try await store.deleteToolKeys(retiredBefore: later.addingTimeInterval(1)) == 1)
            #expect(try await store.ltiToolKeys().map(\.kid) == ["k2"])
        }
    }
}
