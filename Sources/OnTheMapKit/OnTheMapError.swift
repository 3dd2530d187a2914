import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything that can go wrong talking to the OnTheMap APIs, split by what the user has to
/// be told. `errorDescription` is a sentence a UI can show as is.
public enum OnTheMapError: Error, Sendable, Hashable, LocalizedError {
    /// The server could not be reached: offline, connection refused, unknown host, or the
    /// connection dropped mid-answer. `detail` says which, in plain words.
    case noConnection(detail: String)
    /// No answer within the configured timeout.
    case timedOut
    /// The session API answered 403: the email or password is wrong.
    case badCredentials(message: String)
    /// The call needs a session and the client has none (or it has expired).
    case notLoggedIn
    /// The server refused the caller (401/403): expired session, not the owner of the
    /// record, wrong Parse application id. `code` is the Parse code when there is one.
    case unauthorized(code: Int?, message: String)
    /// The server rejected the request as invalid (4xx), with the Parse `code` or Udacity
    /// `status` body it sent, e.g. 101 "Object not found.".
    case rejected(status: Int, code: Int?, message: String)
    /// The server failed (5xx), with the message it sent if any.
    case serverFailure(status: Int, message: String?)
    /// The answer arrived but could not be read: not JSON, truncated, missing fields.
    case unreadableResponse(detail: String)
    /// The server does not offer this feature (e.g. geocoding answered 404).
    case unavailable(feature: String)
    /// The caller passed something the SDK cannot send (e.g. an unusable URL).
    case invalidInput(String)
    /// The request was cancelled by the caller.
    case cancelled

    /// Broad families, e.g. to choose an icon, a retry button or a process exit code.
    public enum Kind: Sendable, Hashable {
        case network, authentication, server, request
    }

    public var kind: Kind {
        switch self {
        case .noConnection, .timedOut, .cancelled: .network
        case .badCredentials, .notLoggedIn, .unauthorized: .authentication
        case .serverFailure, .unreadableResponse, .unavailable: .server
        case .rejected, .invalidInput: .request
        }
    }

    /// Whether trying again later may help (network trouble or a server failure).
    public var isTransient: Bool {
        switch self {
        case .noConnection, .timedOut, .serverFailure: true
        default: false
        }
    }

    public var errorDescription: String? {
        switch self {
        case .noConnection(let detail):
            "Cannot reach the OnTheMap server: \(detail). Check your connection and the server address."
        case .timedOut:
            "The server took too long to answer. Try again in a moment."
        case .badCredentials:
            "Wrong email or password."
        case .notLoggedIn:
            "You are not logged in. Log in first."
        case .unauthorized(_, let message):
            "The server refused this: \(Self.sentence(message)) Try logging in again."
        case .rejected(_, let code, let message):
            if let code {
                "The server rejected the request: \(Self.sentence(message)) (code \(code))"
            } else {
                "The server rejected the request: \(Self.sentence(message))"
            }
        case .serverFailure(let status, let message):
            if let message, !message.isEmpty {
                "The server failed (HTTP \(status)): \(Self.sentence(message)) Try again later."
            } else {
                "The server failed (HTTP \(status)). Try again later."
            }
        case .unreadableResponse(let detail):
            "The server sent an answer that could not be read (\(detail))."
        case .unavailable(let feature):
            "\(feature.prefix(1).uppercased() + feature.dropFirst()) is unavailable on this server."
        case .invalidInput(let message):
            message
        case .cancelled:
            "The request was cancelled."
        }
    }

    /// "message" → "message." unless it already ends with punctuation.
    private static func sentence(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let last = trimmed.last else { return "no details." }
        return ".!?".contains(last) ? trimmed : trimmed + "."
    }

    /// Maps a transport failure from URLSession.
    static func from(transport error: any Error) -> OnTheMapError {
        guard let urlError = error as? URLError else {
            return .noConnection(detail: "network error (\(error.localizedDescription))")
        }
        switch urlError.code {
        case .timedOut:
            return .timedOut
        case .cancelled:
            return .cancelled
        case .cannotConnectToHost:
            return .noConnection(detail: "the connection was refused (is the server running?)")
        case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff:
            return .noConnection(detail: "this device is offline")
        case .cannotFindHost, .dnsLookupFailed:
            return .noConnection(detail: "the server name could not be found")
        case .networkConnectionLost:
            return .noConnection(detail: "the connection was lost before the answer was complete")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            return .noConnection(detail: "a secure connection could not be made")
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData,
            .cannotDecodeContentData, .zeroByteResource:
            return .unreadableResponse(detail: "malformed HTTP answer")
        case .badURL, .unsupportedURL:
            return .invalidInput("The server address is not a usable URL.")
        default:
            return .noConnection(detail: "network error \(urlError.code.rawValue)")
        }
    }
}
