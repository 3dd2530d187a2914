import Foundation
import Hummingbird
import Storage

/// Photo searches allowed per account and minute, counted in the database so every server
/// shares one allowance (a fixed one-minute window of `perMinute` searches). Over it
/// answers 429 with `Retry-After`, in our error format.
struct SearchAllowance: Sendable {
    let store: any TravelRepository
    let perMinute: Int

    func admit(_ account: String) async throws {
        let now = Date()
        let window = (now.timeIntervalSince1970 / 60).rounded(.down) * 60
        let start = Date(timeIntervalSince1970: window)
        guard try await store.countUse(name: "search:\(account)", windowStart: start, limit: perMinute) else {
            throw RateLimiter.RateLimited(retryAfter: max(1, Int((window + 60 - now.timeIntervalSince1970).rounded(.up))))
        }
        // Now and then, forget windows long past (cheap: one indexed DELETE).
        if Int.random(in: 0..<200) == 0 { try? await store.pruneUsage(before: now.addingTimeInterval(-2 * 3600)) }
    }
}
