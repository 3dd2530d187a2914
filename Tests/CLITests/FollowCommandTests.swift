import Foundation
import OnTheMapKit
import Testing

/// `onthemap students --follow` run as a process: the list, then a line per change, each
/// printed as it happens (the test reads them while the command is still running).
@Suite("onthemap students --follow", .serialized)
struct FollowCommandTests {
    @Test func printsTheSnapshotThenEachChangeAsItHappens() async throws {
        let sandbox = try CLISandbox()
        let server = try await ServerProcess(sandbox: sandbox)
        defer { server.stop() }
        try await server.signUp(email: "ada@example.com", password: "analytical engine")
        let (udacity, locations) = StudentLocationClient.clients(configuration: OnTheMapConfiguration(server: server.url, timeout: 60))
        let session = try await udacity.login(email: "ada@example.com", password: "analytical engine")
        func input(_ place: String, _ latitude: Double) -> StudentLocationInput {
            StudentLocationInput(
                uniqueKey: session.accountKey, firstName: "Ada", lastName: "Lovelace", mapString: place,
                mediaURL: "https://example.com/ada", latitude: latitude, longitude: 2)
        }
        _ = try await locations.post(input("Oslo, Norway", 59.9))

        // The map is its members': the command reads it with the saved session.
        let login = try sandbox.run(
            ["login", "--email", "ada@example.com", "--server", server.url.absoluteString], stdin: "analytical engine\n")
        #expect(login.status == 0, "\(login)")
        let output = sandbox.directory.appendingPathComponent("follow.out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = try ChildProcess(
            sandbox.binary, ["students", "--follow", "--json", "--server", server.url.absoluteString],
            environment: sandbox.environment(), stdout: output)
        defer { forceStop(process) }

        func lines(atLeast count: Int) async throws -> [[String: Any]] {
            let deadline = Date().addingTimeInterval(30)
            while true {
                let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
                let parsed = text.split(separator: "\n").compactMap {
                    (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
                }
                if parsed.count >= count { return parsed }
                guard Date() < deadline, process.isRunning else {
                    throw CLITestError("wanted \(count) lines, have: \(text)")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }

        let snapshot = try await lines(atLeast: 1)[0]
        #expect(snapshot["event"] as? String == "snapshot")
        let listed = try #require(snapshot["locations"] as? [[String: Any]])
        #expect(listed.map { $0["mapString"] as? String } == ["Oslo, Norway"])

        let created = try await locations.post(input("Lima, Peru", -12.05))
        _ = try await locations.update(objectId: created.objectId, with: input("Cusco, Peru", -13.5))
        try await locations.delete(objectId: created.objectId)

        let changes = Array(try await lines(atLeast: 4).dropFirst())
        #expect(changes.map { $0["event"] as? String } == ["created", "updated", "deleted"])
        #expect((changes[0]["location"] as? [String: Any])?["mapString"] as? String == "Lima, Peru")
        #expect((changes[1]["location"] as? [String: Any])?["mapString"] as? String == "Cusco, Peru")
        #expect(changes[2]["objectId"] as? String == created.objectId)
        let versions = changes.compactMap { ($0["version"] as? NSNumber)?.int64Value }
        let start = try #require((snapshot["version"] as? NSNumber)?.int64Value)
        #expect(versions.count == 3 && versions == versions.sorted() && versions[0] > start)
        #expect(process.isRunning, "--follow keeps running")
    }

    @Test func aServerThatIsDownIsANetworkErrorNotAHang() throws {
        let sandbox = try CLISandbox()
        let port = try freePort()
        // The first snapshot cannot be had: the command says so and exits instead of retrying forever.
        let result = try sandbox.run(["students", "--follow", "--server", "http://127.0.0.1:\(port)"], timeout: 60)
        #expect(result.status == 2, "\(result)")
        #expect(result.errorLines.first?.contains("refused") == true, "\(result)")
    }
}
