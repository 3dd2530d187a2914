import Foundation

/// A logged-in Udacity session: what the server answered to `POST /session`.
public struct UdacitySession: Codable, Sendable, Hashable {
    /// The account's key, which is also the `uniqueKey` of its StudentLocation records.
    public var accountKey: String
    /// The session id; sent as `X-Parse-Session-Token` and the `onthemap_session` cookie.
    public var sessionID: String
    /// When the session stops working, if the server said (`session.expiration`).
    public var expiration: Date?
    /// The `XSRF-TOKEN` cookie value set at login, echoed as `X-XSRF-TOKEN` on logout.
    public var xsrfToken: String?

    public init(accountKey: String, sessionID: String, expiration: Date?, xsrfToken: String? = nil) {
        self.accountKey = accountKey
        self.sessionID = sessionID
        self.expiration = expiration
        self.xsrfToken = xsrfToken
    }

    public func isExpired(at now: Date = Date()) -> Bool {
        guard let expiration else { return false }
        return expiration <= now
    }

    /// Parses the `expiration` strings servers send: Parse's 3-digit fraction, the old API's
    /// 6 digits, or none.
    static func parseExpiration(_ text: String) -> Date? {
        if let date = ParseDate.date(from: text) { return date }
        // Trim a longer fraction to milliseconds: "2015-05-10T16:48:30.760460Z".
        guard let dot = text.firstIndex(of: "."), text.hasSuffix("Z") else { return nil }
        let digits = text[text.index(after: dot)..<text.index(before: text.endIndex)]
        guard digits.count > 3, digits.allSatisfy(\.isNumber) else { return nil }
        return ParseDate.date(from: text[..<dot] + "." + digits.prefix(3) + "Z")
    }
}

/// The session both clients share: `UdacityClient` fills it at login and clears it at
/// logout, `StudentLocationClient` sends it with writes. Thread-safe.
public final class SessionStore: @unchecked Sendable {
    private let lock = NSLock()
    private var value: UdacitySession?

    public init(_ session: UdacitySession? = nil) { value = session }

    /// The current session, nil when logged out. Set it to restore a saved session.
    public var session: UdacitySession? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return value
        }
        set {
            lock.lock()
            value = newValue
            lock.unlock()
        }
    }

    /// Headers that authenticate a request, empty when logged out.
    var authenticationHeaders: [String: String] {
        guard let session else { return [:] }
        var cookie = "onthemap_session=\(session.sessionID)"
        if let xsrf = session.xsrfToken { cookie += "; XSRF-TOKEN=\(xsrf)" }
        return ["X-Parse-Session-Token": session.sessionID, "Cookie": cookie]
    }
}
