import Foundation
import Hummingbird
import NIOCore
import OnTheMapModels
import Storage

/// The Parse-compatible StudentLocation class, mounted at `/parse/classes/StudentLocation`
/// and `/v1/StudentLocation`, for the request's class (`/c/<slug>/…`, or the default one).
/// Who may read and post is `ClassAccess`'s to say; only the account that created a record
/// may change it (unless `legacyOpenWrites`, in a public class). A record's `uniqueKey` is its
/// owner's account key whatever the client sends, so nobody can post as another. A record
/// of another class is not found here, whatever its objectId.
struct StudentLocationController: Sendable {
    let store: any OnTheMapStore
    let configuration: Configuration
    /// `/v1` also accepts `?uniqueKey=<key>`.
    let allowsUniqueKeyShortcut: Bool
    /// Shared by every mount of the class, so a write through one path clears both.
    let cache: ListResponseCache?
    /// Every write goes through it (it drops the cache and tells the live map).
    let writes: LocationWrites

    func addRoutes(to group: RouterGroup<ClassRequestContext>) {
        group.get(use: list)
        group.post(use: create)
        group.get(":objectId", use: get)
        group.put(":objectId", use: update)
        group.delete(":objectId", use: delete)
    }

    @Sendable func list(_ request: Request, context: ClassRequestContext) async throws -> Response {
        try context.classAccess.requireReader(.parse)
        let classId = context.mapClass.id
        // A student with a post waiting for approval sees it in their own lists: answers for
        // them are their own, never cached.
        let author = context.caller.signedIn.flatMap { $0.hasWaitingPost ? $0.accountKey : nil }
        let cache = author == nil ? self.cache : nil
        // The raw query is the cache key: a hit needs no parsing at all.
        let cacheKey = (allowsUniqueKeyShortcut ? "v1?" : "parse?") + (request.uri.query ?? "")
        if let cached = cache?.response(for: cacheKey, classId: classId) { return Self.jsonResponse(cached) }
        let generation = cache?.generation ?? 0
        let parameters = try ParseQuery.parameters(rawQuery: request.uri.query)
        let find = try ParseQuery.listRequest(parameters, allowUniqueKey: allowsUniqueKeyShortcut)
        // limit=0 answers without reading rows (parse-server does the same).
        let results = find.query.limit == 0 ? [] : try await store.locations(find.query, in: classId, author: author)
        let count = find.includeCount ? try await store.countLocations(find.query.filter, in: classId, author: author) : nil
        let body: ByteBuffer
        if let keys = find.keys {
            var object: [String: Any] = ["results": results.map { Self.project($0, keys: keys) }]
            if let count { object["count"] = count }
            body = ByteBuffer(data: try JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes, .sortedKeys]))
        } else {
            body = StudentLocationJSON.listBody(results, count: count)
        }
        cache?.store(body, for: cacheKey, classId: classId, computedAt: generation)
        return Self.jsonResponse(body)
    }

    private static func jsonResponse(_ body: ByteBuffer) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: body))
    }

    @Sendable func get(_ request: Request, context: ClassRequestContext) async throws -> Response {
        try context.classAccess.requireReader(.parse)
        let keys = try ParseQuery.getKeys(try ParseQuery.parameters(rawQuery: request.uri.query))
        let viewer = context.caller.signedIn?.accountKey
        guard let stored = try await store.location(objectId: try objectId(context), in: context.mapClass.id, author: viewer) else {
            throw ParseError.objectNotFound
        }
        guard let keys else { return try JSONResponse.make(stored.record) }
        return JSONResponse.raw(
            try JSONSerialization.data(withJSONObject: Self.project(stored.record, keys: keys), options: [.withoutEscapingSlashes]))
    }

    @Sendable func create(_ request: Request, context: ClassRequestContext) async throws -> Response {
        let owner = try writer(context)
        let body = try await request.collectBody(limit: configuration.maxBodySize) { ParseError.tooLarge }
        var patch = try LocationBody.patch(from: body, creating: true)
        let settings = try await placed(&patch, current: nil, context)
        let now = ParseDate.string(from: configuration.clock.now())
        let record = StudentInformation(
            objectId: Identifiers.objectId(),
            // Replaced rather than refused: clients post hard-coded keys (even their link) and
            // must keep working; only under legacy open writes without a session is it kept.
            uniqueKey: owner ?? patch.uniqueKey ?? "",
            firstName: patch.firstName ?? "", lastName: patch.lastName ?? "",
            mapString: patch.mapString ?? "", mediaURL: patch.mediaURL ?? "",
            latitude: patch.latitude!, longitude: patch.longitude!,
            createdAt: now, updatedAt: now
        )
        let waiting = try await waits(owner, creating: true, approval: settings.approval, context) ?? false
        try await writes.insert(StoredLocation(record: record, ownerKey: owner, classId: context.mapClass.id, waiting: waiting))
        try await writes.placeAgainIfCoarsened(objectId: record.objectId, in: context.mapClass.id, placedAt: settings.precision)
        if let owner, context.classAccess.joinsByPosting {
            // A post in an open class puts the student on its roster ("my classes").
            try await store.join(classId: context.mapClass.id, accountKey: owner, now: configuration.clock.now())
        }
        context.logger.info("location created", metadata: ["objectId": "\(record.objectId)"])
        var headers = HTTPFields()
        headers[.location] = "\(context.pathPrefix)\(request.uri.path)/\(record.objectId)"
        return try JSONResponse.make(CreatedResponse(createdAt: now, objectId: record.objectId), status: .created, headers: headers)
    }

    @Sendable func update(_ request: Request, context: ClassRequestContext) async throws -> Response {
        let owner = try writer(context)
        let id = try objectId(context)
        let body = try await request.collectBody(limit: configuration.maxBodySize) { ParseError.tooLarge }
        var patch = try LocationBody.patch(from: body, creating: false)
        let stored = try await authorize(owner, toChange: id, context: context)
        if let ownerKey = stored.ownerKey { patch.uniqueKey = ownerKey }
        let settings = try await placed(&patch, current: stored.record, context)
        patch.waiting = try await waits(owner, creating: false, approval: settings.approval, context)
        guard
            let updated = try await writes.update(objectId: id, in: context.mapClass.id, patch: patch, updatedAt: configuration.clock.now())
        else {
            throw ParseError.objectNotFound
        }
        try await writes.placeAgainIfCoarsened(objectId: id, in: context.mapClass.id, placedAt: settings.precision)
        return try JSONResponse.make(UpdatedResponse(updatedAt: updated.updatedAt))
    }

    @Sendable func delete(_ request: Request, context: ClassRequestContext) async throws -> Response {
        let owner = try writer(context)
        let id = try objectId(context)
        try await authorize(owner, toChange: id, context: context)
        guard try await writes.delete(objectId: id, in: context.mapClass.id) else { throw ParseError.objectNotFound }
        return JSONResponse.raw(Data("{}".utf8))
    }

    // MARK: Helpers

    private func objectId(_ context: ClassRequestContext) throws -> String {
        let id = context.parameters.get("objectId") ?? ""
        guard !id.isEmpty, id.count <= 64 else { throw ParseError.objectNotFound }
        return id
    }

    /// The class's precision applied to the write (`ClassPlacement`), in Parse's error format.
    /// The class is the database's, not the request's copy (kept a few seconds), so a post
    /// right after the class was coarsened is not stored exact, nor one right after approval
    /// was turned on let through; returns it for the rest of the write.
    private func placed(_ patch: inout LocationPatch, current: StudentInformation?, _ context: ClassRequestContext) async throws -> MapClass
    {
        let settings = try await store.mapClass(id: context.mapClass.id) ?? context.mapClass
        do {
            try ClassPlacement.apply(to: &patch, current: current, precision: settings.precision)
        } catch is NoPlaceNearby {
            throw ParseError(142, NoPlaceNearby.message)
        }
        return settings
    }

    /// Whether the write waits for a moderator's approval (`ClassAccess.waitsForApproval`).
    private func waits(_ owner: String?, creating: Bool, approval: MapClass.Approval, _ context: ClassRequestContext) async throws -> Bool?
    {
        let classId = context.mapClass.id
        return try await context.classAccess.waitsForApproval(approval, creating: creating, author: owner) { author in
            try await store.countLocations(.compare(.uniqueKey, .equal, .text(author)), in: classId, author: nil)
        }
    }

    /// Legacy open writes, where the class allows them (`ClassAccess.allowsOpenWrites`).
    private func openWrites(_ context: ClassRequestContext) -> Bool {
        context.classAccess.allowsOpenWrites(legacy: configuration.legacyOpenWrites)
    }

    /// The member writing, or nil under legacy open writes without a session.
    private func writer(_ context: ClassRequestContext) throws -> String? {
        if openWrites(context) {
            try context.classAccess.requireNotArchived(.parseWrite)
            return context.caller.signedIn?.accountKey
        }
        return try context.classAccess.requireMember(.parseWrite).accountKey
    }

    @discardableResult
    private func authorize(_ account: String?, toChange objectId: String, context: ClassRequestContext) async throws -> StoredLocation {
        guard let stored = try await store.location(objectId: objectId, in: context.mapClass.id, author: account) else {
            throw ParseError.objectNotFound
        }
        if openWrites(context) { return stored }
        guard let account, stored.ownerKey == account else { throw ParseError.notOwner }
        return stored
    }

    static func project(_ record: StudentInformation, keys: Set<String>) -> [String: Any] {
        let all: [String: Any] = [
            "objectId": record.objectId, "uniqueKey": record.uniqueKey, "firstName": record.firstName,
            "lastName": record.lastName, "mapString": record.mapString, "mediaURL": record.mediaURL,
            "latitude": record.latitude, "longitude": record.longitude,
            "createdAt": record.createdAt, "updatedAt": record.updatedAt,
        ]
        return all.filter { keys.contains($0.key) }
    }
}
