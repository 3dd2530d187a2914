import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import OnTheMapModels
import Storage
import Testing

@testable import OnTheMapServer

/// Keeps `/openapi.json` true: the router's routes and the document's operations are the
/// same set (adding a route without documenting it fails here), and real responses carry
/// every field their schemas require.
@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    /// Routes deliberately left out of the document (its info.description says why).
    static let undocumentedRoutes: Set<String> = [
        // A redirect to the Leaflet CDN, registered only when Debian's libjs-leaflet is absent.
        "GET /vendor/leaflet/**"
    ]

    static func document() throws -> [String: Any] {
        try jsonObject(OpenAPIDocument.data)
    }

    /// "METHOD /path/{param}" for every operation in the document.
    static func documentedOperations(_ document: [String: Any]) throws -> Set<String> {
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var operations = Set<String>()
        for (path, item) in paths {
            for method in item.keys where ["get", "put", "post", "delete", "patch", "head", "options"].contains(method) {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }

    @Test("every route the router has is in the document, and every operation in it is a route")
    func routesMatchDocument() async throws {
        let routes = Set(try await mountedRoutes().map { "\($0.method) \($0.path)" }).subtracting(Self.undocumentedRoutes)
        let documented = try Self.documentedOperations(try Self.document())
        #expect(routes.count > 30)
        #expect(routes.subtracting(documented).sorted() == [], "routes missing from Docs/openapi.json")
        #expect(documented.subtracting(routes).sorted() == [], "operations in Docs/openapi.json that no route serves")
    }

    @Test("the document is well formed: path parameters declared, every $ref resolves, every operation answers something")
    func documentIsWellFormed() throws {
        let document = try Self.document()
        #expect((document["openapi"] as? String)?.hasPrefix("3.") == true)
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        for (path, item) in paths {
            let names = Set(path.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) })
            for (method, value) in item {
                let operation = try #require(value as? [String: Any], "\(method) \(path)")
                let parameters = (operation["parameters"] as? [[String: Any]]) ?? []
                let declared = Set(parameters.filter { $0["in"] as? String == "path" }.compactMap { $0["name"] as? String })
                #expect(declared == names, "\(method) \(path): path parameters")
                let responses = try #require(operation["responses"] as? [String: Any], "\(method) \(path)")
                #expect(!responses.isEmpty)
                #expect(operation["operationId"] is String, "\(method) \(path): operationId")
            }
        }
        var unresolved: [String] = []
        func walk(_ value: Any) {
            if let object = value as? [String: Any] {
                if let reference = object["$ref"] as? String, SchemaChecker(document: document).resolve(reference) == nil {
                    unresolved.append(reference)
                }
                object.values.forEach(walk)
            } else if let array = value as? [Any] {
                array.forEach(walk)
            }
        }
        walk(document)
        #expect(unresolved == [])
    }

    @Test("GET /openapi.json serves the document")
    func served() async throws {
        try await withTestServer(defaultClass: .public) { client in
            try await client.execute(uri: "/openapi.json", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
                #expect(Data(buffer: response.body) == OpenAPIDocument.data)
                let version = try response.json["openapi"] as? String
                #expect(version == "3.0.3")
            }
        }
    }

    @Test("real responses carry every field their schemas require")
    func responsesMatchSchemas() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let checker = SchemaChecker(document: try Self.document())
            /// Sends the request, checks the status and the body against the documented schema;
            /// returns the body's objectId, if any.
            func check(
                _ method: HTTPRequest.Method, _ uri: String, operation path: String, headers: HTTPFields = [:], body: Any? = nil,
                status expected: HTTPResponse.Status, udacity: Bool = false
            ) async throws -> String? {
                try await client.execute(uri: uri, method: method, headers: headers, body: body.map(jsonBody)) { response throws in
                    #expect(response.status == expected, "\(method) \(uri): \(response.text)")
                    let json = udacity ? try response.udacityJSON : try response.json
                    let problems = try checker.problems(json, path: path, method: method, status: response.status.code)
                    #expect(problems == [], "\(method) \(uri)")
                    return json["objectId"] as? String
                }
            }
            _ = try await check(.get, "/health", operation: "/health", status: .ok)
            let user = try await client.makeUser()
            let auth = user.parseHeaders
            _ = try await check(.post, "/api/users", operation: "/api/users", body: ["email": "x"], status: .badRequest)
            _ = try await check(
                .post, "/api/session", operation: "/api/session",
                body: ["udacity": ["username": user.email, "password": user.password]], status: .ok, udacity: true)
            _ = try await check(
                .post, "/v1/session", operation: "/v1/session",
                body: ["udacity": ["username": user.email, "password": "wrong password"]], status: .forbidden, udacity: true)
            _ = try await check(.get, "/v1/users/\(user.key)", operation: "/v1/users/{key}", headers: auth, status: .ok, udacity: true)
            _ = try await check(.get, "/api/users/nobody", operation: "/api/users/{key}", status: .notFound, udacity: true)
            let objectId = try #require(
                try await check(
                    .post, "/parse/classes/StudentLocation", operation: "/parse/classes/StudentLocation",
                    headers: auth, body: ["latitude": 1.5, "longitude": 2.5, "mapString": "Somewhere"], status: .created))
            _ = try await check(.get, "/v1/StudentLocation?limit=5&count=1", operation: "/v1/StudentLocation", status: .ok)
            _ = try await check(.get, "/v1/StudentLocation/\(objectId)", operation: "/v1/StudentLocation/{objectId}", status: .ok)
            _ = try await check(
                .put, "/v1/StudentLocation/\(objectId)", operation: "/v1/StudentLocation/{objectId}",
                headers: auth, body: ["mapString": "Elsewhere"], status: .ok)
            _ = try await check(
                .get, "/parse/classes/StudentLocation/nothere", operation: "/parse/classes/StudentLocation/{objectId}",
                headers: parseHeaders, status: .notFound)
            _ = try await check(.get, "/parse/classes/StudentLocation", operation: "/parse/classes/StudentLocation", status: .forbidden)
            _ = try await check(.get, "/api/locations/snapshot", operation: "/api/locations/snapshot", status: .ok)
            _ = try await check(.get, "/api/locations/snapshot/map", operation: "/api/locations/snapshot/map", status: .ok)
            _ = try await check(.get, "/api/geocode?q=Paris", operation: "/api/geocode", status: .ok)
            _ = try await check(.get, "/api/geocode/reverse?lat=91&lon=0", operation: "/api/geocode/reverse", status: .badRequest)
            _ = try await check(.get, "/api/pins", operation: "/api/pins", status: .unauthorized)
            _ = try await check(
                .post, "/api/account/password", operation: "/api/account/password", headers: auth,
                body: ["current_password": user.password, "new_password": "another good one"], status: .ok)
            _ = try await check(
                .delete, "/v1/StudentLocation/\(objectId)", operation: "/v1/StudentLocation/{objectId}",
                headers: auth, status: .ok)
            _ = try await check(.delete, "/api/session", operation: "/api/session", headers: auth, status: .ok, udacity: true)
        }
    }
}

