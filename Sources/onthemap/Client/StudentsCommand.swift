import ArgumentParser
import Foundation
import Localization
import OnTheMapKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `onthemap students`: the most recently updated students, as a table or JSON.
struct StudentsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "students",
        abstract: "List students' locations, most recently updated first.",
        discussion: "Rows are numbered; `onthemap open N` opens row N's link."
    )

    @OptionGroup var serverOptions: ServerOptions
    @Option(help: "Show at most this many students (default: 100, or everything with --all).")
    var limit: Int?
    @Flag(help: "Page through every student (a progress bar shows on a terminal).")
    var all = false
    @Flag(help: "Print JSON (an array of StudentLocation objects) instead of a table.")
    var json = false
    @Option(help: "Only students whose name, place or link contains this text (searches everyone).")
    var search: String?

    @Flag(help: "After the list, keep running and print each change as it happens (Ctrl-C stops). With --json, one JSON object per line.")
    var follow = false

    func run() async throws {
        try await runClient {
            if let limit, limit < 1 { throw ClientFailure.user(say("cli.students.limitTooLow")) }
            let saved = try? SessionFile.load()
            let server = try serverOptions.mapServer(try serverOptions.resolve(saved: saved))
            if follow { return try await followChanges(server: server, session: saved?.udacitySession) }
            let everything = all || search != nil
            let loaded = try await StudentLoader.load(
                server: server, session: saved?.udacitySession,
                count: everything ? nil : (limit ?? 100), showProgress: true)
            printList(loaded)
        }
    }

    /// Rows keep their position in the full list, so `open N` finds them.
    private func printList(_ loaded: [StudentInformation]) {
        var rows = Array(loaded.enumerated())
        if search != nil { rows = rows.filter { matches($0.element) } }
        rows = Array(rows.prefix(limit ?? (all || search != nil ? Int.max : 100)))
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            Console.out(String(decoding: (try? encoder.encode(rows.map(\.element))) ?? Data("[]".utf8), as: UTF8.self))
            return
        }
        guard !rows.isEmpty else {
            Console.out(search.map { say("cli.students.noMatch", ["search": .text($0)]) } ?? say("cli.students.none"))
            return
        }
        let now = Date()
        let table = TextTable(
            headers: [
                "#", say("cli.students.headerName"), say("cli.students.headerPlace"),
                say("cli.students.headerLink"), say("cli.students.headerUpdated"),
            ],
            rows: rows.map { index, student in
                [
                    String(index + 1), student.fullName.isEmpty ? say("cli.students.noName") : student.fullName,
                    student.mapString, student.mediaURL,
                    RelativeTime.describe(parseDate: student.updatedAt, now: now),
                ]
            },
            shrinkable: [1: 12, 2: 12, 3: 16]
        )
        Console.out(table.render(maxWidth: Console.terminalWidth))
    }

    private func matches(_ student: StudentInformation) -> Bool {
        guard let search else { return true }
        let needle = search.trimmingCharacters(in: .whitespaces)
        return [student.fullName, student.mapString, student.mediaURL].contains {
            $0.range(of: needle, options: [.caseInsensitive, .diacriticInsensitive]) != nil
        }
    }

    /// `--follow`: the live map's snapshot as the list, then a line per change until stopped.
    private func followChanges(server: URL, session: UdacitySession?) async throws {
        let live = LiveLocationClient(configuration: OnTheMapConfiguration(server: server), sessionStore: SessionStore(session))
        var names: [String: String] = [:]
        var listed = false
        var interrupted = false
        do {
            for try await update in live.follow() {
                switch update {
                case .snapshot(let all, let version):
                    names = Dictionary(all.map { ($0.objectId, $0.fullName) }, uniquingKeysWith: { first, _ in first })
                    if json {
                        FollowOutput.json([
                            "event": "snapshot", "version": version,
                            "locations": all.filter(matches).map(FollowOutput.object),
                        ])
                    } else if !listed {
                        printList(all)
                        Console.writeErr("onthemap: " + say("cli.students.following") + "\n")
                    } else {
                        Console.writeErr("onthemap: " + say("cli.students.reloaded", ["count": .number(all.count)]) + "\n")
                    }
                    listed = true
                case .created(let student, let version), .updated(let student, let version):
                    let created = if case .created = update { true } else { false }
                    names[student.objectId] = student.fullName
                    guard matches(student) else { continue }
                    if json {
                        FollowOutput.json([
                            "event": created ? "created" : "updated", "version": version,
                            "location": FollowOutput.object(student),
                        ])
                    } else {
                        FollowOutput.line(
                            say(created ? "cli.students.eventNew" : "cli.students.eventMoved"), student.fullName, student.mapString,
                            student.mediaURL)
                    }
                case .deleted(let objectId, let version):
                    let name = names.removeValue(forKey: objectId)
                    if json {
                        FollowOutput.json(["event": "deleted", "version": version, "objectId": objectId])
                    } else if search == nil || name.map({ matches(StudentInformation.named($0)) }) == true {
                        FollowOutput.line(say("cli.students.eventRemoved"), name ?? objectId, "", "")
                    }
                case .connection(.reconnecting(let error)):
                    // Before the first list a failure is the answer (a wrong address should
                    // not hang); once following, it is a pause.
                    if !listed { throw error }
                    if !interrupted {
                        Console.writeErr(
                            "onthemap: " + say("cli.students.interrupted", ["error": .text(error.localizedDescription)]) + "\n")
                    }
                    interrupted = true
                case .connection(.live):
                    if interrupted { Console.writeErr("onthemap: " + say("cli.students.liveAgain") + "\n") }
                    interrupted = false
                case .connection(.connecting):
                    break
                }
            }
        } catch OnTheMapError.unavailable {
            throw ClientFailure.user(say("cli.students.noLiveMap"))
        }
    }
}

