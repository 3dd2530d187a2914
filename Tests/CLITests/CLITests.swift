import Foundation
import OnTheMapKit
import OnTheMapServer
import Testing

/// The `onthemap` client commands, run as processes against `onthemap serve`.
@Suite("onthemap CLI end to end", .serialized)
struct CLITests {
    @Test func loginStudentsPostOpenLogout() async throws {
        let sandbox = try CLISandbox()
        let server = try await ServerProcess(sandbox: sandbox)
        defer { server.stop() }
        let email = "ada@example.com"
        let password = "analytical engine"
        try await server.signUp(email: email, password: password)
        let serverArgs = ["--server", server.url.absoluteString]

        // Nobody logged in: the map is its members', so nothing is shown.
        var result = try sandbox.run(["students"] + serverArgs)
        #expect(result.status == 3, "\(result)")
        #expect(result.errorLines.first?.contains("Log in to see this class's map") == true, "\(result)")
        result = try sandbox.run(["whoami"])
        #expect(result.status == 3, "\(result)")
        #expect(result.errorLines == ["onthemap: You are not logged in; run `onthemap login` first."])
        result = try sandbox.run(["post", "Lyon", "https://example.com/ada", "--yes"])
        #expect(result.status == 3, "\(result)")

        // Wrong password: exit 3, one line, no session file.
        result = try sandbox.run(["login", "--email", email] + serverArgs, stdin: "wrong password\n")
        #expect(result.status == 3, "\(result)")
        #expect(result.errorLines == ["onthemap: Wrong email or password."])
        #expect(!FileManager.default.fileExists(atPath: sandbox.sessionFile.path))

        // Right password on stdin.
        result = try sandbox.run(["login", "--email", email] + serverArgs, stdin: password + "\n")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Logged in to \(server.url.absoluteString) as Ada Lovelace"))
        #expect(!result.stdout.contains(password))
        let attributes = try FileManager.default.attributesOfItem(atPath: sandbox.sessionFile.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: sandbox.sessionFile)) as? [String: Any]
        #expect((saved?["sessionID"] as? String)?.isEmpty == false)
        #expect(saved?["server"] as? String == server.url.absoluteString)
        #expect(saved?["accountKey"] is String)
        #expect(saved?["expiration"] is String)
        #expect(saved?["password"] == nil)

