import Logging
import NIOCore
import OnTheMapModels
import Storage
import Synchronization

/// One Server-Sent Events frame, encoded once and shared by every viewer's stream.
struct LiveFrame: Sendable {
    /// nil for heartbeats.
    let version: Int64?
    let bytes: ByteBuffer
    /// The stream ends after this frame (`reload`).
    let ends: Bool
}

/// How a snapshot lays out its locations.
enum SnapshotLayout: Sendable, Hashable {
    /// `locations`: one object per location (the API's LiveLocation).
    case records
    /// `columns`: one array per field the web map draws, no `updatedAt`; about half the bytes
    /// and a third of the browser's parsing at 100,000 locations.
    case mapColumns
}

/// The snapshot body at one version, plain and gzipped, built once per version asked for.
struct EncodedSnapshot: Sendable {
    let version: Int64
    let count: Int
    let plain: ByteBuffer
    let gzipped: ByteBuffer?
}

/// The live map of one server: the change log's newest entries in memory (so a viewer
/// resumes from its last event id without a query), every viewer's stream, and the
/// snapshot kept current by applying each change. Changes come only from the database's
/// log (`LiveLocationsService` polls it when poked), so every server publishes the same
/// versions in the same order, whoever wrote.
final class LiveLocations: Sendable {
    struct Settings: Sendable {
        /// Changes kept in memory for viewers that resume; further behind, they reload.
        var ringCapacity = 1024
        /// Frames a viewer may have waiting beyond a full backlog before it is dropped.
        var viewerBuffer = 256
        var heartbeatInterval: Duration = .seconds(15)
        /// Also polled this often, for writes nothing announced (e.g. by hand in sqlite3).
        var pollInterval: Duration = .seconds(1)
        /// Changes kept in the database's log.
        var keptChanges = 10_000
        var snapshotPageSize = 5_000
        init() {}
    }

    enum Subscription: Sendable {
        case stream(id: UInt64, AsyncStream<LiveFrame>)
        /// Too far behind (or the table was reset since): load the snapshot again.
        case reload(version: Int64)
        /// Ahead of what this server has published; the handler asks the database.
        case ahead
    }

    private struct Viewer {
        let continuation: AsyncStream<LiveFrame>.Continuation
        /// Skips versions up to this one (a viewer that resumed from a newer id than ours).
        let skipThrough: Int64
    }

    private struct State {
        /// Highest version published.
        var version: Int64 = 0
        /// The ring holds every change above `floor` up to `version`.
        var floor: Int64 = 0
        var ring: [(change: LocationChange, frame: ByteBuffer)] = []
        var viewers: [UInt64: Viewer] = [:]
        var nextViewer: UInt64 = 0
        var finished = false
        /// Every location by objectId, once a snapshot was asked for.
        var records: [String: StudentInformation]?
        var loading: Task<Void, any Error>?
        var encoded: [SnapshotLayout: EncodedSnapshot] = [:]
        var encoding: [SnapshotLayout: (version: Int64, task: Task<EncodedSnapshot, Never>)] = [:]
        var prunedAt: Int64 = 0
    }

    let settings: Settings
    private let store: any LocationChangeRepository
    private let logger: Logger
    private let state = Mutex(State())
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// Told before new changes from the log are published: the list-answer cache is dropped
    /// here, so no list answer is ever older than what the map shows, whoever wrote (this
    /// server, another one, `onthemap admin`, or someone in `psql`).
    private let beforePublishing: @Sendable () -> Void

