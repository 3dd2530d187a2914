import Foundation
import HTTPTypes
import Hummingbird
import Localization

/// The few pages the browser flow answers with: a redirect, or a plain page saying what went
/// wrong with a way back. Never cached, never sending a Referer (the URL held a code).
enum SignInPage {
    static func headers() -> HTTPFields {
        var fields = HTTPFields()
        fields[.cacheControl] = "no-store"
        fields[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        fields[HTTPField.Name("Content-Security-Policy")!] =
            "default-src 'none'; style-src 'self'; frame-ancestors 'none'; form-action 'self'"
        fields[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        return fields
    }

    static func redirect(to location: String) -> Response {
        var fields = headers()
        fields[.location] = location
        return Response(status: .seeOther, headers: fields)
    }

    static func problem(_ status: HTTPResponse.Status, _ title: LocalizedText, _ message: LocalizedText, language: Language) -> Response {
        page(
            status, title: title.text(in: language), language: language,
            paragraph: #"<p id="signin-problem">\#(escape(message.text(in: language)))</p>"#,
            link: #"<a href="/#/login">\#(escape(LocalizedText("page.backToLogin").text(in: language)))</a>"#)
    }

    /// A page that tells the person something before they go on to `continueTo` (a path on
    /// this server, or an app's loopback address).
    static func notice(title: LocalizedText, message: LocalizedText, continueTo: String, continueLabel: LocalizedText, language: Language)
        -> Response
    {
        page(
            .ok, title: title.text(in: language), language: language,
            paragraph: #"<p id="signin-notice">\#(escape(message.text(in: language)))</p>"#,
            link: #"<a id="signin-continue" href="\#(escape(continueTo))">\#(escape(continueLabel.text(in: language)))</a>"#)
    }

    /// A plain page: a heading, a paragraph and a link (both already escaped).
    private static func page(_ status: HTTPResponse.Status, title: String, language: Language, paragraph: String, link: String) -> Response
    {
        var fields = headers()
        fields[.contentType] = "text/html; charset=utf-8"
        fields[.contentLanguage] = language.tag
        let html = """
            <!doctype html>
            <html \(htmlLanguage(language))><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)) · OnTheMap</title><link rel="stylesheet" href="/css/app.css"></head>
            <body><main class="signin-problem"><h1>\(escape(title))</h1>\(paragraph)
            <p>\(link)</p></main></body></html>
            """
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// `lang="ar" dir="rtl"`: the attributes of a page's <html> in `language`.
    static func htmlLanguage(_ language: Language) -> String {
        #"lang="\#(language.tag)" dir="\#(language.isRightToLeft ? "rtl" : "ltr")""#
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