/// Checks a decoded JSON value against the document's schema for one response: required
/// properties present, types right, `enum` and `pattern` respected, through `$ref`, `allOf`
/// and array items. Enough to catch a renamed or dropped field; not a full JSON Schema validator.
struct SchemaChecker {
    let document: [String: Any]

    func resolve(_ reference: String) -> [String: Any]? {
        guard reference.hasPrefix("#/") else { return nil }
        var node: Any = document
        for part in reference.dropFirst(2).split(separator: "/") {
            guard let object = node as? [String: Any], let next = object[String(part)] else { return nil }
            node = next
        }
        return node as? [String: Any]
    }

    private func dereferenced(_ object: [String: Any]) -> [String: Any] {
        if let reference = object["$ref"] as? String, let target = resolve(reference) { return dereferenced(target) }
        return object
    }

    func problems(_ value: Any, path: String, method: HTTPRequest.Method, status: Int) throws -> [String] {
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let operation = try #require(paths[path]?[method.rawValue.lowercased()] as? [String: Any], "\(method) \(path) not documented")
        let responses = try #require(operation["responses"] as? [String: Any])
        let response = dereferenced(try #require(responses[String(status)] as? [String: Any], "\(method) \(path) \(status) not documented"))
        let content = try #require(response["content"] as? [String: Any])
        let media = try #require(content["application/json"] as? [String: Any])
        let schema = try #require(media["schema"] as? [String: Any])
        var found: [String] = []
        check(value, against: schema, at: "$", into: &found)
        return found
    }

    private func check(_ value: Any, against raw: [String: Any], at location: String, into problems: inout [String]) {
        let schema = dereferenced(raw)
        for part in (schema["allOf"] as? [[String: Any]]) ?? [] { check(value, against: part, at: location, into: &problems) }
        if let type = schema["type"] as? String, !Self.matches(value, type: type) {
            problems.append("\(location): expected \(type), got \(value)")
            return
        }
        if let allowed = schema["enum"] as? [String], let text = value as? String, !allowed.contains(text) {
            problems.append("\(location): \(text) is not one of \(allowed)")
        }
        if let pattern = schema["pattern"] as? String, let text = value as? String,
            text.range(of: pattern, options: .regularExpression) == nil
        {
            problems.append("\(location): \(text) does not match \(pattern)")
        }
        if let object = value as? [String: Any] {
            for name in (schema["required"] as? [String]) ?? [] where object[name] == nil {
                problems.append("\(location): missing required \(name)")
            }
            let properties = (schema["properties"] as? [String: [String: Any]]) ?? [:]
            for (name, property) in properties {
                if let member = object[name] { check(member, against: property, at: "\(location).\(name)", into: &problems) }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (index, item) in array.enumerated() { check(item, against: items, at: "\(location)[\(index)]", into: &problems) }
        }
    }

    /// Numbers and booleans both decode as NSNumber on Linux, so they are told apart only loosely.
    static func matches(_ value: Any, type: String) -> Bool {
        switch type {
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        case "string": return value is String
        case "boolean": return value is Bool
        case "integer": return (value as? NSNumber).map { $0.doubleValue == $0.doubleValue.rounded() } ?? false
        case "number": return value is NSNumber
        default: return true
        }
    }
}
