import Foundation
import TestDatabases
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `onthemap admin|backup|restore|export` against a running server's database.
@Suite("Host tools", .serialized)
struct HostToolsTests {
    @Test func aNewServerTellsItsHostThatTheFirstSignUpBecomesItsAdministrator() async throws {
        let sandbox = try CLISandbox()
        let notice = "No account yet: the first one signed up becomes this server's administrator."
        let fresh = try await ServerProcess(sandbox: sandbox)
        defer { fresh.stop() }
        let said = try await fresh.output(after: "OnTheMap is at")
        #expect(said.contains(notice + " Sign up at \(fresh.url.absoluteString)/ before you share it."), "\(said)")
        try await fresh.signUp(email: "host@example.com", password: "host password")
        let users = try sandbox.run(["admin", "users", "--json", "--database-url", fresh.databaseURL])
        let host = try #require(try JSONSerialization.jsonObject(with: Data(users.stdout.utf8)) as? [String: Any], "\(users)")
        #expect(host["is_admin"] as? Bool == true)

        fresh.stop()

        // Started again with that account: nothing to say.
        let again = try await ServerProcess(sandbox: sandbox, reusing: fresh.dataDirectory)
        defer { again.stop() }
        let saidAgain = try await again.output(after: "OnTheMap is at")
        #expect(!saidAgain.contains("No account yet"), "\(saidAgain)")
    }

    @Test func adminCommandsManageAccountsAndPosts() async throws {
        let sandbox = try CLISandbox()
        let server = try await ServerProcess(sandbox: sandbox)
        defer { server.stop() }
        let db = ["--database-url", server.databaseURL]
        try await server.signUp(email: "host@example.com", password: "host password")
        try await server.signUp(email: "sam@example.com", password: "sam password")
        let sam = try await HTTP.login(server.url, "sam@example.com", "sam password")
        let post = try await HTTP.postLocation(server.url, session: sam.session, mapString: "Lyon, France")
        // The map is members-only: the host reads it as its administrator.
        let host = try await HTTP.login(server.url, "host@example.com", "host password").session

        var result = try sandbox.run(["admin", "users", "--json"] + db)
        #expect(result.status == 0, "\(result)")
        let users = try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(users.map { $0["email"] as? String } == ["host@example.com", "sam@example.com"])
        #expect(users.map { $0["is_admin"] as? Bool } == [true, false])
        #expect(users.map { $0["location_count"] as? Int } == [0, 1])

        result = try sandbox.run(["admin", "disable", "SAM@example.com"] + db)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Disabled sam@example.com (\(sam.key)); 1 session ended.\n")
        #expect(try await HTTP.status(server.url, "/api/account", session: sam.session) == 401)
        #expect(try await HTTP.count(server.url, session: host) == 0)
        await #expect(throws: (any Error).self) { try await HTTP.login(server.url, "sam@example.com", "sam password") }

        result = try sandbox.run(["admin", "enable", sam.key] + db)
        #expect(result.status == 0, "\(result)")
        #expect(try await HTTP.count(server.url, session: host) == 1)

        result = try sandbox.run(["admin", "promote", "sam@example.com"] + db)
        #expect(result.stdout == "sam@example.com (\(sam.key)) is now an administrator.\n")
        let again = try await HTTP.login(server.url, "sam@example.com", "sam password")
        #expect(try await HTTP.status(server.url, "/api/admin/users", session: again.session) == 200)

        result = try sandbox.run(["admin", "reset-link", "sam@example.com", "--public-url", server.url.absoluteString] + db)
        #expect(result.status == 0, "\(result)")
        let link = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(link.hasPrefix(server.url.absoluteString + "/reset.html#token="))
        let token = String(link.split(separator: "=").last!)
        #expect(
            try await HTTP.send(
                server.url, "/api/password-reset", method: "POST",
                body: ["token": token, "new_password": "brand new words"]
            ).status == 200)
        let renewed = try await HTTP.login(server.url, "sam@example.com", "brand new words")

        result = try sandbox.run(["admin", "delete-location", post, "--reason", "Not a real place"] + db)
        #expect(result.status == 0, "\(result)")
        #expect(try await HTTP.count(server.url, session: host) == 0)
        let notices = try await HTTP.send(server.url, "/api/account", session: renewed.session).json["notices"] as? [[String: Any]]
        #expect(notices?.first?["reason"] as? String == "Not a real place")

