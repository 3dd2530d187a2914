import Crypto
import Foundation
import Localization
import OnTheMapKit
import OnTheMapModels

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `onthemap login --provider NAME`: sign in through the browser, as a native app does
/// (RFC 8252). A one-shot HTTP listener on a loopback port receives a one-time code from
/// the server, which the CLI trades, with a PKCE verifier only it knows, for a session.
enum ProviderLogin {
    static func run(server: URL, provider: String, openBrowser: Bool, timeout: TimeInterval = 300) async throws -> (UdacitySession, String?)
    {
        guard provider.count <= 32, provider.allSatisfy({ ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }), !provider.isEmpty
        else {
            throw ClientFailure.user(say("cli.provider.badName", ["provider": .text(provider), "server": .text(server.absoluteString)]))
        }
        let verifier = Tokens.random()
        let challenge = Tokens.base64URL(Data(SHA256.hash(data: Data(verifier.utf8))))
        let listener = try LoopbackListener()
        defer { listener.close() }
        let redirect = "http://127.0.0.1:\(listener.port)/callback"
        var components = URLComponents(url: server, resolvingAgainstBaseURL: false)!
        components.path = "/auth/\(provider)/start"
        components.queryItems = [
            URLQueryItem(name: "client_redirect", value: redirect), URLQueryItem(name: "client_challenge", value: challenge),
        ]
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(
            of: "/", with: "%2F")
        let url = components.url!.absoluteString
        Console.writeErr(say("cli.provider.openAddress", ["provider": .text(provider)]) + "\n")
        // Unbuffered: whoever reads this (a person, a script) needs it now, not at exit.
        FileHandle.standardOutput.write(Data((url + "\n").utf8))
        if openBrowser { launchBrowser(url) }
        let target = try await listener.waitForRequest(timeout: timeout)
        guard let query = URLComponents(string: "http://loopback" + target)?.queryItems,
            let code = query.first(where: { $0.name == "code" })?.value, !code.isEmpty
        else {
            throw ClientFailure.auth(say("cli.provider.noCode"))
        }
        return try await trade(server: server, code: code, verifier: verifier)
    }

    /// `POST /api/auth/token`; answers the session and the account's email.
    static func trade(server: URL, code: String, verifier: String) async throws -> (UdacitySession, String?) {
        var request = URLRequest(url: server.appendingPathComponent("api/auth/token"), timeoutInterval: 30)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["code": code, "code_verifier": verifier])
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200, let body = try? JSONDecoder().decode(SessionResponse.self, from: data) else {
            throw ClientFailure.auth(say("cli.provider.notAccepted", ["status": .text(String(status))]))
        }
        let session = UdacitySession(
            accountKey: body.account.key, sessionID: body.session.id,
            expiration: ParseDate.date(from: body.session.expiration))
        var me = URLRequest(url: server.appendingPathComponent("api/auth/me"), timeoutInterval: 30)
        me.setValue(session.sessionID, forHTTPHeaderField: "X-Parse-Session-Token")
        let email = (try? await URLSession.shared.data(for: me)).flatMap { data, _ in
            (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["email"] as? String
        }
        return (session, email)
    }

    private static func launchBrowser(_ url: String) {
        #if os(macOS)
            let opener = "/usr/bin/open"
        #else
            let opener = "/usr/bin/xdg-open"
        #endif
        guard FileManager.default.isExecutableFile(atPath: opener) else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opener)
        process.arguments = [url]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }
}

/// One HTTP request on 127.0.0.1 (any free port): reads its request line, answers a short
/// page telling the user to go back to the terminal, and hands the target to the caller.
final class LoopbackListener: @unchecked Sendable {
    private var socketFD: Int32
    let port: Int

    init() throws {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw ClientFailure.user(say("cli.provider.noPort")) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 4) == 0 else {
            Glibc_close(fd)
            throw ClientFailure.user(say("cli.provider.noListen"))
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        socketFD = fd
        port = Int(UInt16(bigEndian: actual.sin_port))
    }

    func close() {
        if socketFD >= 0 {
            Glibc_close(socketFD)
            socketFD = -1
        }
    }

    /// Waits for a request whose path is `/callback`; others (a favicon) get a 404.
    func waitForRequest(timeout: TimeInterval) async throws -> String {
        let fd = socketFD
        let deadline = Date().addingTimeInterval(timeout)
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                while Date() < deadline {
                    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    guard poll(&poller, 1, 500) > 0 else { continue }
                    let client = accept(fd, nil, nil)
                    guard client >= 0 else { continue }
                    var buffer = [UInt8](repeating: 0, count: 8192)
                    var received = 0
                    while received < buffer.count {
                        let count = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress! + received, $0.count - received) }
                        if count <= 0 { break }
                        received += count
                        if String(decoding: buffer[..<received], as: UTF8.self).contains("\r\n\r\n") { break }
                    }
                    let head = String(decoding: buffer[..<received], as: UTF8.self)
                    let parts = head.split(separator: "\r\n").first?.split(separator: " ") ?? []
                    let target = parts.count >= 2 ? String(parts[1]) : ""
                    let isCallback = target.hasPrefix("/callback")
                    let page =
                        isCallback
                        ? "<!doctype html><html lang=\"\(say.language.tag)\" dir=\"\(say.language.isRightToLeft ? "rtl" : "ltr")\"><title>OnTheMap</title><p>\(say("cli.provider.signedInPage"))</p>"
                        : "Not found"
                    let reply =
                        "HTTP/1.1 \(isCallback ? "200 OK" : "404 Not Found")\r\nContent-Type: text/html; charset=utf-8\r\n"
                        + "Content-Length: \(page.utf8.count)\r\nCache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nConnection: close\r\n\r\n"
                        + page
                    _ = reply.withCString { write(client, $0, strlen($0)) }
                    Glibc_close(client)
                    if isCallback {
                        continuation.resume(returning: target)
                        return
                    }
                }
                continuation.resume(throwing: ClientFailure.auth(say("cli.provider.timedOut", ["count": .number(Int(timeout / 60))])))
            }
        }
    }
}

private func Glibc_close(_ fd: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(fd)
    #else
        _ = Darwin.close(fd)
    #endif
}
