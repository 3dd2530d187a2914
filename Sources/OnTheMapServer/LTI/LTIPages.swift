import Foundation
import HTTPTypes
import Hummingbird

/// Why a launch, login or registration stops: a page the person reads, inside the course.
/// Its text never carries a token; `logReason` is what the server log says.
struct LTIProblem: Error, CustomStringConvertible {
    let status: HTTPResponse.Status
    let title: String
    let message: String
    let logReason: String

    init(_ status: HTTPResponse.Status, _ title: String, _ message: String, log: String? = nil) {
        self.status = status
        self.title = title
        self.message = message
        self.logReason = log ?? title
    }

    var description: String { logReason }

    static let tryAgain = "Open OnTheMap again from your course. If it keeps happening, tell whoever looks after the course."

    static func launchRefused(_ why: String) -> LTIProblem {
        LTIProblem(.forbidden, "This launch could not be verified",
                   "The course's message to OnTheMap did not pass its checks (\(why)), so nothing was created. \(tryAgain)", log: why)
    }

    static let internalKeyMissing = LTIProblem(.internalServerError, "OnTheMap has no signing key", "The server could not read its LTI key. \(tryAgain)")
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
            "default-src 'none'", "style-src 'self'", "img-src 'self'", script ? "script-src 'self'" : nil, script ? "connect-src 'self'" : nil,
            "base-uri 'none'", "form-action \(forms)", "frame-ancestors \(ancestors)",
        ].compactMap { $0 }.joined(separator: "; ")
        if frameAncestors.isEmpty { fields[HTTPField.Name("X-Frame-Options")!] = "DENY" }
        return fields
    }

    static func problem(_ problem: LTIProblem, frameAncestors: [String]) -> Response {
        page(problem.status, title: problem.title, body: #"<p id="lti-problem">\#(escape(problem.message))</p>"#,
             headers: headers(frameAncestors: frameAncestors))
    }

    /// The page a launch lands on. With script, it opens the class map at once when the
    /// session cookie reached the server (`/lti/launch.js`); otherwise, or where the browser
    /// keeps cookies from frames, the person picks: the map here, or a window of its own.
    static func launched(className: String, mapPath: String, windowPath: String, frameAncestors: [String]) -> Response {
        let body = """
            <p>You are signed in to the class map of <strong>\(escape(className))</strong>.</p>
            <p><a id="open-map" class="button" href="\(escape(mapPath))">Open the class map</a></p>
            <p id="lti-window-note">If the map asks you to log in, your browser keeps this site's cookies out of the course page:
            <a id="open-window" href="\(escape(windowPath))" target="_blank" rel="noopener">Open in a new window</a>.</p>
            <script src="/lti/launch.js"></script>
            """
        return page(.ok, title: className, body: body, headers: headers(frameAncestors: frameAncestors, script: true))
    }

    static func page(_ status: HTTPResponse.Status, title: String, body: String, headers: HTTPFields) -> Response {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
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
