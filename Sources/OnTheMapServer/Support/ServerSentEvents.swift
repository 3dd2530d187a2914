import HTTPTypes
import Hummingbird
import NIOCore

/// Server-Sent Events (the `text/event-stream` format of the HTML standard), written in one
/// place for every stream the server answers: the live map's changes and an album's events.
/// Data is always one line of JSON, so each event has one `data:` line.
enum ServerSentEvents {
    /// The answer's headers: the type, no caching, and no buffering by a proxy (nginx reads
    /// `X-Accel-Buffering`), so each event reaches the client as it is written.
    static var headers: HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-cache, no-store"
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        return headers
    }

    /// A comment line that keeps idle connections (and the proxies between) open.
    static let keepAlive = ByteBuffer(string: ": keep-alive\n\n")

    /// How long an EventSource waits before it reconnects.
    static func retry(milliseconds: Int) -> ByteBuffer {
        ByteBuffer(string: "retry: \(milliseconds)\n\n")
    }

    /// One event whose data is `value` as JSON.
    static func event(_ name: String, json value: some Encodable, retry: Int? = nil) throws -> ByteBuffer {
        let data = try JSONResponse.encoder.encode(value)
        var buffer = ByteBufferAllocator().buffer(capacity: data.count + 64)
        write(name, id: nil, retry: retry, into: &buffer) { $0.writeBytes(data) }
        return buffer
    }

    /// Writes one event into `buffer`: `retry:`, `id:` and `event:` lines as given, then the
    /// `data:` line whose JSON `data` writes.
    static func write(_ name: String, id: String?, retry: Int? = nil, into buffer: inout ByteBuffer, data: (inout ByteBuffer) -> Void) {
        if let retry { buffer.writeString("retry: \(retry)\n") }
        if let id { buffer.writeString("id: \(id)\n") }
        buffer.writeString("event: \(name)\ndata: ")
        data(&buffer)
        buffer.writeStaticString("\n\n")
    }
}
