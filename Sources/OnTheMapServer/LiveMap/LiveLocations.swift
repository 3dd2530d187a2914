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
    /// The class whose viewers get it; nil for every viewer (heartbeats, resets).
    var classId: String? = nil
}

/// How a snapshot lays out its locations.
enum SnapshotLayout: Sendable, Hashable {
    /// `locations`: one object per location (the API's LiveLocation).
    case records
    /// `columns`: one array per field the web map draws, no `updatedAt`; about half the bytes
    /// and a third of the browser's parsing at 100,000 locations.
    case mapColumns
    /// The same columns as typed arrays (`MapColumnsBinary`): what the web map reads, viewed
    /// in place instead of parsed.
    case mapBinary

    /// Marks its posts' teachers.
    var marksTeachers: Bool { self != .records }
}

/// The snapshot body at one version, built once per version asked for and kept gzipped (a
/// million locations: about 35 MB, against 150 to 260 MB plain). The plain body is kept as
/// well when it is small; a large one is made on the first request that cannot take gzip,
/// and kept from then on.
struct EncodedSnapshot: Sendable {
    let version: Int64
    let count: Int
    let gzipped: ByteBuffer?
    private let plainBody: PlainBody

    /// Plain bodies up to this size are kept next to the gzipped one from the start.
    static let keptPlainBytes = 1 << 20

    init(version: Int64, count: Int, body: ByteBuffer) {
        self.version = version
        self.count = count
        let gzipped = Gzip.compress(body)
        self.gzipped = gzipped
        self.plainBody = PlainBody(gzipped == nil || body.readableBytes <= Self.keptPlainBytes ? body : nil)
    }

    var plain: ByteBuffer { plainBody.get(from: gzipped) }

    private final class PlainBody: Sendable {
        private let kept: Mutex<ByteBuffer?>
        init(_ body: ByteBuffer?) { kept = Mutex(body) }

        func get(from gzipped: ByteBuffer?) -> ByteBuffer {
            kept.withLock { kept in
                if let kept { return kept }
                let body = gzipped.flatMap(Gzip.decompress) ?? ByteBuffer()
                kept = body
                return body
            }
        }
    }
}

