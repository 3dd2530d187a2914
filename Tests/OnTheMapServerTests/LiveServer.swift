import Foundation
import HummingbirdTesting
import Testing

@testable import OnTheMapServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `body` with the port of a fresh server listening on a real socket.
func withLiveServer(_ adjust: (inout Configuration) -> Void, _ body: @Sendable (Int) async throws -> Void) async throws {
    try await withLiveServer(adjust) { port, _ in try await body(port) }
}

/// Runs `body` with the port and the configuration of a fresh server listening on a real socket.
func withLiveServer(_ adjust: (inout Configuration) -> Void, _ body: @Sendable (Int, Configuration) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onthemap-tests-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    var configuration = testConfiguration(dataDirectory: directory)
    configuration.host = "127.0.0.1"
    adjust(&configuration)
    let settings = configuration
    try await setDefaultClass(.public, configuration: settings)
    let app = try await buildApplication(configuration: settings, logger: testLogger)
    try await app.test(.live) { client in
        try await body(try #require(client.port), settings)
    }
}

/// A plain TCP connection, for what an HTTP client library would not do: stall, trickle, hold.
/// `@unchecked Sendable`: one test uses a socket at a time; reads move to a thread of their own.
final class RawSocket: @unchecked Sendable {
    let descriptor: Int32
    private var isOpen = true

    init(port: Int) throws {
        #if canImport(Glibc)
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard descriptor >= 0, connected == 0 else { throw TestFailure("cannot connect to port \(port)") }
    }

    deinit { close() }

    func close() {
        guard isOpen else { return }
        isOpen = false
        closeDescriptor(descriptor)
    }

    /// False when the peer has closed the connection.
    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { sendBytes(descriptor, $0.baseAddress, $0.count) } == bytes.count
    }

    /// Reads until the peer closes, `stopAfter` appears, or `seconds` pass.
    func read(until seconds: TimeInterval, stopAfter marker: String? = nil) -> (text: String, closed: Bool) {
        read(until: seconds, done: { text in marker.map { text.contains($0) } ?? false })
    }

    /// Reads until the peer closes, `done` holds for what arrived, or `seconds` pass.
    func read(until seconds: TimeInterval, done: (String) -> Bool) -> (text: String, closed: Bool) {
        let deadline = Date().addingTimeInterval(seconds)
        var received: [UInt8] = []
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return (String(decoding: received, as: UTF8.self), false) }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(remaining * 1000) + 1) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (String(decoding: received, as: UTF8.self), true) }
            received += buffer[0..<count]
            let text = String(decoding: received, as: UTF8.self)
            if done(text) { return (text, false) }
        }
    }
}

private func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(descriptor)
    #else
        _ = Darwin.close(descriptor)
    #endif
}

private func sendBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    // MSG_NOSIGNAL: a closed peer must not kill the test process with SIGPIPE.
    #if canImport(Glibc)
        Glibc.send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
    #else
        Darwin.send(descriptor, bytes, count, 0)
    #endif
}

/// Sends `request` on a new connection and reads the answer until the server closes it (or
/// `stopAfter` appears), on a thread of its own: a blocking read on one of the few threads
/// Swift concurrency has would starve the server under test of the thread it answers on.
func rawExchange(port: Int, _ request: String, stopAfter marker: String? = nil, timeout: TimeInterval = 30) async throws -> String {
    try await rawStream(port: port, request, timeout: timeout) { text in marker.map { text.contains($0) } ?? false }
}

extension RawSocket {
    /// `read(until:stopAfter:)` on a thread of its own (see `rawExchange`).
    func readAsync(until seconds: TimeInterval, stopAfter marker: String? = nil) async -> (text: String, closed: Bool) {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.read(until: seconds, stopAfter: marker)) }
        }
    }
}

/// Opens `request` on a new connection and reads until `done` holds for what has arrived (or
/// the server closes, or `timeout` passes), off the cooperative pool like `rawExchange`.
func rawStream(port: Int, _ request: String, timeout: TimeInterval = 30, until done: @escaping @Sendable (String) -> Bool) async throws
    -> String
{
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            do {
                let socket = try RawSocket(port: port)
                _ = socket.send(Array(request.utf8))
                continuation.resume(returning: socket.read(until: timeout, done: done).text)
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}

/// The body of a raw HTTP/1.1 answer, its chunked framing removed (a last chunk cut short by
/// the reader is kept as far as it arrived).
func dechunkedBody(_ raw: String) -> String {
    guard let split = raw.range(of: "\r\n\r\n") else { return "" }
    let head = raw[..<split.lowerBound].lowercased()
    var rest = Substring(raw[split.upperBound...])
    guard head.contains("transfer-encoding: chunked") else { return String(rest) }
    var body = ""
    while let lineEnd = rest.range(of: "\r\n"), let size = Int(rest[..<lineEnd.lowerBound], radix: 16) {
        if size == 0 { break }
        let data = rest[lineEnd.upperBound...]
        let chunk = data.utf8.prefix(size)
        body += String(decoding: chunk, as: UTF8.self)
        guard data.utf8.count >= size + 2 else { break }
        rest = Substring(String(decoding: data.utf8.dropFirst(size + 2), as: UTF8.self))
    }
    return body
}
