import Logging
import ServiceLifecycle
import Storage

/// Drives a server's live map: polls the change log when poked (a local write, or on
/// PostgreSQL a notification from the trigger that also keeps the list cache honest) and
/// every `pollInterval` regardless, sends heartbeats, ends streams past their lifetime, and
/// ends every stream at shutdown.
struct LiveLocationsService: Service {
    let live: LiveLocations
    /// PostgreSQL's LISTEN connection (nil on SQLite, where this process is the only writer).
    let feed: AsyncStream<LocationChangeEvent>?
    /// The class whose map is read and encoded at start (the default class).
    let warmClassId: String

    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await live.pollLoop() }
            // Read and encoded once in the background at start, in the layout browsers ask
            // for, so the first map load does not wait for a full read of the table.
            group.addTask { _ = try? await live.snapshot(.mapBinary, classId: warmClassId) }
            if let feed {
                group.addTask {
                    // `listening` again after a drop: catch up on what was written meanwhile.
                    for await event in feed where event != .interrupted { live.poke() }
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: live.settings.pollInterval)
                    live.poke()
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: live.settings.heartbeatInterval)
                    live.heartbeat()
                }
            }
            group.addTask {
                // Streams past their lifetime end within a second.
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    live.endExpired()
                }
            }
            try? await gracefulShutdown()
            live.finishAll()
            group.cancelAll()
        }
    }
}