/// The live maps of one server, one per class: the change log's newest entries in memory
/// (so a viewer resumes from its last event id without a query), every viewer's stream
/// (each hears its own class only), and the snapshots of the classes being read, kept
/// current by applying each change. Changes come only from the database's log
/// (`LiveLocationsService` polls it when poked), so every server publishes the same
/// versions in the same order, whoever wrote. Versions are the log's, shared by every
/// class: a class's viewer sees gaps where other classes changed.
///
/// What it replays is never older than what the store holds: the log keeps only each
/// record's newest change (migration 18), and the ring here drops a record's earlier entry
/// when a newer one arrives, so a hidden, deleted or coarsened post cannot come back from
/// memory. And it never outlives its reader's access: the log's `ended` entries (a
/// membership, a session, an account or a class's visibility ending, on any server) close
/// the matching streams, and each stream lasts minutes at most before its reader reconnects
/// through the full check.
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
        /// Classes whose snapshot is kept in memory; the least recently read goes first.
        var keptClassMaps = 64
        /// And locations in all those snapshots together (about 200 bytes each in memory, see
        /// `CompactLocations`, and a tenth of that for the gzipped snapshot): a few big
        /// classes cannot hold the memory 64 small ones would.
        var keptLocations = 500_000
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
        let classId: String
        /// The signed-in reader's account and its session token's digest; nil for an
        /// anonymous reader of a public class.
        let reader: Reader?
        /// When the stream ends on its own (`endExpired`); nil: never.
        let endsAt: ContinuousClock.Instant?
    }

    /// Who reads a stream, for closing it when their access ends.
    struct Reader: Sendable {
        let accountKey: String
        let sessionDigest: String

        func matches(_ ended: String) -> Bool { ended == accountKey || ended == sessionDigest }
    }

    /// One class's map, once a snapshot of it was asked for.
    private struct ClassMap {
        /// Every visible location of the class.
        var records: CompactLocations
        var encoded: [SnapshotLayout: EncodedSnapshot] = [:]
        var encoding: [SnapshotLayout: (version: Int64, task: Task<EncodedSnapshot, Never>)] = [:]
        /// When it was last read (a counter), for keeping the most recently read.
        var lastRead: UInt64
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
        var maps: [String: ClassMap] = [:]
        var loading: [String: Task<Void, any Error>] = [:]
        var reads: UInt64 = 0
        /// The newest version that changed each class ("" for resets), for every change above
        /// `knownFrom`: a viewer whose class has not changed since its version resumes even
        /// when the ring has moved past it.
        var lastChange: [String: Int64] = [:]
        var knownFrom: Int64 = 0
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
    /// It gets the ids of the classes that changed ("" when every class did).
    private let beforePublishing: @Sendable (Set<String>) -> Void
    /// Told of every `ended` entry read from the log (its subject, an account key or a
    /// session digest, and its class; either empty for all): the signed-in callers this server
    /// keeps for a moment (`CallerCache`) forget what ended, whichever server ended it.
    private let accessEnded: @Sendable (_ subject: String, _ classId: String) -> Void
    /// The account keys of a class's teachers, asked each time its map layout is encoded (at
    /// most once per change of the class): the map marks their pins.
    private let teachersOf: @Sendable (_ classId: String) async -> Set<String>
    /// The time zone of a point, found once for each location as it comes in (the map
    /// layout's `timeZone` column).
    private let timeZone: @Sendable (_ latitude: Double, _ longitude: Double) -> String?

    init(
        store: any LocationChangeRepository, settings: Settings = Settings(), logger: Logger,
        beforePublishing: @escaping @Sendable (Set<String>) -> Void = { _ in },
        accessEnded: @escaping @Sendable (_ subject: String, _ classId: String) -> Void = { _, _ in },
        teachersOf: @escaping @Sendable (_ classId: String) async -> Set<String> = { _ in [] },
        timeZone: @escaping @Sendable (_ latitude: Double, _ longitude: Double) -> String? = LiveMapJSON.bundledTimeZone
    ) {
        self.timeZone = timeZone
        self.store = store
        self.settings = settings
        self.logger = logger
        self.beforePublishing = beforePublishing
        self.accessEnded = accessEnded
        self.teachersOf = teachersOf
        (wakes, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Fills the ring with the newest logged changes, so viewers can resume across a restart.
    func start() async throws {
        let recent = try await store.latestLocationChanges(limit: settings.ringCapacity)
        let latest = try await store.latestLocationVersion()
        let perClass = try await store.latestLocationVersionsByClass()
        let horizon = try await store.locationLogHorizon()
        let oldestKept = perClass.values.min() ?? latest
        let frames = recent.map { ($0, Self.frame(for: $0, timeZone: zone(of: $0))) }
        state.withLock { s in
            s.lastChange = perClass
            // The log keeps every class's changes above the oldest one it still holds.
            s.knownFrom = max(0, oldestKept - 1)
            s.version = max(recent.last?.version ?? latest, latest)
            // A pruned log: what is not kept cannot be replayed. (Gaps above the horizon are
            // records' earlier changes, replaced by their newest, which the ring holds.)
            s.floor = max(horizon, recent.count == settings.ringCapacity ? (recent.first?.version ?? latest) : 0)
            s.ring = frames
        }
    }

    var version: Int64 { state.withLock { $0.version } }
    var viewerCount: Int { state.withLock { $0.viewers.count } }

    /// Something may have been written: poll the log soon.
    func poke() { wake.yield() }

    // MARK: Viewers

    /// `lifetime`: the stream ends after it (within a second: `endExpired`), nil for never.
    func subscribe(since: Int64, classId: String, reader: Reader?, lifetime: Duration? = nil) -> Subscription {
        open(skipThrough: since, classId: classId, reader: reader, lifetime: lifetime) { s, continuation in
            if since > s.version { return .ahead }
            if since < s.floor {
                // Past the ring: fine if nothing of this class (and no reset) came since.
                let unchanged = since >= s.knownFrom && (s.lastChange[classId] ?? 0) <= since && (s.lastChange[""] ?? 0) <= since
                return unchanged ? nil : .reload(version: Self.classVersion(classId, in: s))
            }
            let backlog = s.ring.filter { $0.change.version > since && ($0.change.classId == classId || $0.change.kind == .reset) }
            if backlog.contains(where: { $0.change.kind == .reset }) { return .reload(version: Self.classVersion(classId, in: s)) }
            for entry in backlog { continuation.yield(LiveFrame(version: entry.change.version, bytes: entry.frame, ends: false)) }
            return nil
        }
    }

    /// For a viewer whose last id is newer than what this server has published but that
    /// the database has logged: it hears nothing until this server catches up past it.
    func subscribeAhead(skipThrough: Int64, classId: String, reader: Reader?, lifetime: Duration? = nil) -> Subscription {
        open(skipThrough: skipThrough, classId: classId, reader: reader, lifetime: lifetime) { _, _ in nil }
    }

    /// The version a class's readers are told to start from: its own last change (or a reset
    /// of every class), never lower than what this server can prove nothing of the class
    /// changed since. Not the server's newest version, which counts writes in other classes.
    func classVersion(_ classId: String) -> Int64 {
        state.withLock { Self.classVersion(classId, in: $0) }
    }

    private static func classVersion(_ classId: String, in s: State) -> Int64 {
        max(s.lastChange[classId] ?? 0, s.lastChange[""] ?? 0, s.knownFrom)
    }

    /// A viewer's stream, registered under the lock unless `check` answers otherwise.
    private func open(
        skipThrough: Int64, classId: String, reader: Reader?, lifetime: Duration?,
        _ check: (State, AsyncStream<LiveFrame>.Continuation) -> Subscription?
    ) -> Subscription {
        let endsAt = lifetime.map { ContinuousClock.now.advanced(by: $0) }
        // Room for a whole backlog plus some live frames: a viewer that cannot keep up
        // fills it and is dropped, so a stalled client holds a bounded amount of memory.
        let (stream, continuation) = AsyncStream<LiveFrame>.makeStream(
            bufferingPolicy: .bufferingOldest(settings.ringCapacity + settings.viewerBuffer))
        let (outcome, id): (Subscription?, UInt64) = state.withLock { s in
            if s.finished { return (.reload(version: Self.classVersion(classId, in: s)), 0) }
            if let answer = check(s, continuation) { return (answer, 0) }
            let id = s.nextViewer
            s.nextViewer += 1
            s.viewers[id] = Viewer(continuation: continuation, skipThrough: skipThrough, classId: classId, reader: reader, endsAt: endsAt)
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

    /// Ends the streams whose lifetime is over (called every second: one sweep for every
    /// viewer instead of a sleeping task and a timer each).
    func endExpired(now: ContinuousClock.Instant = .now) {
        let expired: [AsyncStream<LiveFrame>.Continuation] = state.withLock { s in
            var expired: [AsyncStream<LiveFrame>.Continuation] = []
            for (id, viewer) in s.viewers {
                guard let endsAt = viewer.endsAt, endsAt <= now else { continue }
                s.viewers[id] = nil
                expired.append(viewer.continuation)
            }
            return expired
        }
        for continuation in expired { continuation.finish() }
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
                if let classId = frame.classId, classId != viewer.classId { continue }
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
            if change.kind == .ended {
                accessEnded(change.objectId, change.classId)
                endStreams(change)
                continue
            }
            let zone = zone(of: change)
            deliver { s in
                guard change.version > s.version else { return nil }
                let frame = Self.frame(for: change, timeZone: zone)
                // Only a record's newest change is kept: replay gives its current state.
                if change.kind != .reset {
                    s.ring.removeAll { $0.change.objectId == change.objectId && $0.change.kind != .reset }
                }
                s.ring.append((change, frame))
                if s.ring.count > settings.ringCapacity { s.floor = s.ring.removeFirst().change.version }
                s.version = change.version
                s.lastChange[change.classId] = change.version
                if change.kind == .reset {
                    s.maps.removeAll()
                } else if s.maps[change.classId] != nil {
                    apply(change, zone: zone, to: &s.maps[change.classId]!.records)
                }
                return LiveFrame(
                    version: change.version, bytes: frame, ends: change.kind == .reset,
                    classId: change.kind == .reset ? nil : change.classId)
            }
        }
    }

    /// An `ended` entry: the streams of that account or session (everyone's when empty) in
    /// that class (every class when empty) close; their readers reconnect through the full check.
    private func endStreams(_ change: LocationChange) {
        let ended: [AsyncStream<LiveFrame>.Continuation] = state.withLock { s in
            guard change.version > s.version else { return [] }
            s.version = change.version
            var ended: [AsyncStream<LiveFrame>.Continuation] = []
            for (id, viewer) in s.viewers
            where (change.classId.isEmpty || viewer.classId == change.classId)
                && (change.objectId.isEmpty || viewer.reader?.matches(change.objectId) == true)
            {
                s.viewers[id] = nil
                ended.append(viewer.continuation)
            }
            return ended
        }
        if !ended.isEmpty { logger.info("live map: streams closed as access ended", metadata: ["count": "\(ended.count)"]) }
        for continuation in ended { continuation.finish() }
    }

    /// Reads what the log holds past our version and publishes it; prunes the log now and then.
    func poll() async {
        do {
            while true {
                let changes = try await store.locationChanges(after: version, limit: 500)
                let current = version
                let changed = Set(changes.filter { $0.version > current && $0.kind != .ended }.map(\.classId))
                if !changed.isEmpty { beforePublishing(changed) }
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

    /// The time zone of a change's record (nil for none, or no record).
    private func zone(of change: LocationChange) -> String? {
        change.record.flatMap { timeZone($0.latitude, $0.longitude) }
    }

    /// `zone`: the record's (`zone(of:)`), found once for the frame and the map.
    private func apply(_ change: LocationChange, zone: String?, to records: inout CompactLocations) {
        switch change.kind {
        case .created, .updated:
            if let record = change.record {
                records.upsert(record, zone: zone)
            } else {
                records.remove(change.objectId)
            }
        case .deleted: records.remove(change.objectId)
        case .reset: records.removeAll()
        case .ended: break
        }
    }

    // MARK: Snapshot

    /// A class's snapshot at the newest version this server has, encoded at most once per
    /// change of the class and layout: while the class does not change, the encoded answer
    /// (and its version) stays, whatever other classes do.
    func snapshot(_ layout: SnapshotLayout = .records, classId: String) async throws -> EncodedSnapshot {
        for _ in 0..<5 {
            enum Step {
                case ready(EncodedSnapshot)
                case encode(Task<EncodedSnapshot, Never>)
                case load(Task<Void, any Error>)
            }
            let step: Step = state.withLock { s in
                if var map = s.maps[classId] {
                    s.reads += 1
                    map.lastRead = s.reads
                    defer { s.maps[classId] = map }
                    let changedAt = max(s.lastChange[classId] ?? 0, s.lastChange[""] ?? 0)
                    if let encoded = map.encoded[layout], encoded.version >= changedAt { return .ready(encoded) }
                    if let encoding = map.encoding[layout], encoding.version >= changedAt { return .encode(encoding.task) }
                    let version = Self.classVersion(classId, in: s)
                    let records = map.records
                    let teachersOf = self.teachersOf
                    let task = Task {
                        let teachers = layout.marksTeachers ? await teachersOf(classId) : []
                        let encoded = LiveMapJSON.snapshot(records, version: version, layout: layout, teachers: teachers)
                        // The plain body it was compressed from is freed by now; once per encoding,
                        // however many readers wait for it.
                        if encoded.count >= FreedMemory.worthFrom { FreedMemory.giveBack() }
                        return encoded
                    }
                    map.encoding[layout] = (version, task)
                    return .encode(task)
                }
                if let loading = s.loading[classId] { return .load(loading) }
                let task = Task { try await self.load(classId) }
                s.loading[classId] = task
                return .load(task)
            }
            switch step {
            case .ready(let encoded):
                return encoded
            case .encode(let task):
                let encoded = await task.value
                state.withLock { s in
                    guard s.maps[classId] != nil else { return }
                    if (s.maps[classId]!.encoded[layout]?.version ?? -1) < encoded.version { s.maps[classId]!.encoded[layout] = encoded }
                    if s.maps[classId]!.encoding[layout]?.version == encoded.version { s.maps[classId]!.encoding[layout] = nil }
                }
                return encoded
            case .load(let task):
                try await task.value
            }
        }
        throw LiveMapUnavailable()
    }

    /// How many classes' snapshots are in memory.
    var keptClassMapCount: Int { state.withLock { $0.maps.count } }

    /// The page of the class's locations after `objectId`; nil for no objectId (no more pages).
    private func readPage(of classId: String, after objectId: String?) async throws -> [StudentInformation]? {
        guard let objectId else { return nil }
        return try await store.locationsByObjectId(after: objectId, in: classId, limit: settings.snapshotPageSize)
    }

    /// Where a class's read is split in two, read at once, when the store orders objectIds by
    /// their bytes (SQLite, and PostgreSQL's "C" collation; in another, one read):
    /// objectIds below "V" and from "V" on, halves of the server's own `[0-9A-Za-z]` ids. Ids
    /// made elsewhere only make the halves uneven. The second half's read starts after "U"
    /// followed by the byte above every letter and digit, and keeps what is from "V" on.
    static let readSplit = (below: "V", after: "U\u{7F}")

    /// The class's locations whose objectIds are above `first`, from `start` on and below
    /// `end` (bytewise), a page at a time, each page's time zones found while the next page is
    /// read.
    private func readRange(
        of classId: String, after first: String, from start: String? = nil, below end: String? = nil
    ) async throws -> CompactLocations {
        var records = CompactLocations()
        let pageSize = settings.snapshotPageSize
        var page = try await readPage(of: classId, after: first) ?? []
        while true {
            var more = page.count == pageSize
            if let end, let cut = page.firstIndex(where: { !$0.objectId.utf8.lexicographicallyPrecedes(end.utf8) }) {
                page.removeSubrange(cut...)
                more = false
            }
            let after = more ? page.last?.objectId : nil
            async let next = readPage(of: classId, after: after)
            let timeZone = timeZone
            for record in page where start.map({ !record.objectId.utf8.lexicographicallyPrecedes($0.utf8) }) ?? true {
                records.appendAscending(record, zone: timeZone(record.latitude, record.longitude))
            }
            guard let following = try await next else { break }
            page = following
        }
        return records
    }

    /// Reads the class's locations, its two halves at once, then replays the changes
    /// published since the read began: each change carries the whole record, so replaying
    /// converges on the state at our version whichever moment each page saw.
    private func load(_ classId: String) async throws {
        do {
            let start = version
            var records: CompactLocations
            if store.ordersObjectIdsByBytes {
                async let upperHalf = readRange(of: classId, after: Self.readSplit.after, from: Self.readSplit.below)
                records = try await readRange(of: classId, after: "", below: Self.readSplit.below)
                records.appendAscending(contentsOf: try await upperHalf)
            } else {
                records = try await readRange(of: classId, after: "")
            }
            state.withLock { s in
                s.loading[classId] = nil
                // Over a ring's worth of changes during the read: try again.
                guard s.floor <= start, !s.finished,
                    !s.ring.contains(where: { $0.change.version > start && $0.change.kind == .reset })
                else { return }
                for entry in s.ring where entry.change.version > start && entry.change.classId == classId {
                    apply(entry.change, zone: zone(of: entry.change), to: &records)
                }
                s.reads += 1
                s.maps[classId] = ClassMap(records: records, lastRead: s.reads)
                // Memory holds the classes being read, not every class of the server.
                func tooMuch() -> Bool {
                    s.maps.count > max(1, settings.keptClassMaps)
                        || s.maps.values.reduce(0) { $0 + $1.records.count } > settings.keptLocations
                }
                while tooMuch(), let oldest = s.maps.filter({ $0.key != classId }).min(by: { $0.value.lastRead < $1.value.lastRead })?.key {
                    s.maps[oldest] = nil
                }
            }
            if records.count >= FreedMemory.worthFrom { FreedMemory.giveBack() }
        } catch {
            state.withLock { $0.loading[classId] = nil }
            throw error
        }
    }

    // MARK: Frames

    static let heartbeatFrame = ServerSentEvents.keepAlive

    /// A change as an event (`id:` its version), its record with its `timeZone` when it has
    /// one (as the map layout gives every location's), or a reset as `reload` (no id: the
    /// client loads the snapshot again).
    static func frame(for change: LocationChange, timeZone: String? = nil) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: 320)
        if change.kind == .reset {
            ServerSentEvents.write("reload", id: nil, into: &buffer) { $0.writeString("{\"version\":\(change.version)}") }
            return buffer
        }
        ServerSentEvents.write(change.kind.rawValue, id: String(change.version), into: &buffer) { buffer in
            if let record = change.record {
                LiveMapJSON.write(record, timeZone: timeZone, into: &buffer)
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
