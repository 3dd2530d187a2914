import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle
import Storage

/// The live map of the request's class: `GET /api/locations/snapshot` (every location, one
/// request, usually no database work) and `GET /api/locations/changes` (Server-Sent Events
/// from a version on). Read by whoever may read the class (`ClassAccess`), like its list.
struct LiveMapController: Sendable {
    let live: LiveLocations
    let store: any LocationChangeRepository

    /// A stream ends on its own after this long at most (a shorter `?timeout=` is kept);
    /// EventSource reconnects with Last-Event-ID, so nothing is lost, and each reconnection
    /// checks the reader again: a session that expired stops reading within minutes even
    /// where nothing announced it. (Ended memberships, sessions, accounts and classes close
    /// their streams at once: `LiveLocations`.)
    static let maximumStreamLifetime = 300
    static let retryMilliseconds = 2000
    /// The `retry:` line every stream starts with, one copy for all of them.
    static let retryFrame = ServerSentEvents.retry(milliseconds: retryMilliseconds)

    func addRoutes(to group: RouterGroup<ClassRequestContext>) {
        group.get("snapshot", use: snapshot)
        group.get("snapshot/map", use: mapSnapshot)
        group.get("snapshot/map.bin", use: mapBinarySnapshot)
        group.get("changes", use: changes)
    }

    @Sendable func snapshot(_ request: Request, context: ClassRequestContext) async throws -> Response {
        try await answer(request, context: context, layout: .records)
    }

    /// The same snapshot as columns of what the web map draws (its own ETag).
    @Sendable func mapSnapshot(_ request: Request, context: ClassRequestContext) async throws -> Response {
        try await answer(request, context: context, layout: .mapColumns)
    }

    /// The same columns in binary (`MapColumnsBinary`), what the web map reads (its own ETag).
    @Sendable func mapBinarySnapshot(_ request: Request, context: ClassRequestContext) async throws -> Response {
        try await answer(request, context: context, layout: .mapBinary)
    }

