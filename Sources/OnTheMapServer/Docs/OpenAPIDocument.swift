import Foundation
import Hummingbird
import NIOCore

/// The OpenAPI 3 description of every route, served at `GET /openapi.json`.
///
/// It is a hand-written JSON resource (`Docs/openapi.json`) rather than values built in
/// Swift: the document is mostly prose, shapes and status codes that the handlers do not
/// share as types (three error formats, hand-written list JSON, the Udacity prefix), so a
/// Swift model would be a second copy of the same text that no compiler checks either.
/// `OpenAPIDocumentTests` keeps it true: the router's routes and the document's operations
/// must be the same set, and real responses must carry their schemas' required fields.
enum OpenAPIDocument {
    /// The document's bytes, read once.
    static let data: Data = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"),
            let data = try? Data(contentsOf: url)
        else { return Data(#"{"error":"openapi.json is missing from the server's resources"}"#.utf8) }
        return data
    }()

    static func addRoute(to router: Router<AppRequestContext>) {
        let body = ByteBuffer(data: data)
        router.get("openapi.json") { _, _ -> Response in
            Response(
                status: .ok,
                headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-cache"],
                body: .init(byteBuffer: body)
            )
        }
    }
}
