import Foundation
import Synchronization

/// Where the server reads the time of day: sessions, throttling, reset links, sign-ins,
/// claims and leases all ask it (`Configuration.clock`), so a test moves time forward
/// instead of waiting for it to pass.
public struct WallClock: Sendable {
    public let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    /// The system's clock.
    public static let system = WallClock { Date() }
}

/// A clock that stands still until it is moved: `advance(by:)`.
public final class ManualClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date = Date()) {
        current = Mutex(start)
    }

    public var now: Date { current.withLock { $0 } }

    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    public var clock: WallClock { WallClock { [self] in self.now } }
}