    init(store: any LocationChangeRepository, settings: Settings = Settings(), logger: Logger,
         beforePublishing: @escaping @Sendable () -> Void = {}) {
        self.store = store
        self.settings = settings
        self.logger = logger
        self.beforePublishing = beforePublishing
        (wakes, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Fills the ring with the newest logged changes, so viewers can resume across a restart.
    func start() async throws {
        let recent = try await store.latestLocationChanges(limit: settings.ringCapacity)
        let latest = try await store.latestLocationVersion()
        state.withLock { s in
            s.version = recent.last?.version ?? latest
            s.floor = recent.count == settings.ringCapacity ? (recent.first?.version ?? latest) : 0
            // A pruned log: what is not kept cannot be replayed.
            if let first = recent.first, recent.count < settings.ringCapacity, first.version > 1 { s.floor = first.version - 1 }
            s.ring = recent.map { ($0, Self.frame(for: $0)) }
        }
    }

    var version: Int64 { state.withLock { $0.version } }
    var viewerCount: Int { state.withLock { $0.viewers.count } }

    /// Something may have been written: poll the log soon.
    func poke() { wake.yield() }

    // MARK: Viewers

    func subscribe(since: Int64) -> Subscription {
        open(skipThrough: since) { s, continuation in
            if since > s.version { return .ahead }
            let backlog = s.ring.filter { $0.change.version > since }
            if since < s.floor || backlog.contains(where: { $0.change.kind == .reset }) { return .reload(version: s.version) }
            for entry in backlog { continuation.yield(LiveFrame(version: entry.change.version, bytes: entry.frame, ends: false)) }
            return nil
        }
    }

    /// For a viewer whose last id is newer than what this server has published but that
    /// the database has logged: it hears nothing until this server catches up past it.
    func subscribeAhead(skipThrough: Int64) -> Subscription {
        open(skipThrough: skipThrough) { _, _ in nil }
    }

    /// A viewer's stream, registered under the lock unless `check` answers otherwise.
    private func open(
        skipThrough: Int64, _ check: (State, AsyncStream<LiveFrame>.Continuation) -> Subscription?
    ) -> Subscription {
        // Room for a whole backlog plus some live frames: a viewer that cannot keep up
        // fills it and is dropped, so a stalled client holds a bounded amount of memory.
        let (stream, continuation) = AsyncStream<LiveFrame>.makeStream(
            bufferingPolicy: .bufferingOldest(settings.ringCapacity + settings.viewerBuffer))
        let (outcome, id): (Subscription?, UInt64) = state.withLock { s in
            if s.finished { return (.reload(version: s.version), 0) }
            if let answer = check(s, continuation) { return (answer, 0) }
            let id = s.nextViewer
            s.nextViewer += 1
            s.viewers[id] = Viewer(continuation: continuation, skipThrough: skipThrough)
            return (nil, id)
        }
        if let outcome {
            continuation.finish()
            return outcome
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return .stream(id: id, stream)
    }

    func unsubscribe(_ id: UInt64) {
        let viewer = state.withLock { $0.viewers.removeValue(forKey: id) }
        viewer?.continuation.finish()
    }

    /// Ends every stream (server shutdown) and refuses new ones.
    func finishAll() {
        let all = state.withLock { s in
            s.finished = true
            defer { s.viewers = [:] }
            return Array(s.viewers.values)
        }
        for viewer in all { viewer.continuation.finish() }
        wake.finish()
    }

    func heartbeat() {
        deliver { _ in LiveFrame(version: nil, bytes: Self.heartbeatFrame, ends: false) }
    }

    /// Yields to every viewer under the lock (so a subscription's backlog and the live
    /// frames neither overlap nor leave a gap); a viewer whose buffer is full is dropped,
    /// and finished outside the lock (finishing runs its termination handler).
    private func deliver(_ frames: (inout State) -> LiveFrame?) {
        var dropped: [AsyncStream<LiveFrame>.Continuation] = []
        state.withLock { s in
            guard let frame = frames(&s) else { return }
            for (id, viewer) in s.viewers {
                if let version = frame.version, version <= viewer.skipThrough { continue }
                if case .dropped = viewer.continuation.yield(frame) {
                    s.viewers[id] = nil
                    dropped.append(viewer.continuation)
                }
            }
        }
        if !dropped.isEmpty { logger.notice("live map: slow viewers dropped", metadata: ["count": "\(dropped.count)"]) }
        for continuation in dropped { continuation.finish() }
    }

    // MARK: Changes

    /// Publishes changes read from the log, in version order; ones already published are
    /// ignored, so overlapping polls are harmless.
    func publish(_ changes: [LocationChange]) {
        for change in changes {
            deliver { s in
                guard change.version > s.version else { return nil }
                let frame = Self.frame(for: change)
                s.ring.append((change, frame))
                if s.ring.count > settings.ringCapacity { s.floor = s.ring.removeFirst().change.version }
                s.version = change.version
                if s.records != nil { Self.apply(change, to: &s.records!) }
                return LiveFrame(version: change.version, bytes: frame, ends: change.kind == .reset)
            }
        }
    }

    /// Reads what the log holds past our version and publishes it; prunes the log now and then.
    func poll() async {
        do {
            while true {
                let changes = try await store.locationChanges(after: version, limit: 500)
                if changes.contains(where: { $0.version > version }) { beforePublishing() }
                publish(changes)
                if changes.count < 500 { break }
            }
            let (current, prunedAt) = state.withLock { ($0.version, $0.prunedAt) }
            if current - prunedAt >= Int64(settings.keptChanges / 10) {
                state.withLock { $0.prunedAt = current }
                try await store.pruneLocationChanges(keeping: settings.keptChanges)
            }
        } catch {
            logger.warning("live map: cannot read the change log", metadata: ["error": "\(error)"])
        }
    }

    /// Polls on every poke until `finishAll`.
    func pollLoop() async {
        for await _ in wakes { await poll() }
    }

    private static func apply(_ change: LocationChange, to records: inout [String: StudentInformation]) {
        switch change.kind {
        case .created, .updated: records[change.objectId] = change.record
        case .deleted: records[change.objectId] = nil
        case .reset: records.removeAll()
        }
    }

    // MARK: Snapshot

    /// The snapshot at the newest version this server has, encoded at most once per version
    /// and layout.
    func snapshot(_ layout: SnapshotLayout = .records) async throws -> EncodedSnapshot {
        for _ in 0..<5 {
            enum Step { case ready(EncodedSnapshot), encode(Task<EncodedSnapshot, Never>), load(Task<Void, any Error>) }
            let step: Step = state.withLock { s in
                if let records = s.records {
                    if let encoded = s.encoded[layout], encoded.version == s.version { return .ready(encoded) }
                    if let encoding = s.encoding[layout], encoding.version == s.version { return .encode(encoding.task) }
                    let version = s.version
                    let task = Task { LiveMapJSON.snapshot(records, version: version, layout: layout) }
                    s.encoding[layout] = (version, task)
                    return .encode(task)
                }
                if let loading = s.loading { return .load(loading) }
                let task = Task { try await self.load() }
                s.loading = task
                return .load(task)
            }
            switch step {
            case .ready(let encoded):
                return encoded
            case .encode(let task):
                let encoded = await task.value
                state.withLock { s in
                    if (s.encoded[layout]?.version ?? -1) < encoded.version { s.encoded[layout] = encoded }
                    if s.encoding[layout]?.version == encoded.version { s.encoding[layout] = nil }
                }
                return encoded
            case .load(let task):
                try await task.value
            }
        }
        throw LiveMapUnavailable()
    }

    /// Reads every location a page at a time, then replays the changes published since the
    /// read began: each change carries the whole record, so replaying converges on the
    /// state at our version whichever moment each page saw.
    private func load() async throws {
        do {
            let start = version
            var records: [String: StudentInformation] = [:]
            var last = ""
            while true {
                let page = try await store.locationsByObjectId(after: last, limit: settings.snapshotPageSize)
                for record in page { records[record.objectId] = record }
                guard page.count == settings.snapshotPageSize, let next = page.last?.objectId else { break }
                last = next
            }
            state.withLock { s in
                s.loading = nil
                // Over a ring's worth of changes during the read: try again.
                guard s.floor <= start, !s.finished else { return }
                for entry in s.ring where entry.change.version > start { Self.apply(entry.change, to: &records) }
                s.records = records
            }
        } catch {
            state.withLock { $0.loading = nil }
            throw error
        }
    }

    // MARK: Frames

    static let heartbeatFrame = ServerSentEvents.keepAlive

    /// A change as an event (`id:` its version), or a reset as `reload` (no id: the client
    /// loads the snapshot again).
    static func frame(for change: LocationChange) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: 320)
        if change.kind == .reset {
            ServerSentEvents.write("reload", id: nil, into: &buffer) { $0.writeString("{\"version\":\(change.version)}") }
            return buffer
        }
        ServerSentEvents.write(change.kind.rawValue, id: String(change.version), into: &buffer) { buffer in
            if let record = change.record {
                LiveMapJSON.write(record, into: &buffer)
            } else {
                buffer.writeStaticString(#"{"objectId":"#)
                StudentLocationJSON.writeString(change.objectId, into: &buffer)
                buffer.writeStaticString("}")
            }
        }
        return buffer
    }
}

/// The snapshot could not be built (the log moved too fast, or the server is stopping).
struct LiveMapUnavailable: Error {}
