import Foundation

/// The single place that holds the downloaded students, for every screen of an app (map,
/// list) to read: most recently updated first, one entry per objectId.
///
/// Loading is network-conscious: `loadNextPage()` asks only for records after the ones it
/// has, concurrent calls share one request, and nothing is fetched again unless `refresh()`
/// is called. Observe it with `onChange` (a closure) or `updates()` (an `AsyncStream`).
/// `follow(_:)` (async) or `startFollowing(_:)` (a handle) keep it current from the server's
/// live map instead: every location at once, then each change as it happens.
@MainActor
public final class StudentStore {
    /// What observers receive: a value copy of the store's state.
    public struct Snapshot: Sendable, Hashable {
        public var students: [StudentInformation]
        public var isLoading: Bool
        public var hasMore: Bool
        public var skippedCount: Int
        public var totalCount: Int?
        public var lastError: OnTheMapError?
        public var liveState: LiveState
    }

    /// Whether the store follows the live map, and how that goes.
    public enum LiveState: Sendable, Hashable {
        case off
        case connecting
        case live
        case reconnecting(OnTheMapError)
    }

    public private(set) var students: [StudentInformation] = []
    public private(set) var isLoading = false
    /// False once the server sent its last page.
    public private(set) var hasMore = true
    /// Records the server sent that could not be used (no coordinates, …), so far.
    public private(set) var skippedCount = 0
    /// The server's total, when it reported one.
    public private(set) var totalCount: Int?
    /// The error of the last load, cleared by the next successful one.
    public private(set) var lastError: OnTheMapError?
    public private(set) var liveState: LiveState = .off
    public let pageSize: Int

    /// Called on the main actor after every change.
    public var onChange: (@MainActor (StudentStore) -> Void)?

    private let source: any StudentPageSource
    private var nextSkip = 0
    private var loaded = false
    private var inFlight: Task<Result<StudentPage, OnTheMapError>, Never>?
    private var generation = 0
    private var continuations: [UUID: AsyncStream<Snapshot>.Continuation] = [:]

    public init(source: any StudentPageSource, pageSize: Int = 100) {
        self.source = source
        self.pageSize = max(1, pageSize)
    }

    public var snapshot: Snapshot {
        Snapshot(
            students: students, isLoading: isLoading, hasMore: hasMore, skippedCount: skippedCount,
            totalCount: totalCount, lastError: lastError, liveState: liveState)
    }

