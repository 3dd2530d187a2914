import Foundation
import OnTheMapModels

/// The body of `POST /session`, read as leniently as the old clients write it.
enum LoginBody {
    enum Credential: Equatable {
        case udacity(username: String, password: String)
        case facebook(token: String)
    }

    /// Reads `{"udacity":{"username":…,"password":…}}` or `{"facebook_mobile":{"access_token":…}}`. Exactly one credential is allowed.
    /// Some clients build this body by string interpolation, so a password containing `"`
    /// arrives as invalid JSON: that exact shape is still understood.
    static func credential(from body: Data) throws -> Credential {
        guard let json = JSONValue.parse(body) else {
            if let recovered = interpolatedCredentials(String(decoding: body, as: UTF8.self)) {
                return .udacity(username: recovered.username, password: recovered.password)
            }
            throw UdacityError(status: 400, "Malformed JSON body: expected {\"udacity\":{\"username\":\"…\",\"password\":\"…\"}}.")
        }
        guard let object = json.objectValue else {
            throw UdacityError(status: 400, "Malformed JSON body: expected an object.")
        }
        let credentialKinds = object.keys.filter { $0 == "udacity" || $0 == "facebook_mobile" }
        if credentialKinds.count > 1 {
            throw UdacityError(status: 400, "Send exactly one credential: udacity or facebook_mobile, not both.")
        }
        if let facebook = object["facebook_mobile"] {
            // `{"facebook_mobile":{"access_token":"…"}}`; some clients append a stray `;`.
            guard var token = facebook.objectValue?["access_token"]?.stringValue else {
                throw UdacityError(
                    status: 400, parameter: "facebook_mobile",
                    "trails.Error 400: Parameter 'facebook_mobile' must be an object with access_token")
            }
            token = token.trimmingCharacters(in: .whitespaces)
            if token.hasSuffix(";") { token.removeLast() }
            guard !token.isEmpty, token.utf8.count <= 1024,
                token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.|".contains($0)) })
            else {
                throw UdacityError.invalidCredentials
            }
            return .facebook(token: token)
        }
        guard let udacity = object["udacity"] else {
            throw UdacityError(status: 400, parameter: "udacity", "trails.Error 400: Missing parameter 'udacity'")
        }
        guard let fields = udacity.objectValue else {
            throw UdacityError(status: 400, parameter: "udacity", "trails.Error 400: Parameter 'udacity' must be an object")
        }
        guard let username = fields["username"]?.stringValue, !username.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw UdacityError.missing("username")
        }
        guard let password = fields["password"]?.stringValue, !password.isEmpty else {
            throw UdacityError.missing("password")
        }
        return .udacity(username: username, password: password)
    }

    /// The optional top-level `"shared_computer": true` our web app adds to its login body ("This
    /// is a shared computer": the session's cookies end when the browser closes). Old clients
    /// never send it, so their bodies read as before; absent, `null` or `false` is no. Any other
    /// value is refused, as the credential's own mistakes are.
    static func sharedComputer(from body: Data) throws -> Bool {
        guard let object = JSONValue.parse(body)?.objectValue, let value = object["shared_computer"] else { return false }
        switch value {
        case .null: return false
        case .bool(let flag): return flag
        default:
            throw UdacityError(
                status: 400, parameter: "shared_computer", "trails.Error 400: Parameter 'shared_computer' must be true or false")
        }
    }

    /// `{"udacity": {"username": "<u>", "password": "<p>"}}` where `<p>` may hold unescaped quotes.
    static func interpolatedCredentials(_ text: String) -> (username: String, password: String)? {
        let pattern = #"^\s*\{\s*"udacity"\s*:\s*\{\s*"username"\s*:\s*"([^"\\]*)"\s*,\s*"password"\s*:\s*"(.*)"\s*\}\s*\}\s*$"#
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators]),
            let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
            let userRange = Range(match.range(at: 1), in: text),
            let passwordRange = Range(match.range(at: 2), in: text)
        else { return nil }
        let username = String(text[userRange])
        let password = String(text[passwordRange])
        guard !username.isEmpty, !password.isEmpty else { return nil }
        return (username, password)
    }
}
