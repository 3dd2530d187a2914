import Foundation
import OnTheMapKit
import Testing

/// A page source over an in-memory list, recording the requests it serves.
actor FakeSource: StudentPageSource {
    var all: [StudentInformation]
    var requests: [(limit: Int, skip: Int)] = []
    var failNext: OnTheMapError?
    var delay: Duration = .zero

    init(_ all: [StudentInformation]) { self.all = all }

    func set(all: [StudentInformation]) { self.all = all }
    func fail(with error: OnTheMapError) { failNext = error }
    func set(delay: Duration) { self.delay = delay }

    func studentPage(limit: Int, skip: Int) async throws(OnTheMapError) -> StudentPage {
        requests.append((limit, skip))
        if delay > .zero { try? await Task.sleep(for: delay) }
        if let error = failNext {
            failNext = nil
            throw error
        }
        let slice = Array(all.dropFirst(skip).prefix(limit))
        return StudentPage(students: slice, totalCount: skip == 0 ? all.count : nil, skip: skip, limit: limit)
    }
}

/// Dates one minute apart, newest first for index 0.
func timestamp(_ minutesAgo: Int) -> String {
    ParseDate.string(from: Date(timeIntervalSince1970: 1_700_000_000 - Double(minutesAgo) * 60))
}

@MainActor
@Suite("StudentStore")
struct StudentStoreTests {
    let records = (0..<25).map { student("id\($0)", updatedAt: timestamp($0)) }

    @Test func pagesWithoutRefetching() async throws {
        let source = FakeSource(records)
        let store = StudentStore(source: source, pageSize: 10)
        try await store.loadFirstPage()
        try await store.loadFirstPage()  // already loaded: no request
        #expect(store.students.count == 10)
        #expect(store.totalCount == 25)
        try await store.loadNextPage()
        try await store.loadNextPage()
        #expect(store.students.count == 25)
        #expect(store.hasMore == false)
        try await store.loadNextPage()  // nothing more: no request
        let requests = await source.requests
        #expect(requests.map(\.skip) == [0, 10, 20])
        #expect(store.students.map(\.objectId) == records.map(\.objectId))
    }

    @Test func sortsNewestFirstAndDeduplicates() async throws {
        // The server's order is wrong and a record shifted onto the next page.
        let shuffled = [records[3], records[0], records[1], records[2], records[1]]
        let source = FakeSource(shuffled)
        let store = StudentStore(source: source, pageSize: 3)
        try await store.loadAll()
        #expect(store.students.map(\.objectId) == ["id0", "id1", "id2", "id3"])

        // A newer version of a record replaces the older one.
        var newer = records[3]
        newer.updatedAt = timestamp(-5)
        newer.mapString = "Moved"
        store.upsert(newer)
        #expect(store.students.first?.mapString == "Moved")
        #expect(store.students.count == 4)
        store.remove(objectId: "id3")
        #expect(store.student(objectId: "id3") == nil)
    }

    @Test func concurrentLoadsShareOneRequest() async throws {
        let source = FakeSource(records)
        await source.set(delay: .milliseconds(100))
        let store = StudentStore(source: source, pageSize: 10)
        async let first: Void = store.loadNextPage()
        async let second: Void = store.loadNextPage()
        _ = try await (first, second)
        #expect(await source.requests.count == 1)
        #expect(store.students.count == 10)
    }

    @Test func refreshReplacesWithTheFirstPage() async throws {
        let source = FakeSource(records)
        let store = StudentStore(source: source, pageSize: 10)
        try await store.loadAll()
        #expect(store.students.count == 25)
        let fresh = student("new", updatedAt: timestamp(-1))
        await source.set(all: [fresh] + records)
        try await store.refresh()
        #expect(store.students.count == 10)
        #expect(store.students.first?.objectId == "new")
        #expect(store.hasMore)
        try await store.loadNextPage()
        #expect(await source.requests.last?.skip == 10)
    }

