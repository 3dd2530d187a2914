import Foundation
import Hummingbird
import Storage

/// Photo searches allowed per account, counted in the database so every server shares one
/// allowance: `limit` searches in each fixed window of `windowSeconds`. Over it answers 429
/// with `Retry-After` (the window's end), in our error format.
struct SearchAllowance: Sendable {
    let store: any TravelRepository
    let clock: WallClock
    let limit: Int
    let windowSeconds: Int

    func admit(_ account: String) async throws {
        let now = clock.now()
        let length = Double(windowSeconds)
        let window = (now.timeIntervalSince1970 / length).rounded(.down) * length
        let start = Date(timeIntervalSince1970: window)
        guard try await store.countUse(name: "search:\(account)", windowStart: start, limit: limit) else {
            throw RateLimiter.RateLimited(retryAfter: max(1, Int((window + length - now.timeIntervalSince1970).rounded(.up))))
        }
        // Now and then, forget windows long past (cheap: one indexed DELETE).
        if Int.random(in: 0..<200) == 0 { try? await store.pruneUsage(before: now.addingTimeInterval(-2 * 3600)) }
    }
}
