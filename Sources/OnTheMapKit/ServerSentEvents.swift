import Foundation

/// One event of a `text/event-stream`, as the HTML standard's parsing rules assemble it.
public struct ServerSentEvent: Sendable, Hashable {
    /// The `event:` field; "message" when the server named none.
    public var event: String
    public var data: String
    /// The `id:` field of this event, if it had one.
    public var id: String?
}

/// Turns the bytes of an event stream into events, however the network splits them.
/// Follows the standard's rules: lines end in LF, CR or CRLF; `:` starts a comment (the
/// server's heartbeats); `data:` lines join with newlines; an empty line dispatches; `retry:`
/// takes digits only; an `id` containing NUL is ignored.
struct ServerSentEventParser: Sendable {
    /// The last id seen, even on events without one (what a reconnect sends as Last-Event-ID).
    private(set) var lastEventID: String?
    /// The reconnection delay the server asked for, in milliseconds.
    private(set) var retryMilliseconds: Int?
    /// Bytes after the last complete line; bounded so a stream without line ends cannot
    /// grow memory forever.
    private var pending: [UInt8] = []
    private var skipLineFeed = false
    private var eventType = ""
    private var data = ""
    private var hasData = false
    private var eventID: String?
    let maximumLineLength: Int

    init(maximumLineLength: Int = 1 << 20) {
        self.maximumLineLength = maximumLineLength
    }

    enum Failure: Error, Equatable { case lineTooLong }

    /// Feeds the next chunk; returns the events it completed.
    mutating func feed(_ bytes: some Sequence<UInt8>) throws(Failure) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if skipLineFeed {
                skipLineFeed = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0A, 0x0D:
                skipLineFeed = byte == 0x0D
                let line = String(decoding: pending, as: UTF8.self)
                pending.removeAll(keepingCapacity: true)
                if let event = process(line: line) { events.append(event) }
            default:
                guard pending.count < maximumLineLength else { throw .lineTooLong }
                pending.append(byte)
            }
        }
        return events
    }

    private mutating func process(line: String) -> ServerSentEvent? {
        if line.isEmpty { return dispatch() }
        if line.hasPrefix(":") { return nil }
        let field: Substring
        let value: Substring
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            var rest = line[line.index(after: colon)...]
            if rest.first == " " { rest = rest.dropFirst() }
            value = rest
        } else {
            field = line[...]
            value = ""
        }
        switch field {
        case "event": eventType = String(value)
        case "data":
            if hasData { data += "\n" }
            data += value
            hasData = true
        case "id":
            if !value.contains("\u{0}") {
                eventID = String(value)
                lastEventID = eventID
            }
        case "retry":
            if !value.isEmpty, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let milliseconds = Int(value) {
                retryMilliseconds = milliseconds
            }
        default: break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            eventType = ""
            data = ""
            hasData = false
            eventID = nil
        }
        guard hasData else { return nil }
        return ServerSentEvent(event: eventType.isEmpty ? "message" : eventType, data: data, id: eventID)
    }
}
