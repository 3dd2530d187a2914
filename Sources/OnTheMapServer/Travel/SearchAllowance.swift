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
    /// One admission in this many also forgets counters of windows that are over (1 in a test).
    var pruneOneIn = 200

    func admit(_ account: String) async throws {
        let now = clock.now()
        let length = Double(windowSeconds)
        let window = (now.timeIntervalSince1970 / length).rounded(.down) * length
        let start = Date(timeIntervalSince1970: window)
        guard try await store.countUse(name: "search:\(account)", windowStart: start, limit: limit) else {
            throw RateLimiter.RateLimited(retryAfter: max(1, Int((window + length - now.timeIntervalSince1970).rounded(.up))))
        }
        // Now and then, forget windows that are over (cheap: one indexed DELETE). The table is
        // shared with the hourly sharing quota, so keep the last two hours too; never forget
        // the window this count belongs to, however long it is (a day's window started
        // long before two hours ago).
        if Int.random(in: 0..<max(1, pruneOneIn)) == 0 {
            try? await store.pruneUsage(before: min(start, now.addingTimeInterval(-2 * 3600)))
        }
    }
}
