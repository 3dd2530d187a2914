import SQLKit

/// The one definition of which student locations readers see, as SQL conditions on a
/// `student_locations` row (unqualified columns). The migrations' triggers and partial indexes
/// (13, 15, 18) spell the same condition out, and stay as they shipped.
enum VisiblePost {
    /// Still there: not hidden by a moderator, its author not disabled. Posts that are not are
    /// gone for every reader and writer (the author learns why from their notices); only
    /// moderation queries see them.
    static let present = "hidden_at IS NULL AND owner_disabled = 0"

    /// Seen by every reader of the class: present, and not waiting for a moderator's approval
    /// (a waiting post is its author's and the moderators' only). The partial index of
    /// migration 13 has exactly this condition, so one class's visible posts are read from it.
    static let condition = present + " AND waiting = 0"

    /// Waiting for approval, and present.
    static let waiting = "waiting = 1 AND " + present

    /// "On the map" in a class: the account has a visible post there. The one rule the class's
    /// roster, the course roster (LTI) and the reminders to those not on the map yet share.
    /// `account` and `classId` name the outer query's columns (an account key, a class id).
    static func onMap(account: String, classId: String) -> String {
        "EXISTS (SELECT 1 FROM student_locations WHERE student_locations.class_id = \(classId)"
            + " AND student_locations.owner_key = \(account) AND \(condition))"
    }

    /// Not on the map, but with a post waiting for a moderator's approval there.
    static func waitingForApproval(account: String, classId: String) -> String {
        "EXISTS (SELECT 1 FROM student_locations WHERE student_locations.class_id = \(classId)"
            + " AND student_locations.owner_key = \(account) AND \(waiting))"
    }

    /// When the account last posted or moved a post that is still there (visible or waiting).
    static func lastPost(account: String, classId: String) -> String {
        "(SELECT MAX(student_locations.updated_at) FROM student_locations WHERE student_locations.class_id = \(classId)"
            + " AND student_locations.owner_key = \(account) AND \(present))"
    }

    /// What `author` may read: the visible posts, and their own waiting ones.
    static func readable(by author: String?) -> SQLQueryString {
        guard let author else { return "\(unsafeRaw: condition)" }
        return "(\(unsafeRaw: condition) OR (\(unsafeRaw: waiting) AND owner_key = \(bind: author)))"
    }
}