/// Lines `students --follow` prints, flushed at once so a pipe sees each as it happens.
private enum FollowOutput {
    static func line(_ what: String, _ name: String, _ place: String, _ link: String) {
        let time = Date().formatted(.dateTime.hour(.twoDigits(amPM: .omitted)).minute(.twoDigits).second(.twoDigits))
        let fields = [
            time, TextCleaning.pad(what, to: 7),
            TextCleaning.printable(name.isEmpty ? say("cli.students.noName") : name),
            TextCleaning.printable(place), TextCleaning.printable(link),
        ]
        Console.out(fields.filter { !$0.isEmpty }.joined(separator: "  "))
        fflush(nil)  // every stream: naming stdout is not concurrency-safe
    }

    static func json(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        Console.out(String(decoding: data, as: UTF8.self))
        fflush(nil)  // every stream: naming stdout is not concurrency-safe
    }

    static func object(_ student: StudentInformation) -> [String: Any] {
        [
            "objectId": student.objectId, "uniqueKey": student.uniqueKey, "firstName": student.firstName,
            "lastName": student.lastName, "mapString": student.mapString, "mediaURL": student.mediaURL,
            "latitude": student.latitude, "longitude": student.longitude, "updatedAt": student.updatedAt,
        ]
    }
}

extension StudentInformation {
    /// A record with only a name, to run the search filter on a removed student's name.
    fileprivate static func named(_ name: String) -> StudentInformation {
        StudentInformation(
            objectId: "", uniqueKey: "", firstName: name, lastName: "", mapString: "", mediaURL: "",
            latitude: 0, longitude: 0, createdAt: "", updatedAt: "")
    }
}

/// Loads students through `StudentStore`, the same model an app uses.
enum StudentLoader {
    /// The `count` most recent students (or all when nil), most recent first; read with the
    /// session when there is one (a members-only class's map is for its members).
    @MainActor
    static func load(server: URL, session: UdacitySession?, count: Int?, showProgress: Bool) async throws -> [StudentInformation] {
        let client = StudentLocationClient(configuration: OnTheMapConfiguration(server: server), sessionStore: SessionStore(session))
        let store = StudentStore(source: client, pageSize: min(100, count ?? 100))
        let bar = ProgressBar(label: say("cli.students.loading"), enabled: showProgress && Console.stderrIsTerminal)
        defer { bar.finish() }
        if let count {
            try await store.loadFirstPage()
            while store.students.count < count, store.hasMore {
                try await store.loadNextPage()
                bar.update(PagingProgress(loaded: store.students.count, total: store.totalCount))
            }
        } else {
            try await store.loadAll { bar.update($0) }
        }
        if store.skippedCount > 0 {
            bar.finish()
            Console.writeErr("onthemap: " + say("cli.students.skipped", ["count": .number(store.skippedCount)]) + "\n")
        }
        return store.students
    }
}