        result = try sandbox.run(["whoami"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Ada Lovelace (account "))
        #expect(result.stdout.contains("server: \(server.url.absoluteString)"))

        // Logged in: the (empty) map of the default class, which every account of the server is in.
        result = try sandbox.run(["students"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("No students have posted a location yet."))
        result = try sandbox.run(["classes"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("main (default)"), "\(result)")

        // Post (coordinates given), then post again: an update.
        result = try sandbox.run([
            "post", "Lyon, France", "example.com/ada", "--latitude", "45.764",
            "--longitude", "4.8357", "--yes",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Place: Lyon, France (45.76400°N, 4.83570°E)"))
        #expect(result.stdout.contains("Link:  https://example.com/ada"))
        #expect(result.stdout.contains("Posted your location ("))

        result = try sandbox.run(
            [
                "post", "Nantes, France", "https://example.com/ada2", "--latitude", "47.2184",
                "--longitude", "-1.5536",
            ], stdin: "y\n")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("You already have a location (Lyon, France, updated"))
        #expect(result.stdout.contains("it will be updated"))
        #expect(result.stdout.contains("Updated your location ("))

        // Declining posts nothing.
        result = try sandbox.run(
            [
                "post", "Rome", "https://example.com/rome", "--latitude", "41.9",
                "--longitude", "12.5",
            ], stdin: "n\n")
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines == ["onthemap: Nothing posted."])

        // A second student, so there is something to tell apart.
        try await server.signUp(email: "grace@example.com", password: "compiler pioneer", first: "Grace", last: "Hopper")
        let grace = try CLISandbox()
        result = try grace.run(["login", "--email", "grace@example.com"] + serverArgs, stdin: "compiler pioneer\n")
        #expect(result.status == 0, "\(result)")
        result = try grace.run([
            "post", "Arlington, Virginia", "https://navy.example/grace",
            "--latitude", "38.88", "--longitude", "-77.1", "--yes",
        ])
        #expect(result.status == 0, "\(result)")

        // The table: most recent first, relative times; the server comes from the session.
        result = try sandbox.run(["students"])
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(result)")
        #expect(lines.first?.hasPrefix("#  NAME") == true)
        #expect(lines.dropFirst().first?.contains("Grace Hopper") == true)
        #expect(lines.last?.contains("Ada Lovelace") == true)
        #expect(lines.last?.contains("Nantes, France") == true)
        #expect(lines.last?.contains("https://example.com/ada2") == true)
        #expect(lines.last?.hasSuffix("just now") == true)
        #expect(result.stderr.isEmpty, "no progress bar when stderr is not a terminal")

        result = try sandbox.run(["students", "--json", "--all"])
        #expect(result.status == 0, "\(result)")
        let decoded = try JSONDecoder().decode([StudentInformation].self, from: Data(result.stdout.utf8))
        #expect(decoded.map(\.fullName) == ["Grace Hopper", "Ada Lovelace"])

        result = try sandbox.run(["students", "--search", "nantes"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Ada Lovelace") && !result.stdout.contains("Grace"))
        #expect(result.stdout.split(separator: "\n").last?.hasPrefix("2  Ada Lovelace") == true, "\(result)")
        result = try sandbox.run(["students", "--limit", "1"])
        #expect(result.stdout.split(separator: "\n").count == 2)
        result = try sandbox.run(["students", "--limit", "0"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines == ["onthemap: --limit must be at least 1."])

        // open: by row, by name, and with an opener.
        result = try sandbox.run(["open", "2", "--print"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "https://example.com/ada2\n")
        result = try sandbox.run(["open", "grace", "--print"])
        #expect(result.stdout == "https://navy.example/grace\n", "\(result)")
        result = try sandbox.run(["open", "9"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines == ["onthemap: There is no row 9; only 2 students have posted."])
        // The opener gets the link; its own output (xdg-open's complaints) is not shown.
        let opener = sandbox.directory.appendingPathComponent("opener.sh")
        let opened = sandbox.directory.appendingPathComponent("opened.txt")
        try "#!/bin/sh\necho noise\necho noise >&2\necho \"$1\" > '\(opened.path)'\n".write(to: opener, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: opener.path)
        result = try sandbox.run(["open", "Hopper"], environment: ["ONTHEMAP_OPENER": opener.path])
        #expect(result.status == 0, "\(result)")
        #expect(try String(contentsOf: opened, encoding: .utf8) == "https://navy.example/grace\n")
        #expect(!result.stdout.contains("noise") && !result.stderr.contains("noise"), "\(result)")
        result = try sandbox.run(["open", "Hopper"], environment: ["ONTHEMAP_OPENER": "/bin/false"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines == ["onthemap: /bin/false could not open a browser (status 1); the link is https://navy.example/grace"])

        // Not a web link: one line that says so in the user's own words.
        result = try sandbox.run(["post", "Paris", "ftp://example.com/file", "--latitude", "1", "--longitude", "2", "--yes"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines.count == 1)
        result = try sandbox.run(["post", "Lyon, France", "not a url", "--latitude", "1", "--longitude", "2", "--yes"])
        #expect(result.errorLines == ["onthemap: Your link “not a url” is not a web address (like https://example.com/me)."], "\(result)")

        // Logout: server session ended, file gone; again is harmless; writes need a login.
        result = try sandbox.run(["logout"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Logged out.\n")
        #expect(!FileManager.default.fileExists(atPath: sandbox.sessionFile.path))
        result = try sandbox.run(["logout"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "Not logged in.\n")
        result = try sandbox.run(["post", "Lyon", "https://example.com", "--latitude", "1", "--longitude", "2", "--yes"])
        #expect(result.status == 3, "\(result)")
    }

    @Test func postGeocodesTheLocation() async throws {
        let sandbox = try CLISandbox()
        let server = try await ServerProcess(sandbox: sandbox)
        defer { server.stop() }
        try await server.signUp(email: "geo@example.com", password: "where am i")
        var result = try sandbox.run(
            ["login", "--email", "geo@example.com", "--server", server.url.absoluteString],
            stdin: "where am i\n")
        #expect(result.status == 0, "\(result)")
        // No link: it is optional, and the record keeps an empty one.
        result = try sandbox.run(["post", "Paris, France", "--yes"])
        if result.status == 4 {
            // A server without a geocoder: said plainly.
            #expect(result.errorLines == ["onthemap: Geocoding is unavailable on this server; pass --latitude and --longitude."])
        } else {
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains("Place: Paris"), "\(result)")
            #expect(result.stdout.contains("°N, "), "\(result)")
            #expect(!result.stdout.contains("Link:"), "\(result)")
            #expect(result.stdout.contains("Posted your location ("))
            let confirmation = result.stdout
            result = try sandbox.run(["students", "--json", "--all"])
            let posted = try JSONDecoder().decode([StudentInformation].self, from: Data(result.stdout.utf8))
            #expect(posted.map(\.mediaURL) == [""], "\(result)")
            // The place found is posted as the confirmation showed it, not the words typed.
            let mapString = try #require(posted.first?.mapString)
            #expect(mapString.hasPrefix("Paris, ") && mapString != "Paris, France", "\(result)")
            #expect(confirmation.contains("Place: \(mapString) ("), "\(confirmation)")
        }
    }

    @Test func accountExportThenDelete() async throws {
        let sandbox = try CLISandbox()
        let server = try await ServerProcess(sandbox: sandbox)
        defer { server.stop() }
        try await server.signUp(email: "first@example.com", password: "the administrator")
        try await server.signUp(email: "mine@example.com", password: "my own words")
        var result = try sandbox.run(
            ["login", "--email", "mine@example.com", "--server", server.url.absoluteString], stdin: "my own words\n")
        #expect(result.status == 0, "\(result)")
        result = try sandbox.run([
            "post", "Lyon, France", "https://example.com/me", "--latitude", "45.764", "--longitude", "4.8357", "--yes",
        ])
        #expect(result.status == 0, "\(result)")

        // A new name, on the account and its post; one outside the rules changes nothing.
        result = try sandbox.run(["account", "name", "Ada", "Byron"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Your name is now Ada Byron"), "\(result)")
        result = try sandbox.run(["account", "name", "Ada", "\u{202E}Byron"])
        #expect(result.status != 0, "\(result)")

        let file = sandbox.directory.appendingPathComponent("me.json")
        result = try sandbox.run(["account", "export", "--to", file.path])
        #expect(result.status == 0, "\(result)")
        let data = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        #expect((data["account"] as? [String: Any])?["email"] as? String == "mine@example.com")
        #expect((data["account"] as? [String: Any])?["last_name"] as? String == "Byron")
        #expect((data["locations"] as? [[String: Any]])?.first?["mapString"] as? String == "Lyon, France")
        #expect((data["locations"] as? [[String: Any]])?.first?["lastName"] as? String == "Byron")
        // The same as a zip with a page anyone can read beside the files for programs.
        let zip = sandbox.directory.appendingPathComponent("me.zip")
        result = try sandbox.run(["account", "export", "--zip", "--to", zip.path])
        #expect(result.status == 0, "\(result)")
        let archive = try Data(contentsOf: zip)
        #expect(archive.starts(with: [0x50, 0x4B, 0x03, 0x04]), "not a zip")
        let names = String(decoding: archive, as: UTF8.self)
        for member in ["index.html", "my-data.json", "my-locations.geojson"] {
            #expect(names.contains(member), "the zip has no \(member)")
        }

        // A wrong password deletes nothing and keeps the session.
        result = try sandbox.run(["account", "delete"], stdin: "not my words\n")
        #expect(result.status != 0, "\(result)")
        #expect(result.stderr.contains("nothing was deleted"), "\(result)")
        #expect(try sandbox.run(["whoami"]).status == 0)
        result = try sandbox.run(["account", "delete"], stdin: "my own words\n")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Deleted mine@example.com and all its data."), "\(result)")
        #expect(try sandbox.run(["whoami"]).status == 3)
        result = try sandbox.run(["login", "--email", "mine@example.com", "--server", server.url.absoluteString], stdin: "my own words\n")
        #expect(result.status == 3, "the account is gone: \(result)")
    }

    @Test func networkErrorExitsWith2() throws {
        let sandbox = try CLISandbox()
        let port = try freePort()
        let result = try sandbox.run(["students", "--server", "http://127.0.0.1:\(port)"])
        #expect(result.status == 2, "\(result)")
        #expect(result.errorLines.count == 1)
        #expect(result.stderr.hasPrefix("onthemap: Cannot reach the OnTheMap server: the connection was refused"))

        let login = try sandbox.run(["login", "--email", "a@b.c", "--server", "http://127.0.0.1:\(port)"], stdin: "pw\n")
        #expect(login.status == 2, "\(login)")
    }

    @Test func serverErrorExitsWith4() throws {
        // A web server that answers the student list with something that is not JSON.
        guard
            let python = ["/usr/bin/python3", "/usr/local/bin/python3", "/opt/homebrew/bin/python3"]
                .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { return }
        let sandbox = try CLISandbox()
        let root = sandbox.directory.appendingPathComponent("www")
        let classes = root.appendingPathComponent("parse/classes")
        try FileManager.default.createDirectory(at: classes, withIntermediateDirectories: true)
        try Data("<html>maintenance</html>".utf8).write(to: classes.appendingPathComponent("StudentLocation"))
        let port = try freePort()
        let process = try ChildProcess(
            URL(fileURLWithPath: python),
            ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", root.path])
        defer { forceStop(process) }

        var result = CLIResult(status: -1, stdout: "", stderr: "")
        for _ in 0..<50 {
            result = try sandbox.run(["students", "--server", "http://127.0.0.1:\(port)"])
            if result.status != 2 { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(result.status == 4, "\(result)")
        #expect(result.errorLines == ["onthemap: The server sent an answer that could not be read (student list is not valid JSON)."])
    }

    @Test func copyDatabaseMovesEverythingOnceIntoAnEmptyDatabase() async throws {
        let sandbox = try CLISandbox()
        let server = try await ServerProcess(sandbox: sandbox)
        try await server.signUp(email: "grace@example.com", password: "compiler first")
        server.stop()
        let copy = "sqlite://" + sandbox.directory.appendingPathComponent("copy/onthemap.sqlite").path

        var result = try sandbox.run(["copy-database", "--from", server.databaseURL, "--to", copy])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("accounts: 1 rows"))
        #expect(result.stdout.contains("sessions: 0 rows"))

        // The copy now holds data: a second run refuses and changes nothing.
        result = try sandbox.run(["copy-database", "--from", server.databaseURL, "--to", copy])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("not empty (table accounts has rows)"))

        result = try sandbox.run(["copy-database", "--from", copy, "--to", copy])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("--from and --to name the same database."))
    }

    @Test("serve --help lists every declared setting with its variable and default; a bad value is one clear error")
    func serveHelpFollowsTheDeclaration() throws {
        let sandbox = try CLISandbox()
        let help = try sandbox.run(["serve", "--help"])
        #expect(help.status == 0, "\(help)")
        let text = help.stdout.replacingOccurrences(of: "\n      ", with: " ")
        for setting in Settings.all {
            if let flag = setting.flag { #expect(text.contains("  --\(flag)"), "--\(flag)") }
            for variable in setting.environment { #expect(text.contains(variable), "\(variable)") }
            #expect(text.contains("(default: \(setting.defaultText))"), "\(setting.flag ?? setting.environment[0])")
        }
        let refused = try sandbox.run(["serve", "--photos-per-album", "500"])
        #expect(refused.status != 0 && refused.stderr.contains("Photos per album must be a number from 1 to 100, not 500."), "\(refused)")
    }

    @Test func servingOnATakenPortIsOneClearLine() async throws {
        let sandbox = try CLISandbox()
        let server = try await ServerProcess(sandbox: sandbox)
        defer { server.stop() }
        let port = try #require(server.url.port)
        let result = try sandbox.run(["serve", "--port", "\(port)", "--data-dir", sandbox.directory.appendingPathComponent("second").path])
        #expect(result.status == 1, "\(result)")
        #expect(
            result.errorLines == [
                "onthemap: Port \(port) on 127.0.0.1 is already in use (another OnTheMap?). "
                    + "Stop it, or choose another port: --port \(port + 1), or --port 0 for any free one."
            ], "\(result)")
        #expect(result.stdout.isEmpty, "nothing claims the server started")
    }

    @Test func aDataDirectoryThatCannotBeAFolderIsOneClearLine() throws {
        let sandbox = try CLISandbox()
        let file = sandbox.directory.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: file)
        var result = try sandbox.run(["serve", "--port", "0", "--data-dir", file.path])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines == ["onthemap: The data directory \(file.path) is a file, not a folder; choose another with --data-dir."])
        #expect(result.stdout.isEmpty)
        result = try sandbox.run(["serve", "--port", "0", "--data-dir", file.appendingPathComponent("data").path])
        #expect(result.status == 1, "\(result)")
        #expect(
            result.errorLines == [
                "onthemap: Cannot create the data directory \(file.appendingPathComponent("data").path) "
                    + "(\(file.path) is a file); choose another with --data-dir."
            ])
        #expect(result.stdout.isEmpty)
    }

    @Test func badServerAddressIsAUserError() throws {
        let sandbox = try CLISandbox()
        let result = try sandbox.run(["students", "--server", "ftp://example.com"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines.count == 1)
    }
}
