import Foundation
import Localization
import Testing

/// The client commands speak the language LANG / LC_MESSAGES ask for, with the catalogue's
/// messages, and exit with the same codes in every language.
@Suite("onthemap CLI languages", .serialized)
struct CLILanguageTests {
    /// The locales tried, with the language each should give.
    static let locales: [(environment: [String: String], language: Language)] = [
        (["LANG": "C.UTF-8"], .english),
        (["LANG": "de_DE.UTF-8"], .german),
        (["LC_MESSAGES": "es_ES.UTF-8"], .spanish),
    ]

    @Test func messagesFollowTheLocaleAndExitCodesDoNot() async throws {
        let sandbox = try CLISandbox()
        let server = try await ServerProcess(sandbox: sandbox)
        defer { server.stop() }
        let email = "ada@example.com"
        let password = "analytical engine"
        try await server.signUp(email: email, password: password)
        let serverArgs = ["--server", server.url.absoluteString]
        var codes: [String: Set<Int32>] = [:]

        // An authentication error: whoami without a session.
        for (environment, language) in Self.locales {
            let say = Translator(language)
            let result = try sandbox.run(["whoami"], environment: environment)
            codes["whoami", default: []].insert(result.status)
            #expect(result.status == 3, "\(result)")
            #expect(result.errorLines == ["onthemap: " + say("cli.session.required")], "\(environment) \(result)")
            if language == .english {
                #expect(result.errorLines == ["onthemap: You are not logged in; run `onthemap login` first."])
            } else {
                #expect(say("cli.session.required") != Translator(.english)("cli.session.required"))
            }
        }

        // A user error: a server address that is not one.
        for (environment, language) in Self.locales {
            let say = Translator(language)
            let result = try sandbox.run(["students", "--server", "ftp://example.com"], environment: environment)
            codes["bad server", default: []].insert(result.status)
            #expect(result.status == 1, "\(result)")
            #expect(
                result.errorLines == ["onthemap: " + say("cli.server.badAddress", ["address": "ftp://example.com"])],
                "\(environment) \(result)")
            if language == .english {
                #expect(result.errorLines == ["onthemap: “ftp://example.com” is not a server address; use one like http://127.0.0.1:8080."])
            }
        }

        // Logged in (in English), one location posted.
        var result = try sandbox.run(["login", "--email", email] + serverArgs, stdin: password + "\n")
        #expect(result.status == 0, "\(result)")
        result = try sandbox.run([
            "post", "Lyon, France", "example.com/ada", "--latitude", "45.764",
            "--longitude", "4.8357", "--yes",
        ])
        #expect(result.status == 0, "\(result)")

        // Successes: the table's headers and relative time, whoami's lines.
        for (environment, language) in Self.locales {
            let say = Translator(language)
            result = try sandbox.run(["students"], environment: environment)
            codes["students", default: []].insert(result.status)
            #expect(result.status == 0, "\(result)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            let headers = [
                "#", say("cli.students.headerName"), say("cli.students.headerPlace"),
                say("cli.students.headerLink"), say("cli.students.headerUpdated"),
            ]
            #expect(lines.first?.split(separator: " ").map(String.init) == headers, "\(environment) \(result)")
            #expect(lines.count == 2 && lines[1].hasSuffix(say("cli.time.justNow")), "\(environment) \(result)")
            if language == .english {
                #expect(lines.first?.split(separator: " ") == ["#", "NAME", "PLACE", "LINK", "UPDATED"])
                #expect(lines.last?.hasSuffix("just now") == true)
            }

            result = try sandbox.run(["whoami"], environment: environment)
            codes["whoami signed in", default: []].insert(result.status)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains(say("cli.whoami.server", ["server": .text(server.url.absoluteString)])), "\(result)")
            #expect(
                result.stdout.contains(
                    say("cli.whoami.account", ["name": "Ada Lovelace", "key": ""]).replacingOccurrences(of: ")", with: "")),
                "\(environment) \(result)")
            if language == .english {
                #expect(result.stdout.contains("Ada Lovelace (account "))
                #expect(result.stdout.contains("server: \(server.url.absoluteString)"))
            }
        }

        // A plural: the row asked for is past the one student who posted.
        for (environment, language) in Self.locales {
            let say = Translator(language)
            result = try sandbox.run(["open", "3", "--print"], environment: environment)
            codes["open 3", default: []].insert(result.status)
            #expect(result.status == 1, "\(result)")
            #expect(
                result.errorLines == ["onthemap: " + say("cli.open.noRow", ["row": "3", "count": .number(1)])],
                "\(environment) \(result)")
            if language == .english {
                #expect(result.errorLines == ["onthemap: There is no row 3; only 1 student has posted."])
                #expect(say("cli.open.noRow", ["row": "3", "count": .number(2)]) == "There is no row 3; only 2 students have posted.")
            }
        }

        // The data is the data: --json is the same whatever the language.
        let outputs = try Self.locales.map { try sandbox.run(["students", "--json"], environment: $0.environment).stdout }
        #expect(Set(outputs).count == 1 && outputs[0].contains("\"mapString\" : \"Lyon, France\""), "\(outputs)")

        for (command, statuses) in codes {
            #expect(statuses.count == 1, "\(command) exits differently across languages: \(statuses)")
        }
    }
}
