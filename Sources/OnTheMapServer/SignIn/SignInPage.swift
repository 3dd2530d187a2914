import Foundation
import HTTPTypes
import Hummingbird

/// The few pages the browser flow answers with: a redirect, or a plain page saying what went
/// wrong with a way back. Never cached, never sending a Referer (the URL held a code).
enum SignInPage {
    static func headers() -> HTTPFields {
        var fields = HTTPFields()
        fields[.cacheControl] = "no-store"
        fields[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        fields[HTTPField.Name("Content-Security-Policy")!] = "default-src 'none'; style-src 'self'; frame-ancestors 'none'; form-action 'self'"
        fields[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        return fields
    }

    static func redirect(to location: String) -> Response {
        var fields = headers()
        fields[.location] = location
        return Response(status: .seeOther, headers: fields)
    }

    static func problem(_ status: HTTPResponse.Status, _ title: String, _ message: String) -> Response {
        page(status, title: title, paragraph: #"<p id="signin-problem">\#(escape(message))</p>"#,
             link: #"<a href="/#/login">Back to the login page</a>"#)
    }

    /// A page that tells the person something before they go on to `continueTo` (a path on
    /// this server, or an app's loopback address).
    static func notice(title: String, message: String, continueTo: String, continueLabel: String) -> Response {
        page(.ok, title: title, paragraph: #"<p id="signin-notice">\#(escape(message))</p>"#,
             link: #"<a id="signin-continue" href="\#(escape(continueTo))">\#(escape(continueLabel))</a>"#)
    }

    /// A plain page: a heading, a paragraph and a link (both already escaped).
    private static func page(_ status: HTTPResponse.Status, title: String, paragraph: String, link: String) -> Response {
        var fields = headers()
        fields[.contentType] = "text/html; charset=utf-8"
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)) · OnTheMap</title><link rel="stylesheet" href="/css/app.css"></head>
            <body><main class="signin-problem"><h1>\(escape(title))</h1>\(paragraph)
            <p>\(link)</p></main></body></html>
            """
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