    @Test func errorsAreKeptAndThrown() async throws {
        let source = FakeSource(records)
        await source.fail(with: .timedOut)
        let store = StudentStore(source: source, pageSize: 10)
        await #expect(throws: OnTheMapError.timedOut) { try await store.loadFirstPage() }
        #expect(store.lastError == .timedOut)
        #expect(store.isLoading == false)
        try await store.loadFirstPage()  // a failed load did not count as loaded
        #expect(store.lastError == nil)
        #expect(store.students.count == 10)
    }

    @Test func notifiesThroughClosureAndStream() async throws {
        let source = FakeSource(Array(records.prefix(5)))
        let store = StudentStore(source: source, pageSize: 10)
        var closureCalls = 0
        store.onChange = { _ in closureCalls += 1 }
        let stream = store.updates()
        try await store.loadFirstPage()
        var snapshots: [StudentStore.Snapshot] = []
        for await snapshot in stream {
            snapshots.append(snapshot)
            if snapshots.count == 3 { break }
        }
        // initial state, loading, loaded
        #expect(snapshots.map(\.isLoading) == [false, true, false])
        #expect(snapshots.last?.students.count == 5)
        #expect(snapshots.last?.hasMore == false)
        #expect(closureCalls == 2)
        store.reset()
        #expect(store.students.isEmpty)
        #expect(closureCalls == 3)
    }
}

@Suite("Decoding")
struct DecodingTests {
    @Test func studentInformationFromDictionary() {
        let ok = StudentInformation(dictionary: [
            "objectId": "a", "latitude": 10, "longitude": -20.5,
            "firstName": "Ada",
        ])
        #expect(ok?.latitude == 10)
        #expect(ok?.lastName == "")
        #expect(StudentInformation(dictionary: ["objectId": "a", "latitude": 10]) == nil)
        #expect(StudentInformation(dictionary: ["latitude": 1, "longitude": 2]) == nil)
        #expect(StudentInformation(dictionary: ["objectId": "a", "latitude": 91, "longitude": 2]) == nil)
    }

    @Test func studentInformationCodableRoundTrip() throws {
        let original = student("rt", updatedAt: timestamp(0))
        let data = try JSONEncoder().encode(original)
        #expect(try JSONDecoder().decode(StudentInformation.self, from: data) == original)
    }

    @Test func expirationFormats() {
        let three = UdacitySession(
            accountKey: "k", sessionID: "s",
            expiration: ParseDate.date(from: "2030-01-01T00:00:00.000Z"))
        #expect(three.isExpired(at: Date(timeIntervalSince1970: 0)) == false)
        #expect(three.isExpired(at: Date(timeIntervalSince1970: 2_000_000_000)))
    }

    @Test func pageDecodingEdgeCases() {
        #expect(StudentPage.decode(Data(), limit: 10) == .failure(.unreadableResponse(detail: "empty student list")))
        #expect(
            StudentPage.decode(Data("[1]".utf8), limit: 10)
                == .failure(.unreadableResponse(detail: "student list is not a JSON object")))
        let empty = try? StudentPage.decode(Data(#"{"results":[],"count":0}"#.utf8), limit: 10).get()
        #expect(empty?.isLastPage == true)
        #expect(empty?.totalCount == 0)
    }

    @Test func configurationPresets() {
        let local = OnTheMapConfiguration.local
        #expect(local.sessionBaseURL.absoluteString == "http://127.0.0.1:8080/api")
        #expect(local.studentLocationURL.absoluteString == "http://127.0.0.1:8080/parse/classes/StudentLocation")
        #expect(
            OnTheMapConfiguration.udacityV1.studentLocationURL.absoluteString
                == "https://onthemap-api.udacity.com/v1/StudentLocation")
        #expect(OnTheMapConfiguration.udacityV1.serviceBaseURL == nil)
    }
}
