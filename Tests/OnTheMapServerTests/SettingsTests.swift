import Foundation
import Testing

@testable import OnTheMapServer

/// Every setting is declared once (`Settings.all`): the command line, the environment, the
/// docs' table and `buildApplication` all follow that declaration and `Configuration.validate()`.
@Suite("Settings")
struct SettingsTests {
    @Test("a flag wins over its environment variable, which wins over the default; lists and flags read both ways")
    func precedence() throws {
        let environment = [
            "ONTHEMAP_PORT": "9000", "ONTHEMAP_HOST": "0.0.0.0", "ONTHEMAP_ALLOWED_ORIGINS": "https://a.example, https://b.example",
            "ONTHEMAP_DEMO": "yes", "AWS_DEFAULT_REGION": "eu-west-3", "ONTHEMAP_OIDC_PROVIDERS": "",
            "LOG_LEVEL": "warning",
        ]
        let fromEnvironment = try Settings.configuration(arguments: [], environment: environment)
        #expect(fromEnvironment.port == 9000 && fromEnvironment.host == "0.0.0.0" && fromEnvironment.demo)
        #expect(fromEnvironment.allowedOrigins == ["https://a.example", "https://b.example"])
        #expect(fromEnvironment.photoStoreRegion == "eu-west-3" && fromEnvironment.logLevel == .warning)
        let fromFlags = try Settings.configuration(
            arguments: [
                "--port", "0", "--host=127.0.0.1", "--allowed-origin", "https://c.example", "--allowed-origin", "https://d.example",
                "--no-list-cache", "--bcrypt-cost", "4",
            ],
            environment: environment)
        #expect(
            fromFlags.port == 0 && fromFlags.host == "127.0.0.1" && fromFlags.allowedOrigins == ["https://c.example", "https://d.example"])
        #expect(!fromFlags.cacheListResponses && fromFlags.bcryptCost == 4)
        let defaults = try Settings.configuration(arguments: [], environment: [:])
        #expect(defaults.port == Configuration().port && defaults.host == Configuration().host && defaults.cacheListResponses)
    }

    @Test("what the command line refuses, buildApplication refuses with the same words")
    func sameRefusals() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-settings-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases: [([String], @Sendable (inout Configuration) -> Void)] = [
            (["--port", "99999"], { $0.port = 99999 }),
            (["--bcrypt-cost", "2"], { $0.bcryptCost = 2 }),
            (["--photos-per-album", "0"], { $0.photosPerAlbum = 0 }),
            (["--photo-redirect-seconds", "10"], { $0.photoRedirectSeconds = 10 }),
            (["--query-timeout", "0"], { $0.queryTimeout = 0 }),
            (["--max-connections", "0"], { $0.maxConnections = 0 }),
            (["--allowed-origin", "not an origin"], { $0.allowedOrigins = ["not an origin"] }),
            (["--public-url", "ftp://x"], { $0.publicURL = "ftp://x" }),
            (["--trusted-proxy", "nowhere"], { $0.trustedProxies = ["nowhere"] }),
            (["--geocoder-upstream-url", "file:///etc/passwd"], { $0.geocoderUpstreamURL = "file:///etc/passwd" }),
            (["--facebook-app-id", "123"], { $0.facebook = FacebookSettings(appID: "123", appSecret: "") }),
        ]
        for (arguments, adjust) in cases {
            var commandLine: String?
            do { _ = try Settings.configuration(arguments: arguments, environment: [:]) } catch let error as ConfigurationError {
                commandLine = error.description
            }
            var configuration = testConfiguration(dataDirectory: directory)
            adjust(&configuration)
            var built: String?
            do { _ = try await buildApplication(configuration: configuration, logger: testLogger) } catch let error as ConfigurationError {
                built = error.description
            }
            #expect(commandLine != nil, "\(arguments)")
            #expect(commandLine == built, "\(arguments)")
        }
    }

    @Test("unknown options, missing values and stray words are clear errors")
    func badArguments() {
        for arguments in [["--bogus"], ["--port"], ["serve"], ["--demo=1"], ["--port", "eighty"]] {
            #expect(throws: ConfigurationError.self, "\(arguments)") { try Settings.configuration(arguments: arguments, environment: [:]) }
        }
    }

    @Test("the hosting guide's settings table is the one the declaration makes")
    func docsTable() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/hosting.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let begin = try #require(text.range(of: "<!-- settings:begin"))
        let afterMarker = try #require(text.range(of: "-->\n", range: begin.upperBound..<text.endIndex))
        let end = try #require(text.range(of: "\n<!-- settings:end -->", range: afterMarker.upperBound..<text.endIndex))
        let table = String(text[afterMarker.upperBound..<end.lowerBound])
        #expect(
            table == Settings.markdownTable, "docs/hosting.md's table is out of date: replace it with `swift run onthemap settings-table`")
        // Every setting has a flag or an environment variable, and no two share one.
        let flags = Settings.all.compactMap(\.flag)
        #expect(Set(flags).count == flags.count)
        let variables = Settings.all.flatMap(\.environment)
        #expect(Set(variables).count == variables.count)
    }
}
