import Logging
import PostgresKit

/// What other servers did to student locations, for caches that must not outlive a write
/// made anywhere (see `SQLStore.locationChangeFeed()`).
public enum LocationChangeEvent: Sendable, Equatable {
    /// Listening, for the first time or again: what happened before is unknown, so a
    /// cache starts afresh.
    case listening
    /// Some server wrote student locations.
    case changed
    /// The listening connection is gone; until `listening` comes again, writes go unseen.
    case interrupted
}

/// PostgreSQL LISTEN/NOTIFY on one channel per schema. A trigger notifies on every write to
/// student_locations (migration 3); each server listens on a connection of its own,
/// outside the pool, and reconnects with backoff when it drops.
enum PostgresChangeFeed {
    static func events(configuration: SQLPostgresConfiguration, channel: String, logger: Logger) -> AsyncStream<LocationChangeEvent> {
        AsyncStream(bufferingPolicy: .bufferingNewest(64)) { continuation in
            let task = Task {
                var delay = Duration.milliseconds(250)
                while !Task.isCancelled {
                    do {
                        let connection = try await PostgresConnection.connect(
                            configuration: configuration.coreConfiguration, id: 0, logger: logger
                        )
                        do {
                            try await connection.listen(on: channel) { notifications in
                                continuation.yield(.listening)
                                delay = .milliseconds(250)
                                for try await _ in notifications { continuation.yield(.changed) }
                            }
                        } catch {
                            logger.warning("location change feed lost", metadata: ["error": "\(String(reflecting: error))"])
                        }
                        try? await connection.close()
                    } catch {
                        logger.warning("location change feed cannot connect", metadata: ["error": "\(String(reflecting: error))"])
                    }
                    continuation.yield(.interrupted)
                    try? await Task.sleep(for: delay)
                    delay = min(delay * 2, .seconds(5))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Every notification's payload on `channel`, reconnecting like `events`. What was
    /// announced while the connection was down is lost; listeners re-read what they show.
    static func payloads(configuration: SQLPostgresConfiguration, channel: String, logger: Logger) -> AsyncStream<String> {
        AsyncStream(bufferingPolicy: .bufferingNewest(1024)) { continuation in
            let task = Task {
                var delay = Duration.milliseconds(250)
                while !Task.isCancelled {
                    do {
                        let connection = try await PostgresConnection.connect(
                            configuration: configuration.coreConfiguration, id: 1, logger: logger
                        )
                        do {
                            try await connection.listen(on: channel) { notifications in
                                delay = .milliseconds(250)
                                for try await notification in notifications { continuation.yield(notification.payload) }
                            }
                        } catch {
                            logger.warning("album change feed lost", metadata: ["error": "\(String(reflecting: error))"])
                        }
                        try? await connection.close()
                    } catch {
                        logger.warning("album change feed cannot connect", metadata: ["error": "\(String(reflecting: error))"])
                    }
                    try? await Task.sleep(for: delay)
                    delay = min(delay * 2, .seconds(5))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