    /// A stream of snapshots: the current one first, then one per change. It ends when the
    /// consuming task stops iterating.
    public func updates() -> AsyncStream<Snapshot> {
        let (stream, continuation) = AsyncStream<Snapshot>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let id = UUID()
        continuations[id] = continuation
        continuation.yield(snapshot)
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.continuations[id] = nil }
        }
        return stream
    }

    // MARK: Loading

    /// Loads the first page unless the store already has data (use `refresh()` to reload).
    public func loadFirstPage() async throws(OnTheMapError) {
        if loaded { return }
        try await loadNextPage()
    }

    /// Loads the page after the records already held; does nothing when the server has no
    /// more. A call while a load is running waits for that load instead of sending another.
    public func loadNextPage() async throws(OnTheMapError) {
        if let inFlight {
            try await inFlight.value.map { _ in () }.get()
            return
        }
        guard hasMore else { return }
        try await load(skip: nextSkip, replacing: false)
    }

    /// Loads every remaining page; `progress` is called after each one.
    public func loadAll(progress: (@MainActor (PagingProgress) -> Void)? = nil) async throws(OnTheMapError) {
        try await loadFirstPage()
        progress?(PagingProgress(loaded: nextSkip, total: totalCount.map { max($0, nextSkip) }))
        while hasMore {
            try Task.checkCancellation(or: .cancelled)
            let before = nextSkip
            try await loadNextPage()
            progress?(PagingProgress(loaded: nextSkip, total: totalCount.map { max($0, nextSkip) }))
            if nextSkip == before { break }
        }
    }

    /// Fetches the first page again and replaces the content with it (the old list stays
    /// visible until the answer arrives); paging then starts over from there.
    public func refresh() async throws(OnTheMapError) {
        if let inFlight { _ = await inFlight.value }
        try await load(skip: 0, replacing: true)
    }

    private func load(skip: Int, replacing: Bool) async throws(OnTheMapError) {
        let source = self.source
        let limit = pageSize
        let task = Task { () -> Result<StudentPage, OnTheMapError> in
            do throws(OnTheMapError) { return .success(try await source.studentPage(limit: limit, skip: skip)) } catch {
                return .failure(error)
            }
        }
        inFlight = task
        generation += 1
        let myGeneration = generation
        isLoading = true
        notify()
        let result = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        guard myGeneration == generation else { return try result.map { _ in () }.get() }
        inFlight = nil
        isLoading = false
        switch result {
        case .success(let page):
            lastError = nil
            loaded = true
            if replacing {
                students = []
                skippedCount = 0
            }
            if let total = page.totalCount { totalCount = total }
            skippedCount += page.skippedCount
            nextSkip = page.nextSkip
            hasMore = !page.isLastPage && page.recordCount > 0
            merge(page.students)
            notify()
        case .failure(let error):
            lastError = error
            notify()
            throw error
        }
    }

    // MARK: Following the live map

    /// Replaces the content with the live map's snapshot, then applies every change until
    /// the calling task is cancelled (it then returns). `onUpdate` sees each update after it
    /// was applied. Network trouble only pauses following (`liveState` says so); it throws
    /// when the server has no live map or refuses the request.
    public func follow(
        _ live: LiveLocationClient,
        onUpdate: (@MainActor (LiveLocationUpdate) -> Void)? = nil
    ) async throws(OnTheMapError) {
        inFlight?.cancel()
        inFlight = nil
        generation += 1
        defer {
            liveState = .off
            notify()
        }
        do {
            for try await update in live.follow() {
                apply(update)
                onUpdate?(update)
            }
        } catch let error as OnTheMapError {
            if error == .cancelled { return }
            lastError = error
            throw error
        } catch {
            return
        }
    }

    /// `follow(_:)` started from synchronous code; cancel the handle to stop.
    /// `completion` runs once following ends for good (not after a cancel).
    @discardableResult
    public func startFollowing(
        _ live: LiveLocationClient,
        onUpdate: (@MainActor (LiveLocationUpdate) -> Void)? = nil,
        completion: (@MainActor (OnTheMapError) -> Void)? = nil
    ) -> RequestHandle {
        let handle = RequestHandle()
        let task = Task { @MainActor in
            do throws(OnTheMapError) {
                try await self.follow(live, onUpdate: onUpdate)
            } catch {
                if !handle.cancelled { completion?(error) }
            }
        }
        handle.attach(onCancel: { task.cancel() })
        return handle
    }

    private func apply(_ update: LiveLocationUpdate) {
        switch update {
        case .snapshot(let all, _):
            students = []
            merge(all)
            loaded = true
            hasMore = false
            nextSkip = all.count
            totalCount = all.count
            skippedCount = 0
            isLoading = false
            lastError = nil
        case .created(let student, _), .updated(let student, _):
            let before = students.count
            place(student)
            if students.count > before, let total = totalCount { totalCount = total + 1 }
        case .deleted(let objectId, _):
            let before = students.count
            students.removeAll { $0.objectId == objectId }
            if students.count != before, let total = totalCount { totalCount = max(0, total - 1) }
        case .connection(let state):
            switch state {
            case .connecting: liveState = .connecting
            case .live: liveState = .live
            case .reconnecting(let error): liveState = .reconnecting(error)
            }
        }
        notify()
    }

    // MARK: Local edits

    /// Adds or replaces one record (e.g. after posting), keeping the order.
    public func upsert(_ student: StudentInformation) {
        merge([student])
        notify()
    }

    /// Removes a record (e.g. after deleting it).
    public func remove(objectId: String) {
        let before = students.count
        students.removeAll { $0.objectId == objectId }
        if students.count != before { notify() }
    }

    /// Forgets everything (e.g. at logout); the next `loadFirstPage()` fetches again.
    public func reset() {
        inFlight?.cancel()
        inFlight = nil
        generation += 1
        students = []
        nextSkip = 0
        loaded = false
        hasMore = true
        skippedCount = 0
        totalCount = nil
        lastError = nil
        isLoading = false
        notify()
    }

    public func student(objectId: String) -> StudentInformation? {
        students.first { $0.objectId == objectId }
    }

    /// Puts one changed record where the order says (usually the top) without re-sorting
    /// everything: a live change on a store of 100,000 costs one scan, not a sort.
    private func place(_ student: StudentInformation) {
        students.removeAll { $0.objectId == student.objectId }
        let key = Self.sortKey(student)
        var low = 0
        var high = students.count
        while low < high {
            let middle = (low + high) / 2
            let other = Self.sortKey(students[middle])
            let before = other != key ? other > key : students[middle].objectId < student.objectId
            if before { low = middle + 1 } else { high = middle }
        }
        students.insert(student, at: low)
    }

    /// Merges by objectId (the more recently updated version wins) and re-sorts.
    private func merge(_ incoming: [StudentInformation]) {
        var byID: [String: StudentInformation] = [:]
        byID.reserveCapacity(students.count + incoming.count)
        for student in students { byID[student.objectId] = student }
        for student in incoming {
            if let existing = byID[student.objectId],
                Self.sortKey(existing) > Self.sortKey(student)
            {
                continue
            }
            byID[student.objectId] = student
        }
        students = byID.values
            .map { (key: Self.sortKey($0), student: $0) }
            .sorted { $0.key != $1.key ? $0.key > $1.key : $0.student.objectId < $1.student.objectId }
            .map(\.student)
    }

    /// Seconds since 1970 of `updatedAt` (falling back to `createdAt`); unparsable dates sort last.
    static func sortKey(_ student: StudentInformation) -> Double {
        if let date = ParseDate.date(from: student.updatedAt) { return date.timeIntervalSince1970 }
        if let date = ParseDate.date(from: student.createdAt) { return date.timeIntervalSince1970 }
        return -.greatestFiniteMagnitude
    }

    private func notify() {
        let snapshot = self.snapshot
        for continuation in continuations.values { continuation.yield(snapshot) }
        onChange?(self)
    }
}
