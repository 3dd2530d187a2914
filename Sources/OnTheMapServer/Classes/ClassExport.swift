import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OnTheMapModels
import Storage

/// A class's map as files, for its managers (teachers and administrators):
/// `GET /api/classes/:slug/export.csv` and `…/export.geojson`. Exactly what a member sees: the
/// class's visible posts (`VisiblePost.condition`, the snapshot's own read), in the list's
/// order, their points as stored, which is at the class's precision (`ClassPlacement`
/// coarsens every post when it is written or the precision becomes coarser), written by the
/// list's own number rule (`StudentLocationJSON.numberText`). Named after the class's slug.
struct ClassExportController: Sendable {
    let store: any OnTheMapStore
    let directory: ClassDirectory

    /// Posts read per statement (the snapshot's page).
    static let pageSize = 5_000

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("classes/:slug/export.csv", use: csv)
        group.get("classes/:slug/export.geojson", use: geoJSON)
    }

    @Sendable func csv(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, posts) = try await visiblePosts(context)
        return Self.file(Self.csvBody(posts), type: "text/csv; charset=utf-8; header=present", name: "\(found.slug)-map.csv")
    }

    @Sendable func geoJSON(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, posts) = try await visiblePosts(context)
        return Self.file(Self.geoJSONBody(posts), type: "application/geo+json", name: "\(found.slug)-map.geojson")
    }

    /// The class's visible posts, most recently updated first, for its managers only.
    private func visiblePosts(_ context: AppRequestContext) async throws -> (MapClass, [StudentInformation]) {
        let (found, access) = try await ClassAccess.named(
            context.parameters.get("slug") ?? "", for: context.caller, directory: directory, store: store)
        _ = try access.requireTeacher(.api)
        var posts: [StudentInformation] = []
        var last = ""
        while true {
            let page = try await store.locationsByObjectId(after: last, in: found.id, limit: Self.pageSize)
            posts += page
            guard page.count == Self.pageSize, let next = page.last?.objectId else { break }
            last = next
        }
        posts.sort { a, b in a.updatedAt != b.updatedAt ? a.updatedAt > b.updatedAt : a.objectId > b.objectId }
        return (found, posts)
    }

    static func file(_ body: ByteBuffer, type: String, name: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        // The slug is lowercase letters, digits and hyphens: nothing to quote.
        headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        headers[.cacheControl] = "private, no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }

    static let csvColumns = [
        "objectId", "firstName", "lastName", "mapString", "mediaURL", "latitude", "longitude", "createdAt", "updatedAt",
    ]

    /// RFC 4180 with CRLF lines, after a UTF-8 byte order mark (so spreadsheets read names in
    /// any script). Text cells a spreadsheet would take for a formula are neutralised.
    static func csvBody(_ posts: [StudentInformation]) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: 128 + posts.count * 200)
        buffer.writeString("\u{FEFF}")
        buffer.writeString(csvColumns.joined(separator: ",") + "\r\n")
        for post in posts {
            let cells = [
                csvText(post.objectId), csvText(post.firstName), csvText(post.lastName), csvText(post.mapString), csvText(post.mediaURL),
                StudentLocationJSON.numberText(post.latitude), StudentLocationJSON.numberText(post.longitude),
                csvText(post.createdAt), csvText(post.updatedAt),
            ]
            buffer.writeString(cells.joined(separator: ",") + "\r\n")
        }
        return buffer
    }

    /// A text cell: one that begins with `=`, `+`, `-`, `@` (or a tab or carriage return, which
    /// some spreadsheets skip before reading a formula) gets a leading apostrophe, so it is
    /// shown as text and never run (CSV injection); quoted when it holds a comma, a quote or a
    /// line break.
    static func csvText(_ text: String) -> String {
        var cell = text
        if let first = cell.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) { cell = "'" + cell }
        guard cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A FeatureCollection: each post a Point ([longitude, latitude]) with what members see of it.
    static func geoJSONBody(_ posts: [StudentInformation]) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: 64 + posts.count * 320)
        buffer.writeStaticString(#"{"type":"FeatureCollection","features":["#)
        for (index, post) in posts.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            buffer.writeStaticString(#"{"type":"Feature","id":"#)
            StudentLocationJSON.writeString(post.objectId, into: &buffer)
            buffer.writeStaticString(#","geometry":{"type":"Point","coordinates":["#)
            StudentLocationJSON.writeNumber(post.longitude, into: &buffer)
            buffer.writeStaticString(",")
            StudentLocationJSON.writeNumber(post.latitude, into: &buffer)
            buffer.writeStaticString(#"]},"properties":{"createdAt":"#)
            StudentLocationJSON.writeString(post.createdAt, into: &buffer)
            buffer.writeStaticString(#","firstName":"#)
            StudentLocationJSON.writeString(post.firstName, into: &buffer)
            buffer.writeStaticString(#","lastName":"#)
            StudentLocationJSON.writeString(post.lastName, into: &buffer)
            buffer.writeStaticString(#","mapString":"#)
            StudentLocationJSON.writeString(post.mapString, into: &buffer)
            buffer.writeStaticString(#","mediaURL":"#)
            StudentLocationJSON.writeString(post.mediaURL, into: &buffer)
            buffer.writeStaticString(#","updatedAt":"#)
            StudentLocationJSON.writeString(post.updatedAt, into: &buffer)
            buffer.writeStaticString("}}")
        }
        buffer.writeStaticString("]}")
        return buffer
    }
}
