import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What following the live map delivers, in the server's order.
public enum LiveLocationUpdate: Sendable, Hashable {
    /// Every location at `version`, most recently updated first: the first update, and again
    /// whenever the server says the follower fell too far behind. Snapshot records carry no
    /// `createdAt` (it is empty).
    case snapshot([StudentInformation], version: Int64)
    case created(StudentInformation, version: Int64)
    case updated(StudentInformation, version: Int64)
    case deleted(objectId: String, version: Int64)
    /// The stream's state changed (nothing to apply).
    case connection(LiveConnectionState)
}

public enum LiveConnectionState: Sendable, Hashable {
    /// Opening the stream (the first time, or after a normal end).
    case connecting
    /// Changes arrive as they happen.
    case live
    /// The stream failed; it is opened again by itself after a pause, where it left off.
    case reconnecting(OnTheMapError)
}

/// The server's live map (`/api/locations/snapshot` and the Server-Sent Events stream
/// `/api/locations/changes`). `follow()` hides the protocol: a snapshot, then each change
/// once and in order, resuming with `Last-Event-ID` after a drop and reloading the snapshot
/// when the server says the gap is too large.
public final class LiveLocationClient: Sendable {
    public let configuration: OnTheMapConfiguration
    /// The session every request carries, when there is one (a members-only class's map is
    /// read by its members); share the one your `UdacityClient` logs in with.
    public let sessionStore: SessionStore
    let transport: HTTPTransport
    /// Pauses before reconnecting after a failure: doubles from `minimumRetry` up to `maximumRetry`.
    let minimumRetry: Duration
    let maximumRetry: Duration

    public init(
        configuration: OnTheMapConfiguration = .local, sessionStore: SessionStore = SessionStore(), urlSession: URLSession? = nil,
        minimumRetry: Duration = .seconds(1), maximumRetry: Duration = .seconds(30)
    ) {
        self.configuration = configuration
        self.sessionStore = sessionStore
        self.transport = HTTPTransport(configuration: configuration, urlSession: urlSession, callbackQueue: nil)
        self.minimumRetry = minimumRetry
        self.maximumRetry = max(minimumRetry, maximumRetry)
    }

    private func url(_ path: String) throws(OnTheMapError) -> URL {
        guard let base = configuration.serviceBaseURL else { throw .unavailable(feature: "live updates") }
        return base.appendingPathComponent("locations").appendingPathComponent(path)
    }

    // MARK: Snapshot

    /// Every location now, with the version to follow changes from.
    public func snapshot() async throws(OnTheMapError) -> (students: [StudentInformation], version: Int64) {
        var request = transport.request(try url("snapshot"))
        for (name, value) in sessionStore.authenticationHeaders { request.setValue(value, forHTTPHeaderField: name) }
        let answer: HTTPAnswer
        switch await transport.send(request, dialect: .service) {
        case .success(let value): answer = value
        case .failure(.rejected(status: 404, _, _)): throw .unavailable(feature: "live updates")
        case .failure(let error): throw error
        }
        let object = try JSONBody.object(from: answer.body, what: "snapshot").get()
        guard let version = (object["version"] as? NSNumber)?.int64Value,
            let rows = object["locations"] as? [[String: Any]]
        else { throw .unreadableResponse(detail: "snapshot without \"version\" or \"locations\"") }
        return (rows.compactMap(StudentInformation.init(dictionary:)), version)
    }

    // MARK: Following