    private func answer(_ request: Request, context: ClassRequestContext, layout: SnapshotLayout) async throws -> Response {
        try context.classAccess.requireReader(.api)
        let snapshot: EncodedSnapshot
        do {
            snapshot = try await live.snapshot(layout, classId: context.mapClass.id)
        } catch is LiveMapUnavailable {
            throw RetryLater(APIError(.serviceUnavailable, "unavailable", "The map is being rebuilt; try again."), after: 1)
        }
        let tag =
            switch layout {
            case .records: "\"\(snapshot.version)\""
            case .mapColumns: "\"\(snapshot.version)-map\""
            case .mapBinary: "\"\(snapshot.version)-map-bin\""
            }
        var headers = HTTPFields()
        headers[.eTag] = tag
        // Always ask again; the ETag makes that a 304 until the next change.
        headers[.cacheControl] = "no-cache"
        headers[.vary] = "Accept-Encoding"
        if Self.matches(request.headers[.ifNoneMatch], tag: tag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = layout == .mapBinary ? MapColumnsBinary.mediaType : "application/json; charset=utf-8"
        if let gzipped = snapshot.gzipped, Self.acceptsGzip(request.headers[.acceptEncoding]) {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: gzipped))
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: snapshot.plain))
    }

    @Sendable func changes(_ request: Request, context: ClassRequestContext) async throws -> Response {
        try context.classAccess.requireReader(.api)
        let since = try Self.startVersion(request)
        let lifetime = try Self.lifetime(request)
        let live = self.live
        let store = self.store
        let classId = context.mapClass.id
        let reader = context.caller.signedIn.map {
            LiveLocations.Reader(accountKey: $0.accountKey, sessionDigest: SessionToken.digest($0.session.id))
        }
        let body = ResponseBody { writer in
            // Subscribed here, where the stream is consumed, so no viewer is left registered
            // by a response that was never sent. Each step is a function of its own: this
            // closure's frame stays with the connection as long as the stream is open, so it
            // holds only what following the stream needs.
            let subscription = try await Self.subscribe(
                live: live, store: store, since: since, classId: classId, reader: reader, lifetime: lifetime)
            guard case .stream(let id, let stream) = subscription else {
                try await Self.answerWithoutStream(subscription, writer: &writer)
                return
            }
            try await Self.follow(stream, id: id, live: live, writer: &writer)
        }
        return Response(status: .ok, headers: ServerSentEvents.headers, body: body)
    }

    /// The reader's subscription from `since` on (nil: from now).
    private static func subscribe(
        live: LiveLocations, store: any LocationChangeRepository, since: Int64?, classId: String, reader: LiveLocations.Reader?,
        lifetime: Int
    ) async throws -> LiveLocations.Subscription {
        let subscription = live.subscribe(since: since ?? live.version, classId: classId, reader: reader, lifetime: .seconds(lifetime))
        guard case .ahead = subscription, let since else { return subscription }
        // Another server may have published it already: believe ids the log has reached.
        return since <= (try await store.latestLocationVersion())
            ? live.subscribeAhead(skipThrough: since, classId: classId, reader: reader, lifetime: .seconds(lifetime))
            : .reload(version: live.classVersion(classId))
    }

    /// A `reload` (too far behind) or nothing, then the end of the stream.
    private static func answerWithoutStream(
        _ subscription: LiveLocations.Subscription, writer: inout any ResponseBodyWriter
    ) async throws {
        if case .reload(let version) = subscription {
            try await writer.write(retryFrame)
            try await writer.write(
                LiveLocations.frame(for: LocationChange(version: version, kind: .reset, objectId: "", record: nil, classId: "")))
        }
        try await writer.finish(nil)
    }

    /// Writes the stream's frames until it ends: after its lifetime (`LiveLocations.endExpired`;
    /// the viewer reconnects where it left off), when its reader's access ends, or at shutdown.
    private static func follow(
        _ stream: AsyncStream<LiveFrame>, id: UInt64, live: LiveLocations, writer: inout any ResponseBodyWriter
    ) async throws {
        defer { live.unsubscribe(id) }
        try await writer.write(retryFrame)
        // Hummingbird stops its server first and waits for open responses: without
        // this, one open map would keep the process from ever stopping.
        try await withGracefulShutdownHandler {
            for await frame in stream {
                try await writer.write(frame.bytes)
                if frame.ends { break }
            }
        } onGracefulShutdown: {
            live.unsubscribe(id)
        }
        try await writer.finish(nil)
    }

    // MARK: Input

    /// Last-Event-ID (what EventSource sends when it reconnects) wins over `?since=`;
    /// neither means "from now on".
    static func startVersion(_ request: Request) throws -> Int64? {
        if let header = request.headers[HTTPField.Name("Last-Event-ID")!] {
            guard let version = parseVersion(header) else {
                throw APIError(.badRequest, "invalid_last_event_id", "Last-Event-ID must be an event id this stream sent (a whole number).")
            }
            return version
        }
        if let text = request.uri.queryParameters.get("since") {
            guard let version = parseVersion(text) else {
                throw APIError(.badRequest, "invalid_since", "since must be a snapshot's version (a whole number, 0 or more).")
            }
            return version
        }
        return nil
    }

    static func parseVersion(_ text: String) -> Int64? {
        guard !text.isEmpty, text.count <= 18, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int64(text)
    }

    /// `?timeout=` (1 to 3600, as clients have always sent), kept when shorter than the
    /// server's own limit.
    static func lifetime(_ request: Request) throws -> Int {
        try lifetime(request.uri.queryParameters.get("timeout"))
    }

    static func lifetime(_ text: String?) throws -> Int {
        guard let text else { return maximumStreamLifetime }
        guard let seconds = Int(text), (1...3600).contains(seconds), text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            throw APIError(.badRequest, "invalid_timeout", "timeout must be a whole number of seconds from 1 to 3600.")
        }
        return min(seconds, maximumStreamLifetime)
    }

    /// `If-None-Match` names this ETag (or `*`), strong or weak.
    static func matches(_ header: String?, tag: String) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { part in
            let value = part.trimmingCharacters(in: .whitespaces)
            return value == "*" || value == tag || value == "W/" + tag
        }
    }

    /// gzip listed in Accept-Encoding without `q=0`.
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        return header.lowercased().split(separator: ",").contains { part in
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard pieces.first == "gzip" || pieces.first == "*" else { return false }
            let quality = pieces.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return quality > 0
        }
    }
}
