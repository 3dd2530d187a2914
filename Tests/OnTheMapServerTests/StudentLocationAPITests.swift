import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import OnTheMapModels
import OnTheMapServer
import TestDatabases
import Testing

@Suite("Parse-compatible StudentLocation API")
struct StudentLocationAPITests {
    static let fieldNames: Set<String> = [
        "objectId", "uniqueKey", "firstName", "lastName", "mapString", "mediaURL", "latitude", "longitude", "createdAt", "updatedAt",
    ]

    @Test("POST answers 201 with a Location header, a 10-character objectId and a Parse timestamp; the record has all 10 fields")
    func create() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let user = try await client.makeUser()
            let body = jsonBody([
                "uniqueKey": user.key, "firstName": "Ada", "lastName": "Lovelace", "mapString": "Cambridge, MA",
                "mediaURL": "https://example.com", "latitude": 42.3736, "longitude": -71.1097,
            ])
            let objectId = try await client.execute(
                uri: "/parse/classes/StudentLocation", method: .post, headers: user.parseHeaders, body: body
            ) { response throws in
                #expect(response.status == .created)
                let json = try response.json
                #expect(Set(json.keys) == ["createdAt", "objectId"])
                let id = try #require(json["objectId"] as? String)
                #expect(id.wholeMatch(of: /[A-Za-z0-9]{10}/) != nil)
                #expect((json["createdAt"] as? String)?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
                #expect(response.headers[.location] == "/parse/classes/StudentLocation/\(id)")
                return id
            }
            try await client.execute(uri: "/parse/classes/StudentLocation/\(objectId)", method: .get, headers: parseHeaders) {
                response throws in
                #expect(response.status == .ok)
                let record = try response.json
                #expect(Set(record.keys) == Self.fieldNames)
                #expect(record["mapString"] as? String == "Cambridge, MA")
                #expect(record["latitude"] as? Double == 42.3736)
                #expect(record["createdAt"] as? String == record["updatedAt"] as? String)
            }
        }
    }

    @Test("PUT changes only the fields sent and answers {updatedAt}; DELETE answers exactly 200 {}")
    func updateAndDelete() async throws {
        let clock = ManualClock()
        try await withTestServer({ $0.clock = clock.clock }, defaultClass: .public) { client in
            let user = try await client.makeUser()
            let id = try await client.postLocation(user)
            clock.advance(by: 1)
            // Clients send the whole record back, reserved fields included.
            try await client.execute(
                uri: "/v1/StudentLocation/\(id)", method: .put, headers: user.cookieHeaders,
                body: jsonBody([
                    "mapString": "Paris, TX", "latitude": 33.6609, "longitude": -95.5555,
                    "objectId": id, "createdAt": "2000-01-01T00:00:00.000Z", "updatedAt": "x",
                ])
            ) { response throws in
                #expect(response.status == .ok)
                #expect(Set(try response.json.keys) == ["updatedAt"])
            }
            let record = try await client.list("?where=%7B%22objectId%22%3A%22\(id)%22%7D")["results"] as! [[String: Any]]
            #expect(record.count == 1)
            #expect(record[0]["mapString"] as? String == "Paris, TX")
            #expect(record[0]["firstName"] as? String == "Ada")
            #expect((record[0]["updatedAt"] as! String) > (record[0]["createdAt"] as! String))
            try await client.execute(uri: "/parse/classes/StudentLocation/\(id)", method: .delete, headers: user.parseHeaders) {
                response throws in
                #expect(response.status == .ok)
                #expect(response.text == "{}")
            }
            for method in [HTTPRequest.Method.get, .put, .delete] {
                try await client.execute(
                    uri: "/parse/classes/StudentLocation/\(id)", method: method, headers: user.parseHeaders,
                    body: jsonBody(["mapString": "x"])
                ) { response throws in
                    #expect(response.status == .notFound)
                    #expect(response.text == #"{"code":101,"error":"Object not found."}"#)
                }
            }
        }
    }

    @Test("only the owner may change or delete a record (403 code 119); anonymous writes are refused")
    func ownerOnlyWrites() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let owner = try await client.makeUser()
            let other = try await client.makeUser()
            let id = try await client.postLocation(owner)
            for method in [HTTPRequest.Method.put, .delete] {
                try await client.execute(
                    uri: "/parse/classes/StudentLocation/\(id)", method: method, headers: other.parseHeaders,
                    body: jsonBody(["mapString": "Hijacked"])
                ) { response throws in
                    #expect(response.status == .forbidden)
                    #expect(try response.json["code"] as? Int == 119)
                }
                try await client.execute(uri: "/v1/StudentLocation/\(id)", method: method, body: jsonBody(["mapString": "Hijacked"])) {
                    response throws in
                    #expect(response.status == .unauthorized)
                    #expect(try response.json["code"] as? Int == 209)
                }
            }
            try await client.execute(uri: "/v1/StudentLocation", method: .post, body: jsonBody(["latitude": 1, "longitude": 1])) {
                response throws in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(
                uri: "/v1/StudentLocation", method: .post, headers: [HTTPField.Name("X-Parse-Session-Token")!: "1700000000Sdeadbeef"],
                body: jsonBody(["latitude": 1, "longitude": 1])
            ) { response throws in
                #expect(response.status == .unauthorized)
                #expect(try response.json["code"] as? Int == 209)
            }
            let record = try await client.list("?where=%7B%22objectId%22%3A%22\(id)%22%7D")["results"] as! [[String: Any]]
            #expect(record.first?["mapString"] as? String == "London, UK")
            #expect(try await client.count() == 1)
        }
    }

    @Test("legacy open writes let anyone write, as the original class did")
    func legacyOpenWrites() async throws {
        try await withTestServer({ $0.legacyOpenWrites = true }, defaultClass: .public) { client in
            let id = try await client.execute(
                uri: "/v1/StudentLocation", method: .post,
                body: jsonBody(["uniqueKey": "1234", "latitude": 1, "longitude": 2])
            ) { response throws in
                #expect(response.status == .created)
                return try response.json["objectId"] as! String
            }
            try await client.execute(uri: "/v1/StudentLocation/\(id)", method: .put, body: jsonBody(["mapString": "Anywhere"])) {
                response throws in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/v1/StudentLocation/\(id)", method: .delete) { response throws in
                #expect(response.status == .ok)
            }
        }
    }

    @Test("legacy open writes stop at an archived class: nobody creates, changes or deletes there")
    func legacyOpenWritesRespectArchiving() async throws {
        try await withTestServer({ $0.legacyOpenWrites = true }, defaultClass: .public) { client in
            let admin = try await client.makeUser()
            let id = try await client.execute(
                uri: "/v1/StudentLocation", method: .post,
                body: jsonBody(["uniqueKey": "1234", "latitude": 1, "longitude": 2])
            ) { response throws in
                try response.json["objectId"] as! String
            }
            #expect(
                try await ClassTests.status(client, "/api/classes/main", .patch, headers: admin.cookieHeaders, body: ["archived": true]).0
                    == .ok)
            try await client.execute(
                uri: "/v1/StudentLocation", method: .post, body: jsonBody(["uniqueKey": "5678", "latitude": 3, "longitude": 4])
            ) { response throws in
                #expect(response.status == .forbidden)
            }
            try await client.execute(uri: "/v1/StudentLocation/\(id)", method: .put, body: jsonBody(["mapString": "Anywhere"])) {
                response throws in
                #expect(response.status == .forbidden)
            }
            try await client.execute(uri: "/v1/StudentLocation/\(id)", method: .delete) { response throws in
                #expect(response.status == .forbidden)
            }
            try await client.execute(uri: "/v1/StudentLocation?limit=10", method: .get) { response throws in
                #expect(
                    (try response.json["results"] as? [[String: Any]])?.map { $0["objectId"] as? String } == [id], "kept, and nothing added"
                )
            }
        }
    }

    @Test("/parse requires the app id and REST key, byte-exact 403; /v1 does not")
    func parseCredentials() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let wrong: [HTTPFields] = [
                [:],
                [HTTPField.Name("X-Parse-Application-Id")!: "nope", HTTPField.Name("X-Parse-REST-API-Key")!: ParseCredentials.restAPIKey],
                [
                    HTTPField.Name("X-Parse-Application-Id")!: ParseCredentials.applicationID,
                    HTTPField.Name("X-Parse-REST-API-Key")!: "nope",
                ],
            ]
            for headers in wrong {
                try await client.execute(uri: "/parse/classes/StudentLocation?limit=1", method: .get, headers: headers) { response throws in
                    #expect(response.status == .forbidden)
                    #expect(response.text == #"{"error":"unauthorized"}"#)
                }
            }
            try await client.execute(uri: "/v1/StudentLocation?limit=1", method: .get) { response throws in
                #expect(response.status == .ok)
                #expect(response.text == #"{"results":[]}"#)
            }
        }
        try await withTestServer(
            {
                $0.parseApplicationID = "custom"
                $0.parseRESTAPIKey = "secret"
            }, defaultClass: .public
        ) { client in
            try await client.execute(uri: "/parse/classes/StudentLocation", method: .get, headers: parseHeaders) { response throws in
                #expect(response.status == .forbidden)
            }
            try await client.execute(
                uri: "/parse/classes/StudentLocation", method: .get,
                headers: [HTTPField.Name("X-Parse-Application-Id")!: "custom", HTTPField.Name("X-Parse-REST-API-Key")!: "secret"]
            ) { response throws in
                #expect(response.status == .ok)
            }
        }
    }

    @Test("paging with limit, skip and order=-updatedAt across 260 records: no overlap, no gap, newest first")
    func paging() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let user = try await client.makeUser()
            var created: [String] = []
            for index in 0..<260 {
                created.append(try await client.postLocation(user, ["firstName": "Student\(index)"]))
            }
            var seen: [[String: Any]] = []
            for skip in stride(from: 0, to: 300, by: 100) {
                // Real clients write both parameter orders.
                let page =
                    try await client.list(
                        skip == 100 ? "?skip=\(skip)&order=-updatedAt&limit=100" : "?limit=100&skip=\(skip)&order=-updatedAt")["results"]
                    as! [[String: Any]]
                #expect(page.count == min(100, 260 - skip))
                seen += page
            }
            #expect(seen.count == 260)
            #expect(Set(seen.map { $0["objectId"] as! String }) == Set(created))
            let stamps = seen.map { $0["updatedAt"] as! String }
            #expect(stamps == stamps.sorted(by: >))
            // Records posted in the same millisecond tie on updatedAt; the newest is among the first tied.
            let newest = seen.prefix { $0["updatedAt"] as? String == stamps.first }.map { $0["objectId"] as! String }
            #expect(newest.contains(created.last!))
            // Ascending order, a multi-field order, and an unknown (misspelled) field.
            let ascending = try await client.list("?limit=3&order=updatedAt")["results"] as! [[String: Any]]
            #expect(ascending.map { $0["updatedAt"] as! String } == Array(stamps.sorted().prefix(3)))
            let misspelled = try await client.list("?limit=5&order=-updateAt")["results"] as! [[String: Any]]
            #expect(misspelled.count == 5)
            let byName = try await client.list("?limit=2&order=firstName,-createdAt")["results"] as! [[String: Any]]
            #expect(byName.map { $0["firstName"] as! String } == ["Student0", "Student1"])
            // Default limit is 100; count ignores limit and skip; limit=0 returns no rows.
            #expect((try await client.list("")["results"] as! [Any]).count == 100)
            let counted = try await client.list("?limit=0&count=1")
            #expect(counted["count"] as? Int == 260)
            #expect((counted["results"] as! [Any]).isEmpty)
            #expect((try await client.list("?limit=5000")["results"] as! [Any]).count == 260)
        }
    }

    @Test("where: comparison, set, existence, regex, $or and $and operators")
    func whereOperators() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let places: [(String, String, Double)] = [
                ("Ana", "Lisbon", 38.7), ("Bob", "Boston", 42.4), ("Cleo", "Cairo", 30.0), ("Dan", "Denver", 39.7),
            ]
            var keys: [String: String] = [:]
            for (name, place, latitude) in places {
                let user = try await client.makeUser()
                keys[name] = user.key
                try await client.postLocation(user, ["firstName": name, "mapString": place, "latitude": latitude])
            }
            func names(_ whereJSON: String, extra: String = "") async throws -> [String] {
                let encoded = whereJSON.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let results = try await client.list("?order=firstName&where=\(encoded)\(extra)")["results"] as! [[String: Any]]
                return results.map { $0["firstName"] as! String }
            }
            #expect(try await names(#"{"latitude":{"$gt":39}}"#) == ["Bob", "Dan"])
            #expect(try await names(#"{"latitude":{"$gte":38.7,"$lt":40}}"#) == ["Ana", "Dan"])
            #expect(try await names(#"{"latitude":{"$lte":30}}"#) == ["Cleo"])
            #expect(try await names(#"{"firstName":{"$ne":"Ana"}}"#) == ["Bob", "Cleo", "Dan"])
            #expect(try await names(#"{"firstName":{"$eq":"Bob"}}"#) == ["Bob"])
            let anaAndDan = "[\"\(keys["Ana"]!)\",\"\(keys["Dan"]!)\"]"
            #expect(try await names(#"{"uniqueKey":{"$in":"# + anaAndDan + "}}") == ["Ana", "Dan"])
            #expect(try await names(#"{"uniqueKey":{"$nin":"# + anaAndDan + "}}") == ["Bob", "Cleo"])
            #expect(try await names(#"{"mapString":{"$regex":"^b","$options":"i"}}"#) == ["Bob"])
            #expect(try await names(#"{"mapString":{"$regex":"^b"}}"#) == [])
            #expect(try await names(#"{"$or":[{"firstName":"Ana"},{"mapString":"Cairo"}]}"#) == ["Ana", "Cleo"])
            #expect(try await names(#"{"$and":[{"latitude":{"$gt":35}},{"firstName":{"$ne":"Bob"}}]}"#) == ["Ana", "Dan"])
            #expect(try await names(#"{"mediaURL":{"$exists":true}}"#).count == 4)
            #expect(try await names(#"{"nickname":{"$exists":true}}"#) == [])
            #expect(try await names(#"{"nickname":{"$exists":false}}"#).count == 4)
            #expect(try await names(#"{"latitude":"38.7"}"#) == [], "a string never equals a number field")
            #expect(try await names(#"{"updatedAt":{"$gt":{"__type":"Date","iso":"2000-01-01T00:00:00.000Z"}}}"#).count == 4)
            #expect(try await names(#"{"createdAt":{"$lt":"2000-01-01T00:00:00.000Z"}}"#) == [])
            // The "mine" query both ways real clients send it.
            #expect(try await names(#"{"uniqueKey":""# + keys["Cleo"]! + #""}"#) == ["Cleo"])
        }
    }

    @Test("v1 shortcut ?uniqueKey= and the malformed queries real clients send")
    func lenientQueries() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let user = try await client.makeUser()
            let other = try await client.makeUser()
            for index in 0..<5 { try await client.postLocation(index == 0 ? user : other, ["firstName": "S\(index)"]) }
            for uri in ["/v1/StudentLocation?uniqueKey=\(user.key)", "/v1/StudentLocation?uniqueKey=\(user.key))"] {
                try await client.execute(uri: uri, method: .get) { response throws in
                    #expect(response.status == .ok)
                    let results = try response.json["results"] as! [[String: Any]]
                    #expect(results.map { $0["uniqueKey"] as! String } == [user.key])
                }
            }
            // `$` typed for `&`: skip=2 and order are both understood.
            try await client.execute(uri: "/v1/StudentLocation?limit=100&skip=2$order=-updatedAt", method: .get) { response throws in
                #expect(response.status == .ok)
                let results = try response.json["results"] as! [[String: Any]]
                #expect(results.map { $0["firstName"] as! String } == ["S2", "S1", "S0"])
            }
            // Pre-encoded where, as some clients build it by hand.
            try await client.execute(
                uri: "/parse/classes/StudentLocation?order=-updatedAt&where=%7B%22uniqueKey%22%3A%22\(user.key)%22%7D", method: .get,
                headers: parseHeaders
            ) { response throws in
                #expect((try response.json["results"] as! [Any]).count == 1)
            }
            // keys projects, always keeping objectId, createdAt, updatedAt.
            try await client.execute(uri: "/v1/StudentLocation?limit=1&keys=firstName,latitude", method: .get) { response throws in
                let record = (try response.json["results"] as! [[String: Any]])[0]
                #expect(Set(record.keys) == ["firstName", "latitude", "objectId", "createdAt", "updatedAt"])
            }
        }
    }

    @Test(
        "bad queries get Parse error codes",
        arguments: [
            ("?limit=100&foo=bar", 102, "Invalid parameter for query: foo"),
            ("?uniqueKey=1234", 102, "Invalid parameter for query: uniqueKey"),
            ("?limit=-1", 117, nil),
            ("?limit=ten", 117, nil),
            ("?skip=-5", 118, nil),
            ("?skip=abc", 118, nil),
            ("?where=notjson", 107, nil),
            ("?where=%5B1%2C2%5D", 107, nil),
            ("?where=%7B%22latitude%22%3A%7B%22%24near%22%3A1%7D%7D", 107, "bad constraint: $near"),
            ("?where=%7B%22uniqueKey%22%3A%7B%22%24in%22%3A%22x%22%7D%7D", 107, "bad $in value"),
            ("?where=%7B%22%24or%22%3A%7B%7D%7D", 102, "Bad $or format - use an array value."),
            ("?where=%7B%22ACL%22%3A1%7D", 102, "Cannot query on ACL."),
            ("?where=%7B%22bad-key%22%3A1%7D", 105, "Invalid key name: bad-key"),
            (
                "?where=%7B%22mapString%22%3A%7B%22%24regex%22%3A%22a%22%2C%22%24options%22%3A%22q%22%7D%7D", 102,
                "Bad $options value for query: q"
            ),
            ("?where=%7B%22mapString%22%3A%7B%22%24regex%22%3A%22(%22%7D%7D", 102, nil),
            ("?order=bad-field", 105, "Invalid field name: bad-field."),
            ("?limit=%ZZ", 102, "Improper encode of parameter"),
            ("?where=%7B%22firstName%22%3A%22a%5Cu0000%22%7D", 102, "Query values must not contain NUL characters."),
            ("?where=%7B%22a%00%22%3A1%7D", 102, "Query values must not contain NUL characters."),
        ] as [(String, Int, String?)])
    func badQueries(query: String, code: Int, message: String?) async throws {
        try await withTestServer(defaultClass: .public) { client in
            try await client.execute(uri: "/parse/classes/StudentLocation\(query)", method: .get, headers: parseHeaders) {
                response throws in
                #expect(response.status == .badRequest)
                let json = try response.json
                #expect(json["code"] as? Int == code)
                if let message { #expect(json["error"] as? String == message) }
            }
        }
    }

    @Test(
        "bad bodies get Parse error codes and store nothing",
        arguments: [
            ("{not json", 107, 400),
            ("[1,2]", 107, 400),
            (#"{"latitude":"51.5","longitude":0}"#, 111, 400),
            (#"{"latitude":51.5,"longitude":true}"#, 111, 400),
            (#"{"latitude":51.5,"longitude":0,"firstName":7}"#, 111, 400),
            (#"{"latitude":91,"longitude":0}"#, 142, 400),
            (#"{"latitude":0,"longitude":-180.5}"#, 142, 400),
            (#"{"latitude":0}"#, 142, 400),
            (#"{"latitude":0,"longitude":0,"mediaURL":"javascript:alert(1)"}"#, 142, 400),
            (#"{"latitude":0,"longitude":0,"mediaURL":"ftp://example.com/x"}"#, 142, 400),
            (#"{"latitude":0,"longitude":0,"objectId":"abcdefghij"}"#, 105, 400),
            (#"{"latitude":0,"longitude":0,"bad-name":1}"#, 105, 400),
            (#"{"latitude":0,"longitude":0,"firstName":"\#(String(repeating: "x", count: 101))"}"#, 142, 400),
            (#"{"latitude":0,"longitude":0,"mapString":"line\nbreak"}"#, 142, 400),
        ] as [(String, Int, Int)])
    func badBodies(body: String, code: Int, status: Int) async throws {
        try await withTestServer(defaultClass: .public) { client in
            let user = try await client.makeUser()
            let id = try await client.postLocation(user)
            for (uri, method) in [
                ("/parse/classes/StudentLocation", HTTPRequest.Method.post), ("/parse/classes/StudentLocation/\(id)", .put),
            ] {
                if method == .put && (body.contains("objectId") || body == #"{"latitude":0}"#) { continue }  // allowed on PUT
                try await client.execute(uri: uri, method: method, headers: user.parseHeaders, body: textBody(body)) { response throws in
                    #expect(response.status.code == status, "\(method) \(body.prefix(60))")
                    #expect(try response.json["code"] as? Int == code)
                }
            }
            #expect(try await client.count() == 1)
            let record = (try await client.list("")["results"] as! [[String: Any]])[0]
            #expect(record["latitude"] as? Double == 51.5074)
            #expect(record["mapString"] as? String == "London, UK")
        }
    }

    @Test("a body over 64 KB is refused with 413 code 116 and stores nothing")
    func oversizedBody() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let user = try await client.makeUser()
            let body = #"{"latitude":0,"longitude":0,"mapString":""# + String(repeating: "x", count: 70_000) + #""}"#
            try await client.execute(uri: "/parse/classes/StudentLocation", method: .post, headers: user.parseHeaders, body: textBody(body))
            { response throws in
                #expect(response.status == .contentTooLarge)
                #expect(try response.json["code"] as? Int == 116)
            }
            #expect(try await client.count() == 0)
        }
    }

    @Test("links: http(s) and bare hosts are stored as given; missing text fields become empty strings")
    func acceptedBodies() async throws {
        try await withTestServer(defaultClass: .public) { client in
            let user = try await client.makeUser()
            for link in ["www.linkedin.com/in/x", "https://example.com/a?b=c", "HTTP://EXAMPLE.COM", "localhost:8080/me", ""] {
                let id = try await client.postLocation(user, ["mediaURL": link])
                try await client.execute(uri: "/v1/StudentLocation/\(id)", method: .get) { response throws in
                    #expect(try response.json["mediaURL"] as? String == link)
                }
            }
            // uniqueKey defaults to the account key; every field is present and non-null.
            let id = try await client.execute(
                uri: "/v1/StudentLocation", method: .post, headers: user.cookieHeaders,
                body: jsonBody(["latitude": -33.87, "longitude": 151.21])
            ) { response throws in
                try response.json["objectId"] as! String
            }
            try await client.execute(uri: "/v1/StudentLocation/\(id)", method: .get) { response throws in
                let record = try response.json
                #expect(Set(record.keys) == Self.fieldNames)
                #expect(record["uniqueKey"] as? String == user.key)
                #expect(record["firstName"] as? String == "")
            }
        }
    }

    @Test("a list answer never outlives a write, whichever path wrote", arguments: [true, false])
    func listAfterWrites(cached: Bool) async throws {
        try await withTestServer({ $0.cacheListResponses = cached }, defaultClass: .public) { client in
            let user = try await client.makeUser()
            func firstPage() async throws -> [[String: Any]] {
                try await client.execute(uri: "/v1/StudentLocation?limit=100&order=-updatedAt", method: .get) { response throws in
                    try response.json["results"] as! [[String: Any]]
                }
            }
            #expect(try await firstPage().isEmpty)
            let id = try await client.postLocation(user, ["mapString": "Lagos"])
            #expect(try await firstPage().map { $0["mapString"] as! String } == ["Lagos"])
            try await client.execute(
                uri: "/parse/classes/StudentLocation/\(id)", method: .put, headers: user.parseHeaders,
                body: jsonBody(["mapString": "Accra"])
            ) { response throws in #expect(response.status == .ok) }
            #expect(try await firstPage().map { $0["mapString"] as! String } == ["Accra"])
            try await client.execute(uri: "/parse/classes/StudentLocation/\(id)", method: .delete, headers: user.parseHeaders) {
                response throws in
                #expect(response.status == .ok)
            }
            #expect(try await firstPage().isEmpty)
        }
    }

    @Test("input a database engine refuses is a 400 in Parse's format, never a 500")
    func inputTheDatabaseRefuses() async throws {
        try await withTestServer(defaultClass: .public) { client in
            // Unicode property classes: outside the dialect our matcher bounds (and PostgreSQL's
            // regex dialect refuses them too), so refused the same way on every backend.
            let unicodeClass = "%7B%22firstName%22%3A%7B%22%24regex%22%3A%22%5C%5Cp%7BL%7D%22%7D%7D"
            try await client.execute(uri: "/parse/classes/StudentLocation?where=\(unicodeClass)", method: .get, headers: parseHeaders) {
                response throws in
                #expect(response.status == .badRequest)
                #expect(try response.json["code"] as? Int == 102)
                #expect((try response.json["error"] as? String)?.hasPrefix("Invalid or unsupported regular expression") == true)
            }
            // No stored id holds a NUL; PostgreSQL refuses to even look one up.
            try await client.execute(uri: "/parse/classes/StudentLocation/ab%00cd", method: .get, headers: parseHeaders) {
                response throws in
                #expect(response.status == .notFound || response.status == .badRequest)
                #expect(try response.json["code"] as? Int == (response.status == .notFound ? 101 : 102))
            }
        }
    }

    @Test("unknown routes answer in the family's error format")
    func unknownRoutes() async throws {
        try await withTestServer(defaultClass: .public) { client in
            try await client.execute(uri: "/parse/classes/Other", method: .get, headers: parseHeaders) { response throws in
                #expect(response.status == .notFound)
                #expect(try response.json["code"] as? Int == 101)
            }
            try await client.execute(uri: "/api/nothing-here", method: .get) { response throws in
                #expect(response.status == .notFound)
                #expect((try response.json["error"] as? [String: Any])?["code"] as? String == "not_found")
            }
        }
    }
}
