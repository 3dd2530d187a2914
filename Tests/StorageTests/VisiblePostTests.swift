import Testing

@testable import Storage

/// The visible-post condition is written once (`VisiblePost`); the shipped migrations spell it
/// out in their partial indexes, which a query uses only while it states their condition.
struct VisiblePostTests {
    @Test("the condition is the one the visible posts' partial indexes (migrations 13 and 15) are built with")
    func matchesTheIndexes() {
        #expect(VisiblePost.condition == "hidden_at IS NULL AND owner_disabled = 0 AND waiting = 0")
        for migration in [Migration.v13, Migration.v15] {
            #expect(migration.shared.contains { $0.hasSuffix("WHERE \(VisiblePost.condition)") })
        }
    }

    @Test("a waiting post and a present one are what they were before the condition had one home")
    func parts() {
        #expect(VisiblePost.waiting == "waiting = 1 AND hidden_at IS NULL AND owner_disabled = 0")
        #expect(VisiblePost.present == "hidden_at IS NULL AND owner_disabled = 0")
    }
}