/// `onthemap open NAME|INDEX`: opens a student's link in the browser.
struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open a student's link with the platform's opener (open / xdg-open).",
        discussion: "INDEX is a row number of `onthemap students`; NAME matches part of a name. Set ONTHEMAP_OPENER to use another program."
    )

    @OptionGroup var serverOptions: ServerOptions
    @Argument(help: "Row number from `onthemap students`, or (part of) a student's name.")
    var target: String
    @Flag(name: .customLong("print"), help: "Print the link instead of opening it.")
    var printOnly = false

    func run() async throws {
        try await runClient {
            let saved = try? SessionFile.load()
            let server = try serverOptions.mapServer(try serverOptions.resolve(saved: saved))
            let student = try await pick(server: server, session: saved?.udacitySession)
            let link = try Self.webLink(student.mediaURL, owner: student.fullName)
            if printOnly {
                Console.out(link.absoluteString)
                return
            }
            try Self.launch(link)
            Console.out(
                say("cli.open.opened", ["name": .text(TextCleaning.printable(student.fullName)), "link": .text(link.absoluteString)]))
        }
    }

    private func pick(server: URL, session: UdacitySession?) async throws -> StudentInformation {
        let query = target.trimmingCharacters(in: .whitespaces)
        if let index = Int(query) {
            guard index >= 1 else { throw ClientFailure.user(say("cli.open.rowsStart")) }
            let students = try await StudentLoader.load(server: server, session: session, count: index, showProgress: false)
            guard index <= students.count else {
                throw ClientFailure.user(say("cli.open.noRow", ["row": .text(String(index)), "count": .number(students.count)]))
            }
            return students[index - 1]
        }
        guard !query.isEmpty else { throw ClientFailure.user(say("cli.open.needTarget")) }
        let students = try await StudentLoader.load(server: server, session: session, count: nil, showProgress: true)
        let exact = students.filter { $0.fullName.compare(query, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame }
        let matches =
            !exact.isEmpty
            ? exact
            : students.filter {
                $0.fullName.range(of: query, options: [.caseInsensitive, .diacriticInsensitive]) != nil
            }
        guard let first = matches.first else { throw ClientFailure.user(say("cli.open.noStudent", ["query": .text(query)])) }
        // Several records of one person: the most recent (the list is sorted) wins.
        let people = Set(matches.map { $0.fullName.lowercased() })
        guard people.count == 1 else {
            let names = people.sorted().prefix(4).joined(separator: ", ")
            throw ClientFailure.user(
                say("cli.open.ambiguous", ["query": .text(query), "count": .number(people.count), "names": .text(names)]))
        }
        return first
    }

    /// An http(s) URL from a mediaURL, adding `https://` when the scheme is missing.
    /// `owner` nil means the user's own link ("Your link …").
    static func webLink(_ text: String, owner: String?) throws -> URL {
        let original = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let text = !original.isEmpty && !original.contains("://") ? "https://" + original : original
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme), url.host?.isEmpty == false
        else {
            let shown = MessageArgument.text(TextCleaning.printable(original))
            throw ClientFailure.user(
                owner.map { say("cli.open.badLink", ["name": .text(TextCleaning.printable($0)), "link": shown]) }
                    ?? say("cli.open.badOwnLink", ["link": shown]))
        }
        return url
    }

    static func launch(_ url: URL) throws {
        let environment = ProcessInfo.processInfo.environment
        let opener: String
        if let custom = environment["ONTHEMAP_OPENER"], !custom.isEmpty {
            opener = custom
        } else {
            #if os(macOS)
                opener = "/usr/bin/open"
            #else
                opener = "xdg-open"
            #endif
        }
        guard let path = executablePath(opener) else {
            throw ClientFailure.user(say("cli.open.noOpener", ["opener": .text(opener), "link": .text(url.absoluteString)]))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [url.absoluteString]
        // xdg-open without a browser prints several lines of its own; the one-line error
        // below says what matters.
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw ClientFailure.user(
                say(
                    "cli.open.cannotRun",
                    ["opener": .text(opener), "error": .text(error.localizedDescription), "link": .text(url.absoluteString)]))
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ClientFailure.user(
                say(
                    "cli.open.openerFailed",
                    ["opener": .text(opener), "status": .text(String(process.terminationStatus)), "link": .text(url.absoluteString)]))
        }
    }

    private static func executablePath(_ name: String) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
