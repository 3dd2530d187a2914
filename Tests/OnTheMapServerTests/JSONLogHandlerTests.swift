import Foundation
import Logging
import Synchronization
import Testing

@testable import OnTheMapServer

@Suite("JSON logs")
struct JSONLogHandlerTests {
    @Test("each line is one JSON object with time, level, label, message, source and the metadata")
    func oneObjectPerLine() throws {
        let lines = Mutex<[String]>([])
        var logger = Logger(label: "onthemap") { JSONLogHandler(label: $0, write: { line in lines.withLock { $0.append(line) } }) }
        logger[metadataKey: "request_id"] = "abc"
        logger.info("GET /health 200", metadata: ["duration_ms": "1.25", "tags": ["a", "b"], "message": "not the message"])
        logger.debug("not at info level")
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        #expect(written[0].hasSuffix("\n") && written[0].dropLast().contains("\n") == false)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written[0].utf8)) as? [String: Any])
        #expect(object["level"] as? String == "info")
        #expect(object["label"] as? String == "onthemap")
        #expect(object["message"] as? String == "GET /health 200")
        #expect(object["request_id"] as? String == "abc")
        #expect(object["duration_ms"] as? String == "1.25")
        #expect(object["tags"] as? [String] == ["a", "b"])
        #expect((object["time"] as? String)?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
        #expect((object["source"] as? String)?.hasPrefix("JSONLogHandlerTests.swift:") == true)
    }
}
