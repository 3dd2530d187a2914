import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads a ListObjectsV2 answer (`ListBucketResult`).
final class ListBucketResultParser: NSObject, XMLParserDelegate {
    private(set) var objects: [S3Object] = []
    private(set) var truncated = false
    private(set) var nextToken: String?
    private var text = ""
    private var current: S3Object?

    static func parse(_ data: Data) -> ListBucketResultParser {
        let delegate = ListBucketResultParser()
        parseXML(data, with: delegate)
        return delegate
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        text = ""
        if name == "Contents" { current = S3Object(key: "", size: 0, etag: "", lastModified: nil, contentType: nil) }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        switch name {
        case "Key": current?.key = text
        case "Size": current?.size = Int(text) ?? 0
        case "ETag": current?.etag = S3Client.unquote(text)
        case "LastModified": current?.lastModified = Self.isoDate(text)
        case "Contents":
            if let current { objects.append(current) }
            current = nil
        case "IsTruncated": truncated = text == "true"
        case "NextContinuationToken": nextToken = text
        default: break
        }
        text = ""
    }

    static func isoDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}

/// Reads S3's `<Error><Code>…</Code><Message>…</Message></Error>` body.
final class ErrorBodyParser: NSObject, XMLParserDelegate {
    private(set) var code: String?
    private(set) var message: String?
    private var text = ""

    static func parse(_ data: Data) -> ErrorBodyParser {
        let delegate = ErrorBodyParser()
        guard !data.isEmpty else { return delegate }
        parseXML(data, with: delegate)
        return delegate
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "Code" { code = text }
        if name == "Message" { message = String(text.prefix(300)) }
        text = ""
    }
}

/// Reads `data` with `delegate`, never resolving external entities (a bucket's answer cannot
/// make the server read files or call addresses).
private func parseXML(_ data: Data, with delegate: some XMLParserDelegate) {
    let parser = XMLParser(data: data)
    parser.delegate = delegate
    parser.shouldResolveExternalEntities = false
    _ = parser.parse()
}
