import Foundation
import HTTPTypes
import Hummingbird
import Localization

/// Why a launch, login or registration stops: a page the person reads, inside the course, in
/// their language (`lti.<name>.title` and `.message` of the server's catalogue, then "open
/// OnTheMap again" when `tryAgain`). Its text never carries a token; `logReason` is what the
/// server log says.
struct LTIProblem: Error, CustomStringConvertible {
    let status: HTTPResponse.Status
    let title: LocalizedText
    let message: LocalizedText
    let logReason: String

    init(
        _ status: HTTPResponse.Status, _ name: String, _ arguments: [String: MessageArgument] = [:], tryAgain: Bool = false,
        log: String? = nil
    ) {
        let title = LocalizedText("lti.\(name).title", arguments)
        self.init(
            status, title: title, message: LocalizedText("lti.\(name).message", arguments, then: tryAgain ? [Self.tryAgain] : []),
            log: log)
    }

    init(_ status: HTTPResponse.Status, title: LocalizedText, message: LocalizedText, log: String? = nil) {
        self.status = status
        self.title = title
        self.message = message
        self.logReason = log ?? title.description
    }

    var description: String { logReason }

    static let tryAgain = LocalizedText("lti.tryAgain")

    static func launchRefused(_ why: String) -> LTIProblem {
        LTIProblem(.forbidden, "notVerified", ["reason": .text(why)], tryAgain: true, log: why)
    }

    static let internalKeyMissing = LTIProblem(.internalServerError, "noSigningKey", tryAgain: true)
}

/// The pages LTI answers with, inside the platform's frame: plain HTML that works without
/// script, never cached, never sending a Referer, framable by the registered platforms only.
enum LTIPages {
    /// `frameAncestors`: the registered platforms' origins (none: not framable).
    static func headers(frameAncestors: [String], formTargets: [String] = [], script: Bool = false) -> HTTPFields {
        var fields = HTTPFields()
        fields[.cacheControl] = "no-store"
        fields[.contentType] = "text/html; charset=utf-8"
        fields[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        fields[.xContentTypeOptions] = "nosniff"
        let ancestors = frameAncestors.isEmpty ? "'none'" : frameAncestors.joined(separator: " ")
        let forms = (["'self'"] + formTargets).joined(separator: " ")
        fields[.contentSecurityPolicy] = [
            "default-src 'none'", "style-src 'self'", "img-src 'self'", script ? "script-src 'self'" : nil,
            script ? "connect-src 'self'" : nil,
            "base-uri 'none'", "form-action \(forms)", "frame-ancestors \(ancestors)",
        ].compactMap { $0 }.joined(separator: "; ")
        if frameAncestors.isEmpty { fields[HTTPField.Name("X-Frame-Options")!] = "DENY" }
        return fields
    }

    static func problem(_ problem: LTIProblem, language: Language, frameAncestors: [String]) -> Response {
        page(
            problem.status, title: problem.title.text(in: language), language: language,
            body: #"<p id="lti-problem">\#(escape(problem.message.text(in: language)))</p>"#,
            headers: headers(frameAncestors: frameAncestors))
    }

    /// The page a launch lands on. With script, it opens the class map at once when the
    /// session cookie reached the server (`/lti/launch.js`); otherwise, or where the browser
    /// keeps cookies from frames, the person picks: the map here, or a window of its own.
    static func launched(className: String, mapPath: String, windowPath: String, language: Language, frameAncestors: [String]) -> Response {
        let say = Translator(language)
        let body = """
            <p>\(html(say, "lti.launched.signedIn", ["class": bold(className)]))</p>
            <p><a id="open-map" class="button" href="\(escape(mapPath))">\(escape(say("lti.launched.openMap")))</a></p>
            <p id="lti-window-note">\(escape(say("lti.launched.cookieNote")))
            <a id="open-window" href="\(escape(windowPath))" target="_blank" rel="noopener">\(escape(say("lti.launched.openWindow")))</a></p>
            <script src="/lti/launch.js"></script>
            """
        return page(.ok, title: className, language: language, body: body, headers: headers(frameAncestors: frameAncestors, script: true))
    }

    /// `text` escaped, in <strong>, isolated from the sentence's direction (a Latin class name
    /// in an Arabic sentence): for a message's argument, the message being escaped already.
    static func bold(_ text: String) -> String {
        #"<strong dir="auto">\#(escape(text))</strong>"#
    }

    /// A message of `say`'s whose arguments are HTML already (from `bold`): the message's own
    /// text escaped, the arguments kept.
    static func html(_ say: Translator, _ key: String, _ arguments: [String: String]) -> String {
        var placeholders: [String: MessageArgument] = [:]
        for name in arguments.keys { placeholders[name] = .text("\u{1}\(name)\u{1}") }
        var text = escape(say(key, placeholders))
        for (name, value) in arguments { text = text.replacingOccurrences(of: "\u{1}\(name)\u{1}", with: value) }
        return text
    }

    static func page(_ status: HTTPResponse.Status, title: String, language: Language, body: String, headers: HTTPFields) -> Response {
        var headers = headers
        headers[.contentLanguage] = language.tag
        let html = """
            <!doctype html>
            <html \(SignInPage.htmlLanguage(language))><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)) · OnTheMap</title><link rel="stylesheet" href="/css/app.css"></head>
            <body><main class="signin-problem lti-page"><h1>\(escape(title))</h1>
            \(body)
            </main></body></html>
            """
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func escape(_ text: String) -> String { SignInPage.escape(text) }

    /// Opens the class map when the launch's session works here (a frame whose cookies the
    /// browser keeps); otherwise leaves the choice on the page.
    static let launchScript = """
        (function () {
          var map = document.getElementById("open-map");
          if (!map || !window.fetch) return;
          fetch("/api/account", { credentials: "same-origin", headers: { Accept: "application/json" } })
            .then(function (response) { if (response.ok) window.location.replace(map.getAttribute("href")); })
            .catch(function () {});
        })();
        """

    /// Tells the platform that opened the registration page that it may close it
    /// (Dynamic Registration 1.0 §3.6.2).
    static let registeredScript = """
        (function () {
          var target = window.opener || window.parent;
          if (target && target !== window) target.postMessage({ subject: "org.imsglobal.lti.close" }, "*");
        })();
        """
}