        // Mistakes are one line and exit 1, changing nothing.
        for (arguments, message) in [
            (["admin", "disable", "nobody@example.com"], "No account with the key or email 'nobody@example.com'"),
            (["admin", "delete-location", post, "--reason", "again"], "There is no student location \(post) in the class main."),
            (["admin", "delete-location", post, "--reason", "again", "--class", "nowhere"], "There is no class 'nowhere'."),
            (["admin", "delete-location", post, "--reason", "  "], "Give a --reason of 1 to 500 characters on one line."),
        ] {
            result = try sandbox.run(arguments + db)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.hasPrefix("onthemap: " + message), "\(result)")
            #expect(result.stderr.split(separator: "\n").count == 1, "one line, no usage after it: \(result)")
        }
        result = try sandbox.run(["admin", "users", "--data-dir", sandbox.directory.appendingPathComponent("none").path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("onthemap: No database at"), "\(result)")
        // A mistyped command line (not a refusal) still shows how the command is used.
        result = try sandbox.run(["admin", "disable"] + db)
        #expect(result.status == 1)
        #expect(result.stderr.contains("Missing expected argument") && result.stderr.contains("Usage: onthemap admin disable"), "\(result)")
    }

    /// SQLite's tool (PostgreSQL has pg_dump): reported as skipped on PostgreSQL, not as passed.
    @Test(.enabled(if: TestDatabases.postgresServerURL == nil, "backup is SQLite's tool; PostgreSQL has pg_dump"), .timeLimit(.minutes(2)))
    func backupUnderWritesRestoresEverythingAcknowledgedBeforeIt() async throws {
        let sandbox = try CLISandbox()
        let server = try await ServerProcess(sandbox: sandbox)
        defer { server.stop() }
        try await server.signUp(email: "writer@example.com", password: "writer password")
        let writer = try await HTTP.login(server.url, "writer@example.com", "writer password")
        // One location per account (the web app's rule is not the API's): each post is a new row.
        let acknowledged = Acknowledged()
        for index in 0..<20 {
            await acknowledged.add(try await HTTP.postLocation(server.url, session: writer.session, mapString: "Before \(index)"))
        }
        // Stopped by a flag between requests, never cancelled mid-request: cancelling a
        // URLSession request on Linux can leave it unanswered forever.
        let writes = Task {
            var index = 0
            while await !acknowledged.stopped && index < 400 {
                await acknowledged.attempted()
                if let id = try? await HTTP.postLocation(server.url, session: writer.session, mapString: "During \(index)") {
                    await acknowledged.add(id)
                }
                index += 1
            }
        }
        // The backup starts while writes are under way: once some have been acknowledged.
        while await acknowledged.ids.count < 25, await acknowledged.attempts < 400 { await Task.yield() }
        let before = await acknowledged.ids
        let backup = sandbox.directory.appendingPathComponent("backups/onthemap.sqlite").path
        var result = try sandbox.run(["backup", "--to", backup, "--database-url", server.databaseURL])
        await acknowledged.stop()
        _ = await writes.value
        let all = await acknowledged.ids
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("Backed up to \(backup)"))
        #expect(all.count > before.count, "writes went on during the backup")
        let mode = try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        result = try sandbox.run(["backup", "--to", backup, "--database-url", server.databaseURL])
        #expect(result.status == 1)
        #expect(result.stderr.contains("already exists"), "\(result)")

        let restored = sandbox.directory.appendingPathComponent("restored")
        result = try sandbox.run(["restore", "--from", backup, "--data-dir", restored.path])
        #expect(result.status == 0, "\(result)")
        result = try sandbox.run(["export", "--format", "geojson", "--data-dir", restored.path])
        #expect(result.status == 0, "\(result)")
        let collection = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let ids = Set(try #require(collection["features"] as? [[String: Any]]).compactMap { $0["id"] as? String })
        #expect(before.isSubset(of: ids), "every write acknowledged before the backup is in it")
        #expect(ids.isSubset(of: all), "and nothing that was never written")

        // The restored database holds data now: a second restore must be forced.
        result = try sandbox.run(["restore", "--from", backup, "--data-dir", restored.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("pass --force to replace them"), "\(result)")
        result = try sandbox.run(["restore", "--from", backup, "--data-dir", restored.path, "--force"])
        #expect(result.status == 0, "\(result)")
        let garbage = sandbox.directory.appendingPathComponent("garbage.sqlite")
        try Data("not a database".utf8).write(to: garbage)
        result = try sandbox.run(["restore", "--from", garbage.path, "--data-dir", sandbox.directory.appendingPathComponent("other").path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("is not an OnTheMap backup"), "\(result)")

        result = try sandbox.run(["backup", "--to", backup + "2", "--database-url", "postgres://u:p@127.0.0.1:1/db"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("pg_dump"), "\(result)")
    }

    /// The precision of a class holds everywhere the host takes data out: its export and a
    /// backup hold the town, never the street that was posted.
    /// A host's link goes to where students reach the server: the `--public-url` given, else
    /// the one the server started with; with neither, nothing a host could paste by mistake.
    @Test func inviteLinksNeedThePublicURL() async throws {
        let sandbox = try CLISandbox()
        var server = try await ServerProcess(sandbox: sandbox)
        var options = ["--data-dir", server.dataDirectory.path, "--database-url", server.databaseURL]
        var result = try sandbox.run(["admin", "class", "invite-link", "main", "--new"] + options)
        #expect(result.status != 0, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.contains("--public-url"), "\(result)")
        result = try sandbox.run(["admin", "class", "invite-link", "main", "--new", "--public-url", "https://map.example.org"] + options)
        #expect(result.status == 0 && result.stdout.hasPrefix("https://map.example.org/"), "\(result)")
        server.stop()

        // A server started with --public-url: the host's commands on its data folder use it.
        server = try await ServerProcess(sandbox: sandbox, arguments: ["--public-url", "https://school.example/map"])
        defer { server.stop() }
        options = ["--data-dir", server.dataDirectory.path, "--database-url", server.databaseURL]
        result = try sandbox.run(["admin", "class", "invite-link", "main", "--new"] + options)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("https://school.example/"), "\(result)")
    }

    @Test func aCityClassExportsAndBacksUpTheTownOnly() async throws {
        let sandbox = try CLISandbox()
        let server = try await ServerProcess(sandbox: sandbox)
        defer { server.stop() }
        let db = ["--database-url", server.databaseURL]
        try await server.signUp(email: "host@example.com", password: "host password")
        var result = try sandbox.run(["admin", "class", "create", "lyon-1", "--join", "open", "--precision", "city"] + db)
        #expect(result.status == 0, "\(result)")
        let host = try await HTTP.login(server.url, "host@example.com", "host password")
        // A street in Lyon's 7th arrondissement, as an old app would post it. (The server sees
        // the new class within its directory's few seconds: post until it does.)
        var posted = false
        for _ in 0..<100 where !posted {
            let answer = try await HTTP.send(
                server.url, "/c/lyon-1/v1/StudentLocation", method: "POST", session: host.session,
                body: [
                    "firstName": "Ada", "lastName": "L", "mapString": "17 Rue de Marseille, Lyon", "mediaURL": "https://example.com",
                    "latitude": 45.74731, "longitude": 4.84123,
                ])
            posted = answer.status == 201
            if !posted { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(posted)
        let file = sandbox.directory.appendingPathComponent("lyon.csv")
        result = try sandbox.run(["export", "--format", "csv", "--class", "lyon-1", "--to", file.path] + db)
        #expect(result.status == 0, "\(result)")
        let exported = try String(contentsOf: file, encoding: .utf8)
        // The town (Lyon's arrondissements are towns of their own in the gazetteer), at its centre.
        #expect(exported.contains(#""Lyon 07, Auvergne-Rhône-Alpes, France","https://example.com",45.745,4.842,"#), "\(exported)")
        var written = [exported]
        // `backup` is SQLite's tool (PostgreSQL has pg_dump).
        if TestDatabases.postgresServerURL == nil {
            let backup = sandbox.directory.appendingPathComponent("lyon-backup.sqlite").path
            result = try sandbox.run(["backup", "--to", backup] + db)
            #expect(result.status == 0, "\(result)")
            written.append(String(decoding: try Data(contentsOf: URL(fileURLWithPath: backup)), as: UTF8.self))
        }
        for text in written {
            #expect(!text.contains("Rue de Marseille") && !text.contains("45.74731") && !text.contains("4.84123"))
        }
    }

    @Test func exportCSVParsesBackToTheSameRecords() async throws {
        let sandbox = try CLISandbox()
        let server = try await ServerProcess(sandbox: sandbox)
        defer { server.stop() }
        try await server.signUp(email: "csv@example.com", password: "csv password", first: "=HYPERLINK(1)", last: "O'Brien, \"Jr\"")
        let user = try await HTTP.login(server.url, "csv@example.com", "csv password")
        _ = try await HTTP.postLocation(
            server.url, session: user.session, mapString: "Paris, \"TX\"", firstName: "=HYPERLINK(1)",
            lastName: "O'Brien, \"Jr\"")
        _ = try await HTTP.postLocation(server.url, session: user.session, mapString: "Zürich 🇨🇭")
        let file = sandbox.directory.appendingPathComponent("map.csv")
        let result = try sandbox.run(["export", "--format", "csv", "--to", file.path, "--database-url", server.databaseURL])
        #expect(result.status == 0, "\(result)")
        let rows = try CSV.parse(String(contentsOf: file, encoding: .utf8))
        #expect(
            rows.first == [
                "objectId", "uniqueKey", "firstName", "lastName", "mapString", "mediaURL", "latitude", "longitude", "createdAt",
                "updatedAt",
            ])
        let api =
            try await HTTP.send(server.url, "/v1/StudentLocation?order=-updatedAt", session: user.session).json["results"]
            as! [[String: Any]]
        #expect(rows.count == api.count + 1)
        for (row, record) in zip(rows.dropFirst(), api) {
            #expect(row[0] == record["objectId"] as? String)
            // Formula-looking text is shown as text: one apostrophe in front, nothing else changed.
            let first = record["firstName"] as! String
            #expect(row[2] == (first.hasPrefix("=") ? "'" + first : first))
            #expect(row[3] == record["lastName"] as? String)
            #expect(row[4] == record["mapString"] as? String)
            #expect(Double(row[6]) == record["latitude"] as? Double)
            #expect(Double(row[7]) == record["longitude"] as? Double)
            #expect(row[9] == record["updatedAt"] as? String)
        }
        let bad = try sandbox.run(["export", "--format", "xml", "--database-url", server.databaseURL])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("xml"), "\(bad)")
    }
}

actor Acknowledged {
    private(set) var ids = Set<String>()
    private(set) var stopped = false
    func add(_ id: String) { ids.insert(id) }
    private(set) var attempts = 0
    func stop() { stopped = true }
    func attempted() { attempts += 1 }
}

/// An RFC 4180 reader (quoted cells, doubled quotes, CRLF), to read the export back.
enum CSV {
    static func parse(_ text: String) throws -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var cell = ""
        var quoted = false
        var characters = Array(text)[...]
        while let c = characters.popFirst() {
            if quoted {
                if c == "\"" {
                    if characters.first == "\"" {
                        cell.append("\"")
                        characters.removeFirst()
                    } else {
                        quoted = false
                    }
                } else {
                    cell.append(c)
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                row.append(cell)
                cell = ""
            } else if c == "\r\n" || c == "\n" {
                row.append(cell)
                rows.append(row)
                row = []
                cell = ""
            } else {
                cell.append(c)
            }
        }
        guard !quoted, row.isEmpty, cell.isEmpty else { throw CLITestError("CSV does not end with a complete row") }
        return rows
    }
}

/// Plain HTTP calls to the test server (the SDK has no moderation calls).
enum HTTP {
    struct Answer {
        let status: Int
        let json: [String: Any]
    }

    static func send(_ base: URL, _ path: String, method: String = "GET", session: String? = nil, body: Any? = nil) async throws -> Answer {
        var request = URLRequest(url: URL(string: base.absoluteString + path)!)
        request.httpMethod = method
        if let session { request.setValue(session, forHTTPHeaderField: "X-Parse-Session-Token") }
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let urlSession = URLSession(configuration: .ephemeral)
        defer { urlSession.finishTasksAndInvalidate() }
        let (data, response) = try await urlSession.data(for: request)
        var bytes = data
        if path.contains("/session") && bytes.count >= 5 { bytes = bytes.dropFirst(5) }
        let json = (try? JSONSerialization.jsonObject(with: bytes)) as? [String: Any] ?? [:]
        return Answer(status: (response as! HTTPURLResponse).statusCode, json: json)
    }

    static func status(_ base: URL, _ path: String, session: String) async throws -> Int {
        try await send(base, path, session: session).status
    }

    static func login(_ base: URL, _ email: String, _ password: String) async throws -> (key: String, session: String) {
        let answer = try await send(base, "/api/session", method: "POST", body: ["udacity": ["username": email, "password": password]])
        guard answer.status == 200, let account = answer.json["account"] as? [String: Any],
            let session = answer.json["session"] as? [String: Any],
            let key = account["key"] as? String, let id = session["id"] as? String
        else { throw CLITestError("login failed: \(answer.status) \(answer.json)") }
        return (key, id)
    }

    static func postLocation(_ base: URL, session: String, mapString: String, firstName: String = "Ada", lastName: String = "Lovelace")
        async throws -> String
    {
        let answer = try await send(
            base, "/v1/StudentLocation", method: "POST", session: session,
            body: [
                "uniqueKey": "replaced by the server", "firstName": firstName, "lastName": lastName, "mapString": mapString,
                "mediaURL": "https://example.com",
                "latitude": 45.76, "longitude": 4.84,
            ])
        guard answer.status == 201, let id = answer.json["objectId"] as? String else { throw CLITestError("post failed: \(answer.status)") }
        return id
    }

    /// A query string of its own each time: on SQLite the server's list cache hears the CLI's
    /// direct writes only when the live map next reads the change log (within about a
    /// second), and these tests read right after them.
    static func count(_ base: URL, session: String) async throws -> Int {
        let fresh = Int.random(in: 1...1_000_000_000)
        return try await send(base, "/v1/StudentLocation?limit=0&count=1&skip=\(fresh)", session: session).json["count"] as? Int ?? -1
    }
}