    /// A snapshot (unless `since` names a version already held), then every change. Runs
    /// until the consuming task stops iterating or cancels; network failures only pause it
    /// (`.connection(.reconnecting)`); it throws only when following cannot work at all
    /// (no live map on this server, a request the server refuses).
    public func follow(since: Int64? = nil) -> AsyncThrowingStream<LiveLocationUpdate, any Error> {
        let (stream, continuation) = AsyncThrowingStream<LiveLocationUpdate, any Error>.makeStream()
        let task = Task { [self] in
            do throws(OnTheMapError) {
                try await run(since: since) { continuation.yield($0) }
                continuation.finish()
            } catch .cancelled {
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func run(since: Int64?, deliver: (LiveLocationUpdate) -> Void) async throws(OnTheMapError) {
        var version = since
        var pause = minimumRetry
        while !Task.isCancelled {
            do throws(OnTheMapError) {
                if version == nil {
                    deliver(.connection(.connecting))
                    let snapshot = try await self.snapshot()
                    version = snapshot.version
                    deliver(.snapshot(snapshot.students, version: snapshot.version))
                }
                guard let from = version else { continue }
                deliver(.connection(.connecting))
                let outcome = try await stream(from: from) { update in
                    if case .connection(.live) = update { pause = minimumRetry }
                    deliver(update)
                }
                switch outcome {
                case .ended(let last): version = last
                case .reload: version = nil
                }
            } catch .cancelled {
                return
            } catch {
                // A refusal that waiting cannot fix ends following; the rest is retried.
                switch error {
                case .unavailable, .invalidInput, .unauthorized: throw error
                case .rejected(let status, _, _) where status != 429: throw error
                default: break
                }
                deliver(.connection(.reconnecting(error)))
                do { try await Task.sleep(for: pause) } catch { return }
                pause = min(pause * 2, maximumRetry)
            }
        }
    }

    private enum StreamOutcome {
        /// The server ended the stream (its lifetime); resume after this version.
        case ended(Int64)
        /// The server said to load the snapshot again.
        case reload
    }

    /// One connection of the event stream, from `version` on.
    private func stream(from version: Int64, deliver: (LiveLocationUpdate) -> Void) async throws(OnTheMapError) -> StreamOutcome {
        var request = transport.request(try url("changes"))
        for (name, value) in sessionStore.authenticationHeaders { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue(String(version), forHTTPHeaderField: "Last-Event-ID")
        // Heartbeats come every 15 s; three missed means the connection is gone.
        request.timeoutInterval = max(configuration.timeout, 45)
        var current = version
        let connection = EventStreamConnection(request: request)
        defer { connection.cancel() }
        do {
            for try await item in connection.items {
                switch item {
                case .opened: deliver(.connection(.live))
                case .event(let event):
                    if event.event == "reload" { return .reload }
                    guard let update = try Self.update(from: event) else { continue }
                    if let id = event.id.flatMap(Int64.init) {
                        // Never apply a change twice, whatever a proxy replays.
                        if id <= current { continue }
                        current = id
                    }
                    deliver(update)
                }
            }
        } catch let error as OnTheMapError {
            throw error
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .from(transport: error)
        }
        if Task.isCancelled { throw .cancelled }
        return .ended(current)
    }

    static func update(from event: ServerSentEvent) throws(OnTheMapError) -> LiveLocationUpdate? {
        guard ["created", "updated", "deleted"].contains(event.event) else { return nil }
        guard let version = event.id.flatMap(Int64.init) else {
            throw .unreadableResponse(detail: "a \(event.event) event without a version id")
        }
        let object = try JSONBody.object(from: Data(event.data.utf8), what: "\(event.event) event").get()
        if event.event == "deleted" {
            guard let objectId = object["objectId"] as? String else {
                throw .unreadableResponse(detail: "a deleted event without \"objectId\"")
            }
            return .deleted(objectId: objectId, version: version)
        }
        guard let student = StudentInformation(dictionary: object) else {
            throw .unreadableResponse(detail: "a \(event.event) event without a usable location")
        }
        return event.event == "created" ? .created(student, version: version) : .updated(student, version: version)
    }
}

/// One streaming request: URLSession's data delegate, since its completion-handler and
/// async forms only answer once the body is complete, which an event stream never is.
final class EventStreamConnection: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    enum Item: Sendable {
        /// The server answered 200 with an event stream.
        case opened
        case event(ServerSentEvent)
    }

    let items: AsyncThrowingStream<Item, any Error>
    private let continuation: AsyncThrowingStream<Item, any Error>.Continuation
    // Guarded by `lock`: URLSession calls the delegate on its own queue.
    private let lock = NSLock()
    private var parser = ServerSentEventParser()
    private var failure: (status: Int, body: Data)?
    private var session: URLSession?

    init(request: URLRequest) {
        (items, continuation) = AsyncThrowingStream<Item, any Error>.makeStream()
        super.init()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: queue)
        lock.withLock { self.session = session }
        session.dataTask(with: request).resume()
    }

    /// Stops the request and releases the session (which holds its delegate).
    func cancel() {
        let session = lock.withLock { () -> URLSession? in
            defer { self.session = nil }
            return self.session
        }
        session?.invalidateAndCancel()
        continuation.finish()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let type = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") ?? ""
        if status == 200, type.lowercased().hasPrefix("text/event-stream") {
            continuation.yield(.opened)
        } else {
            lock.withLock { failure = (status, Data()) }
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let result: Result<[ServerSentEvent], ServerSentEventParser.Failure>? = lock.withLock {
            if failure != nil {
                // An error body: keep enough of it to read the message.
                if failure!.body.count < 65_536 { failure!.body.append(data) }
                return nil
            }
            return Result { () throws(ServerSentEventParser.Failure) in try parser.feed(data) }
        }
        switch result {
        case .success(let events): for event in events { continuation.yield(.event(event)) }
        case .failure:
            continuation.finish(throwing: OnTheMapError.unreadableResponse(detail: "an event stream line over 1 MB"))
            dataTask.cancel()
        case nil: break
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let failure = lock.withLock { self.failure }
        if let failure, (200..<300).contains(failure.status) {
            continuation.finish(throwing: OnTheMapError.unreadableResponse(detail: "the answer is not an event stream"))
        } else if let failure {
            continuation.finish(throwing: HTTPTransport.error(status: failure.status, body: failure.body, dialect: .service))
        } else if let error {
            continuation.finish(throwing: OnTheMapError.from(transport: error))
        } else {
            continuation.finish()
        }
        session.finishTasksAndInvalidate()
    }
}
