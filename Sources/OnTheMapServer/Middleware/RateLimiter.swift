import Foundation
import Hummingbird

/// A token bucket per client address: `burst` requests at once, refilled at `perSecond`.
/// Over the limit answers 429 in our error format with `Retry-After`.
actor RateLimiter {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let perSecond: Double
    let burst: Double
    private var buckets: [String: Bucket] = [:]
    private let clock = ContinuousClock()

    init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }

    func admit(_ client: String) throws {
        let now = clock.now
        if buckets.count > 10_000 { prune(now: now) }
        var bucket = buckets[client] ?? Bucket(tokens: burst, updated: now)
        let elapsed = now - bucket.updated
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        bucket.tokens = min(burst, bucket.tokens + seconds * perSecond)
        bucket.updated = now
        guard bucket.tokens >= 1 else {
            buckets[client] = bucket
            throw RateLimited(retryAfter: Int(((1 - bucket.tokens) / perSecond).rounded(.up)))
        }
        bucket.tokens -= 1
        buckets[client] = bucket
    }

    /// Forgets clients whose bucket has refilled: they would start full anyway.
    private func prune(now: ContinuousClock.Instant) {
        let refill = Duration.seconds(burst / perSecond)
        buckets = buckets.filter { now - $0.value.updated < refill }
    }

    struct RateLimited: HTTPResponseError {
        let retryAfter: Int
        var status: HTTPResponse.Status { .tooManyRequests }
        func response(from request: Request, context: some RequestContext) throws -> Response {
            var response = try APIError(.tooManyRequests, "rate_limited", "Too many requests; try again in \(retryAfter) s.")
                .response(from: request, context: context)
            response.headers[.retryAfter] = String(max(1, retryAfter))
            return response
        }
    }
}
