import Foundation
import OnTheMapKit
import TestDatabases
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds the built `onthemap` executable: `$ONTHEMAP_BINARY`, else next to the test bundle
/// (SwiftPM puts both in `.build/<triple>/<config>/`), else `.build/debug/` of this package.
enum CLIBinary {
    static let url: URL? = {
        let fileManager = FileManager.default
        func executable(_ url: URL) -> URL? {
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                fileManager.isExecutableFile(atPath: url.path)
            else { return nil }
            return url
        }
        if let path = ProcessInfo.processInfo.environment["ONTHEMAP_BINARY"], !path.isEmpty {
            return executable(URL(fileURLWithPath: path))
        }
        var starts: [URL] = [Bundle.main.bundleURL]
        if let executable = Bundle.main.executableURL { starts.append(executable.deletingLastPathComponent()) }
        starts.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            starts.append(bundle.bundleURL.deletingLastPathComponent())
        }
        // A bundle may sit a few levels deep (…/Foo.xctest/Contents/MacOS on macOS).
        for start in starts {
            var directory = start
            for _ in 0..<4 {
                if let found = executable(directory.appendingPathComponent("onthemap")) { return found }
                directory.deleteLastPathComponent()
            }
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return executable(packageRoot.appendingPathComponent(".build/debug/onthemap"))
    }()
}

/// What one run of the CLI produced.
struct CLIResult: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String

    var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
    /// stderr lines, without empty ones.
    var errorLines: [String] { stderr.split(separator: "\n").map(String.init) }
}

/// A scratch HOME / XDG_CONFIG_HOME for one test, so sessions never touch the real user's.
final class CLISandbox: @unchecked Sendable {
    let directory: URL
    let binary: URL

    init() throws {
        binary = try #require(CLIBinary.url, "build the onthemap executable first (swift build), or set ONTHEMAP_BINARY")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    var configHome: URL { directory.appendingPathComponent("config") }
    var sessionFile: URL { configHome.appendingPathComponent("onthemap/session.json") }

    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory.path
        environment["XDG_CONFIG_HOME"] = configHome.path
        environment["ONTHEMAP_SERVER"] = nil
        environment["ONTHEMAP_OPENER"] = nil
        // English messages on any machine (the client commands follow the locale), unless a
        // test asks for another language.
        environment["LANG"] = "C.UTF-8"
        for name in ["LC_ALL", "LC_MESSAGES", "LANGUAGE"] { environment[name] = nil }
        environment.merge(extra) { _, new in new }
        return environment
    }

    /// Runs `onthemap ARGS` with `stdin` as its standard input (a file, so never a TTY).
    func run(
        _ arguments: [String], stdin: String = "", environment extra: [String: String] = [:],
        timeout: TimeInterval = 60
    ) throws -> CLIResult {
        let id = UUID().uuidString
        let input = directory.appendingPathComponent("in-\(id)")
        let output = directory.appendingPathComponent("out-\(id)")
        let errors = directory.appendingPathComponent("err-\(id)")
        try Data(stdin.utf8).write(to: input)
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let process = try ChildProcess(
            binary, arguments, environment: environment(extra),
            stdin: input, stdout: output, stderr: errors)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            forceStop(process)
            throw CLITestError("onthemap \(arguments.joined(separator: " ")) did not finish in \(timeout) s")
        }
        process.waitUntilExit()
        return CLIResult(
            status: process.terminationStatus,
            stdout: try String(contentsOf: output, encoding: .utf8),
            stderr: try String(contentsOf: errors, encoding: .utf8))
    }
}

struct CLITestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `onthemap serve` as a child process on a free loopback port with a scratch data folder.
final class ServerProcess: @unchecked Sendable {
    let url: URL
    /// The database the server keeps its data in.
    let databaseURL: String
    /// Its data folder.
    let dataDirectory: URL
    /// Where its standard output and error go.
    let logFile: URL
    private let process: ChildProcess

    /// `reusing`: the data folder of a server stopped before (its database too), for a restart.
    init(sandbox: CLISandbox, arguments extra: [String] = [], reusing: URL? = nil) async throws {
        var lastError: (any Error)?
        for _ in 0..<3 {
            let port = try freePort()
            let dataDirectory = reusing ?? sandbox.directory.appendingPathComponent("data-\(port)")
            let log = sandbox.directory.appendingPathComponent("server-\(port).log")
            let process = try ChildProcess(
                sandbox.binary,
                ["serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", dataDirectory.path, "--log-level", "warning"]
                    + (TestDatabases.databaseURL(forDataDirectory: dataDirectory).map { ["--database-url", $0] } ?? []) + extra,
                environment: sandbox.environment(), stdout: log, stderr: log)
            let url = URL(string: "http://127.0.0.1:\(port)")!
            do {
                try await Self.waitForHealth(url, process: process)
                self.url = url
                self.dataDirectory = dataDirectory
                self.logFile = log
                self.databaseURL =
                    TestDatabases.databaseURL(forDataDirectory: dataDirectory)
                    ?? "sqlite://" + dataDirectory.appendingPathComponent("onthemap.sqlite").path
                self.process = process
                return
            } catch {
                lastError = error
                forceStop(process)
            }
        }
        throw lastError ?? CLITestError("server did not start")
    }

    deinit { stop() }

    func stop() { forceStop(process) }

    private static func waitForHealth(_ url: URL, process: ChildProcess) async throws {
        let health = url.appendingPathComponent("health")
        let session = URLSession(configuration: .ephemeral)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            guard process.isRunning else { throw CLITestError("onthemap serve exited with \(process.terminationStatus)") }
            var request = URLRequest(url: health)
            request.timeoutInterval = 1
            if let (data, response) = try? await session.data(for: request),
                (response as? HTTPURLResponse)?.statusCode == 200,
                String(decoding: data, as: UTF8.self).contains("ok")
            {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw CLITestError("onthemap serve did not answer /health within 30 s")
    }

    /// What the server has printed once it printed `line` (its output races its first answers).
    func output(after line: String) async throws -> String {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let said = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            if said.contains(line) { return said }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CLITestError("onthemap serve never printed \(line)")
    }

    /// Signs up an account through the SDK.
    func signUp(email: String, password: String, first: String = "Ada", last: String = "Lovelace") async throws {
        let client = UdacityClient(configuration: OnTheMapConfiguration(server: url))
        _ = try await client.signUp(email: email, password: password, firstName: first, lastName: last)
    }
}

/// A loopback port nothing listens on right now.
func freePort() throws -> Int {
    #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
    #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #endif
    guard fd >= 0 else { throw CLITestError("socket() failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw CLITestError("bind() failed") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}
