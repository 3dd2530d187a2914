import ArgumentParser
import Foundation
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

    func run() async throws {
        try await runClient {
            if let limit, limit < 1 { throw ClientFailure.user("--limit must be at least 1.") }
            let server = try serverOptions.resolve(saved: try? SessionFile.load())
            let everything = all || search != nil
            let loaded = try await StudentLoader.load(server: server, count: everything ? nil : (limit ?? 100),
                                                       showProgress: true)
            // Rows keep their position in the full list, so `open N` finds them.
            var rows = Array(loaded.enumerated())
            if let search {
                let needle = search.trimmingCharacters(in: .whitespaces)
                rows = rows.filter { _, student in
                    [student.fullName, student.mapString, student.mediaURL].contains {
                        $0.range(of: needle, options: [.caseInsensitive, .diacriticInsensitive]) != nil
                    }
                }
            }
            if let limit { rows = Array(rows.prefix(limit)) }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                Console.out(String(decoding: try encoder.encode(rows.map(\.element)), as: UTF8.self))
                return
            }
            guard !rows.isEmpty else {
                Console.out(search.map { "No student matches “\($0)”." } ?? "No students have posted a location yet.")
                return
            }
            let now = Date()
            let table = TextTable(
                headers: ["#", "NAME", "PLACE", "LINK", "UPDATED"],
                rows: rows.map { index, student in
                    [String(index + 1), student.fullName.isEmpty ? "(no name)" : student.fullName,
                     student.mapString, student.mediaURL,
                     RelativeTime.describe(parseDate: student.updatedAt, now: now)]
                },
                shrinkable: [1: 12, 2: 12, 3: 16]
            )
            Console.out(table.render(maxWidth: Console.terminalWidth))
        }
    }
}

/// Loads students through `StudentStore`, the same model an app uses.
enum StudentLoader {
    /// The `count` most recent students (or all when nil), most recent first.
    @MainActor
    static func load(server: URL, count: Int?, showProgress: Bool) async throws -> [StudentInformation] {
        let client = StudentLocationClient(configuration: OnTheMapConfiguration(server: server))
        let store = StudentStore(source: client, pageSize: min(100, count ?? 100))
        let bar = ProgressBar(label: "Loading students", enabled: showProgress && Console.stderrIsTerminal)
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
            Console.writeErr("onthemap: skipped \(store.skippedCount) unusable record(s) from the server.\n")
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
            let server = try serverOptions.resolve(saved: try? SessionFile.load())
            let student = try await pick(server: server)
            let link = try Self.webLink(student.mediaURL, owner: student.fullName)
            if printOnly {
                Console.out(link.absoluteString)
                return
            }
            try Self.launch(link)
            Console.out("Opened \(TextCleaning.printable(student.fullName))’s link: \(link.absoluteString)")
        }
    }

    private func pick(server: URL) async throws -> StudentInformation {
        let query = target.trimmingCharacters(in: .whitespaces)
        if let index = Int(query) {
            guard index >= 1 else { throw ClientFailure.user("Row numbers start at 1.") }
            let students = try await StudentLoader.load(server: server, count: index, showProgress: false)
            guard index <= students.count else {
                let posted = students.count == 1 ? "only 1 student has" : "only \(students.count) students have"
                throw ClientFailure.user("There is no row \(index); \(posted) posted.")
            }
            return students[index - 1]
        }
        guard !query.isEmpty else { throw ClientFailure.user("Give a row number or a name.") }
        let students = try await StudentLoader.load(server: server, count: nil, showProgress: true)
        let exact = students.filter { $0.fullName.compare(query, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame }
        let matches = !exact.isEmpty ? exact : students.filter {
            $0.fullName.range(of: query, options: [.caseInsensitive, .diacriticInsensitive]) != nil
        }
        guard let first = matches.first else { throw ClientFailure.user("No student is called “\(query)”.") }
        // Several records of one person: the most recent (the list is sorted) wins.
        let people = Set(matches.map { $0.fullName.lowercased() })
        guard people.count == 1 else {
            let names = people.sorted().prefix(4).joined(separator: ", ")
            throw ClientFailure.user("“\(query)” matches \(people.count) students (\(names)…); be more specific or use a row number.")
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
            let whose = owner.map { "\(TextCleaning.printable($0))’s link" } ?? "Your link"
            throw ClientFailure.user("\(whose) “\(TextCleaning.printable(original))” is not a web address (like https://example.com/me).")
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
            throw ClientFailure.user("No “\(opener)” to open links with; the link is \(url.absoluteString)")
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
            throw ClientFailure.user("Could not run \(opener): \(error.localizedDescription); the link is \(url.absoluteString)")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ClientFailure.user("\(opener) could not open a browser (status \(process.terminationStatus)); the link is \(url.absoluteString)")
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
