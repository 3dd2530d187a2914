import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real SMTP relay for the tests: `Tests/E2E/smtp_sink.py` (aiosmtpd) in a child process,
/// keeping each message it accepts as a JSON file in its folder.
final class SMTPSink: @unchecked Sendable {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("E2E/smtp_sink.py")

    /// A python3 that has aiosmtpd (`pip install -r Tests/E2E/requirements.txt`), or nil.
    static let python: URL? = {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        for directory in paths {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("python3")
            guard FileManager.default.isExecutableFile(atPath: candidate.path),
                let check = try? ChildProcess(candidate, ["-c", "import aiosmtpd"])
            else { continue }
            if check.waitUntilExit() == 0 { return candidate }
        }
        return nil
    }()

    /// Whether the delivery tests can run; when not, they are skipped unless
    /// `ONTHEMAP_TEST_REQUIRE_SMTP=1` (as in CI), which fails them instead.
    static var available: Bool {
        if python != nil { return true }
        if ProcessInfo.processInfo.environment["ONTHEMAP_TEST_REQUIRE_SMTP"] == "1" {
            Issue.record("ONTHEMAP_TEST_REQUIRE_SMTP=1 but no python3 with aiosmtpd: pip install -r Tests/E2E/requirements.txt")
        } else {
            print("Skipping the email delivery tests: no python3 with aiosmtpd (pip install -r Tests/E2E/requirements.txt)")
        }
        return false
    }

    let folder: URL
    let port: Int
    private let process: ChildProcess

    init(_ arguments: [String] = [], in directory: URL) async throws {
        let python = try #require(Self.python)
        folder = directory.appendingPathComponent("sink-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("sink.log")
        process = try ChildProcess(
            python, [Self.script.path, "--dir", folder.path] + arguments, stdout: log, stderr: log)
        let portFile = folder.appendingPathComponent("port")
        let deadline = Date().addingTimeInterval(20)
        while true {
            if let text = try? String(contentsOf: portFile, encoding: .utf8), let port = Int(text) {
                self.port = port
                return
            }
            guard process.isRunning, Date() < deadline else {
                let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                forceStop(process)
                throw CLITestError("smtp_sink.py did not start: \(output.suffix(2000))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    deinit { forceStop(process) }

    func stop() { forceStop(process) }

    struct Received: Decodable {
        let mailFrom: String
        let rcptTos: [String]
        let data: String
        let tls: Bool
        let auth: Bool
        enum CodingKeys: String, CodingKey {
            case mailFrom = "mail_from"
            case rcptTos = "rcpt_tos"
            case data, tls, auth
        }
    }

    /// What the relay accepted, oldest first.
    func messages() throws -> [Received] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { try JSONDecoder().decode(Received.self, from: Data(contentsOf: folder.appendingPathComponent($0))) }
    }

    /// A self-signed certificate for `localhost` (openssl), as (certificate, key) paths.
    static func makeCertificate(in directory: URL) throws -> (certificate: String, key: String) {
        let certificate = directory.appendingPathComponent("relay-cert.pem").path
        let key = directory.appendingPathComponent("relay-key.pem").path
        let openssl = try #require(
            ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            }, "openssl is needed to make the test relay's certificate")
        let process = try ChildProcess(
            URL(fileURLWithPath: openssl),
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
            ])
        guard process.waitUntilExit() == 0 else { throw CLITestError("openssl could not make a certificate") }
        return (certificate, key)
    }
}
