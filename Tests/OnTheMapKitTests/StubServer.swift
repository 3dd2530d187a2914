import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tiny blocking HTTP/1.1 server on a loopback port, for answers a healthy server never
/// gives: truncated bodies, 500s, bodies shorter than the Udacity prefix, silence.
final class StubServer: @unchecked Sendable {
    struct Request: Sendable {
        var method: String
        var target: String
        var headers: [String: String]  // lower-cased names
        var body: Data

        var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }
        var query: [String: String] {
            guard let components = URLComponents(string: "http://stub" + target) else { return [:] }
            var result: [String: String] = [:]
            for item in components.queryItems ?? [] { result[item.name] = item.value ?? "" }
            return result
        }
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
    }

    enum Reply: Sendable {
        case respond(status: Int, body: Data, headers: [(String, String)] = [])
        /// Announces `declaredLength` bytes, sends `body`, closes the connection.
        case truncated(status: Int, declaredLength: Int, body: Data)
        /// Never answers (until the server stops).
        case silence

        static func json(_ status: Int, _ text: String, headers: [(String, String)] = []) -> Reply {
            .respond(status: status, body: Data(text.utf8), headers: headers)
        }
    }

    let port: Int
    private let listener: Int32
    private let handler: @Sendable (Request) -> Reply
    private let lock = NSLock()
    private var recorded: [Request] = []
    private var stopped = false

    init(handler: @escaping @Sendable (Request) -> Reply) throws {
        self.handler = handler
        let (fd, port) = try Self.bindLoopback()
        listener = fd
        self.port = port
        guard listen(fd, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    var requests: [Request] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    func stop() {
        lock.lock()
        let wasStopped = stopped
        stopped = true
        lock.unlock()
        guard !wasStopped else { return }
        _ = shutdown(listener, Int32(SHUT_RDWR))
        _ = close(listener)
    }

    /// A port on which nothing listens (bound, then closed).
    static func refusedPort() throws -> Int {
        let (fd, port) = try bindLoopback()
        _ = close(fd)
        return port
    }

    private static func bindLoopback() throws -> (Int32, Int) {
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            _ = close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                lock.lock()
                let done = stopped
                lock.unlock()
                if done { return }
                continue
            }
            #if canImport(Darwin)
                var one: Int32 = 1
                _ = setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let connection = Thread { [self] in serve(client) }
            connection.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer { _ = close(fd) }
        guard let request = readRequest(fd) else { return }
        lock.lock()
        recorded.append(request)
        lock.unlock()
        switch handler(request) {
        case .respond(let status, let body, let headers):
            var head = "HTTP/1.1 \(status) Stub\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
            if !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
                head += "Content-Type: application/json\r\n"
            }
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            write(fd, Data((head + "\r\n").utf8) + body)
        case .truncated(let status, let declared, let body):
            let head = "HTTP/1.1 \(status) Stub\r\nContent-Length: \(declared)\r\nContent-Type: application/json\r\n\r\n"
            write(fd, Data(head.utf8) + body)
        case .silence:
            while true {
                lock.lock()
                let done = stopped
                lock.unlock()
                if done { return }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    private func write(_ fd: Int32, _ data: Data) {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                #if canImport(Darwin)
                    let sent = send(fd, raw.baseAddress! + offset, raw.count - offset, 0)
                #else
                    let sent = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #endif
                if sent <= 0 { return }
                offset += sent
            }
        }
    }

    private func readRequest(_ fd: Int32) -> Request? {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        let separator = Data("\r\n\r\n".utf8)
        while buffer.range(of: separator) == nil {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
        let headEnd = buffer.range(of: separator)!
        let head = String(decoding: buffer[buffer.startIndex..<headEnd.lowerBound], as: UTF8.self)
        var body = Data(buffer[headEnd.upperBound...])
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "") ?? 0
        while body.count < length {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            body.append(contentsOf: chunk[0..<count])
        }
        return Request(
            method: String(requestLine[0]), target: String(requestLine[1]),
            headers: headers, body: body)
    }
}
