import Foundation
import OnTheMapModels

/// What an email says: a subject, plain text, and the same as simple HTML.
public struct MailContent: Sendable, Equatable {
    public var subject: String
    public var text: String
    public var html: String
    /// Where a mail app's one-click "unsubscribe" posts (RFC 8058), for emails someone asked
    /// for and may stop: sent as `List-Unsubscribe` with `List-Unsubscribe-Post`.
    public var oneClickStop: String?

    public init(subject: String, text: String, html: String, oneClickStop: String? = nil) {
        self.subject = subject
        self.text = text
        self.html = html
        self.oneClickStop = oneClickStop
    }

    /// HTML for `paragraphs` (escaped), with `link` as a button-like link after the first.
    public static func simpleHTML(lang: String, paragraphs: [String], link: (text: String, url: String)? = nil) -> String {
        var body = ""
        for (index, paragraph) in paragraphs.enumerated() {
            body += "<p>\(escape(paragraph))</p>\n"
            if index == 0, let link {
                body += "<p><a href=\"\(escape(link.url))\">\(escape(link.text))</a></p>\n"
            }
        }
        return """
            <!DOCTYPE html>
            <html lang="\(escape(lang))"><head><meta charset="utf-8"></head>
            <body style="font-family: sans-serif; line-height: 1.5">
            \(body)</body></html>
            """
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// One message as the relay receives it: the envelope and the RFC 5322 text (CRLF lines, 7-bit:
/// UTF-8 bodies in base64, headers in RFC 2047 encoded words).
public struct OutgoingMessage: Sendable, Equatable {
    public var sender: String
    public var recipient: String
    /// `<…@…>`, stable across retries so a relay or reader can tell a resend from a new message.
    public var messageID: String
    public var data: String

    public init(sender: String, recipient: String, messageID: String, data: String) {
        self.sender = sender
        self.recipient = recipient
        self.messageID = messageID
        self.data = data
    }
}

/// Writes messages: multipart/alternative (text, then HTML), UTF-8 in base64, encoded headers,
/// a Date and a Message-ID.
public enum MailComposer {
    public static func compose(
        from sender: MailAddress, to recipient: String, content: MailContent, date: Date, messageID: String? = nil
    ) -> OutgoingMessage {
        let domain = sender.address.split(separator: "@").last.map(String.init) ?? "localhost"
        let id = messageID ?? "<\(Tokens.randomHex(bytes: 16))@\(domain)>"
        let boundary = "=_otm_\(Tokens.randomHex(bytes: 12))"
        var lines = [
            "From: \(mailbox(sender))",
            "To: \(recipient)",
            "Subject: \(encodedWords(content.subject, prefixLength: 9))",
            "Date: \(rfc5322Date(date))",
            "Message-ID: \(id)",
            "MIME-Version: 1.0",
            "Auto-Submitted: auto-generated",
        ]
        if let stop = content.oneClickStop {
            lines += ["List-Unsubscribe: <\(stop)>", "List-Unsubscribe-Post: List-Unsubscribe=One-Click"]
        }
        lines += [
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
            "",
            "This is a message in MIME format.",
        ]
        for (type, body) in [("text/plain", content.text), ("text/html", content.html)] {
            lines += [
                "--\(boundary)", "Content-Type: \(type); charset=utf-8", "Content-Transfer-Encoding: base64", "",
            ]
            lines += base64Lines(body.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n"))
        }
        lines.append("--\(boundary)--")
        return OutgoingMessage(sender: sender.address, recipient: recipient, messageID: id, data: lines.joined(separator: "\r\n") + "\r\n")
    }

    /// `"Name" <address>`, the name encoded when it is not plain ASCII.
    static func mailbox(_ address: MailAddress) -> String {
        guard let name = address.name, !name.isEmpty else { return address.address }
        let plain = name.unicodeScalars.allSatisfy { $0.value >= 32 && $0.value < 127 && $0 != "\"" && $0 != "\\" }
        return (plain ? "\"\(name)\"" : encodedWords(name, prefixLength: 6)) + " <\(address.address)>"
    }

    /// `text` as is when it is printable ASCII, else as RFC 2047 `=?UTF-8?B?…?=` words (each at
    /// most 75 characters, never splitting a character), folded onto continuation lines.
    static func encodedWords(_ text: String, prefixLength: Int) -> String {
        let flat = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        if flat.unicodeScalars.allSatisfy({ $0.value >= 32 && $0.value < 127 }), flat.count + prefixLength <= 78 { return flat }
        // 45 bytes of UTF-8 make 60 characters of base64: 72 with the wrapper.
        var words: [String] = []
        var chunk = Data()
        for character in flat {
            let bytes = Data(String(character).utf8)
            if chunk.count + bytes.count > 45, !chunk.isEmpty {
                words.append("=?UTF-8?B?\(chunk.base64EncodedString())?=")
                chunk = Data()
            }
            chunk.append(bytes)
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?\(chunk.base64EncodedString())?=") }
        return words.joined(separator: "\r\n ")
    }

    static func base64Lines(_ text: String) -> [String] {
        let encoded = Data(text.utf8).base64EncodedString()
        var lines: [String] = []
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let end = encoded.index(index, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
            lines.append(String(encoded[index..<end]))
            index = end
        }
        return lines
    }

    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
