import Foundation
import OnTheMapModels

/// What the host of a community needs: administrators, disabled accounts, hidden or deleted
/// posts with the reason their author sees, reports, and one-time password-reset links.
public protocol ModerationRepository: Sendable {
    /// Every account, oldest first, with how many posts each has.
    func accountSummaries() async throws -> [AccountSummary]
    /// Makes an account an administrator, or no longer one. Taking the role away from the
    /// last enabled administrator is refused (`.lastAdministrator`), checked in the same
    /// statement as the change, so two administrators racing cannot both win.
    @discardableResult func setAdmin(accountKey: String, _ isAdmin: Bool) async throws -> AccountChange
    /// Disables (or enables) an account: its posts are hidden (or shown) for everyone and,
    /// when disabling, its sessions end and its open reset links are spent. Disabling the last
    /// enabled administrator is refused (`.lastAdministrator`), checked as `setAdmin` does.
    func setDisabled(accountKey: String, _ disabled: Bool, now: Date) async throws -> AccountChange

    /// A post of the class as a moderator sees it, hidden or not.
    func moderatedLocation(objectId: String, in classId: String) async throws -> ModeratedLocation?
    /// The class's newest posts first, or its reported ones (most reports first), hidden ones included.
    func moderationList(_ view: ModerationView, in classId: String, limit: Int) async throws -> [ModeratedLocation]
    /// Hides (`hidden: true`) or shows a post of the class again, logging the action for its
    /// author. Returns false when the class has no such post.
    func setHidden(objectId: String, in classId: String, _ hidden: Bool, reason: String, moderatorKey: String?, now: Date) async throws
        -> Bool
    /// Deletes a post of the class, keeping a note of it (place and reason) for its author.
    func moderatorDelete(objectId: String, in classId: String, reason: String, moderatorKey: String?, now: Date) async throws -> Bool
    /// Approves a waiting post of the class: everyone who may read the class sees it. False
    /// when the class has no such waiting post.
    func approve(objectId: String, in classId: String, moderatorKey: String?, now: Date) async throws -> Bool
    /// Rejects a waiting post: it is deleted, and its author is told why. False when the class
    /// has no such waiting post.
    func reject(objectId: String, in classId: String, reason: String, moderatorKey: String?, now: Date) async throws -> Bool
    /// What moderators did to this account's posts, newest first.
    func moderationNotices(accountKey: String, limit: Int) async throws -> [ModerationNotice]

    /// Records one report per reporter and post; `.notFound` for a post the class's readers cannot see.
    func report(objectId: String, in classId: String, reporterKey: String, reason: String, now: Date) async throws -> ReportOutcome
    /// How many reports this account made since `since` (reports are rate-bounded).
    func reportCount(reporterKey: String, since: Date) async throws -> Int

    /// Stores a reset link's token (as its digest, like sessions).
    func createPasswordReset(token: String, accountKey: String, now: Date, expiresAt: Date) async throws
    /// The account a live (unused, unexpired) link is for, without spending it.
    func passwordResetAccount(token: String, now: Date) async throws -> String?
    /// Marks the link used and returns its account, or nil if it is unknown, used or expired.
    /// Only one caller can ever get the account for a given token.
    func consumePasswordReset(token: String, now: Date) async throws -> String?
}

public struct AccountSummary: Sendable, Equatable {
    public var account: Account
    public var locationCount: Int
}

public enum ModerationView: String, Sendable, CaseIterable {
    case newest, reported
    /// Posts waiting for approval, oldest first.
    case waiting
}

public struct ModeratedLocation: Sendable, Equatable {
    public var record: StudentInformation
    public var ownerKey: String?
    public var hiddenAt: Date?
    public var hiddenReason: String?
    public var ownerDisabled: Bool
    /// Waiting for a moderator's approval.
    public var waiting: Bool = false
    public var reportCount: Int
    /// The reasons reporters gave, newest first (at most a few).
    public var reportReasons: [String]
}

public struct ModerationNotice: Sendable, Equatable {
    public enum Action: String, Sendable { case hide, unhide, delete, approve, reject }
    public var action: Action
    public var objectId: String?
    public var mapString: String?
    public var reason: String
    public var createdAt: Date
}

public enum ReportOutcome: Sendable, Equatable {
    case reported, alreadyReported, notFound
}
