import Foundation

/// The five bytes the Udacity API puts before every response body (docs/api/udacity-session.md §1.2).
/// Clients skip them without looking, so the value only has to be five bytes long.
public let udacityResponsePrefix = ")]}'\n"

/// `POST /session` success body.
public struct SessionResponse: Codable, Sendable, Equatable {
    public struct Account: Codable, Sendable, Equatable {
        public var registered: Bool
        public var key: String
        public init(registered: Bool, key: String) {
            self.registered = registered
            self.key = key
        }
    }
    public struct Session: Codable, Sendable, Equatable {
        public var id: String
        public var expiration: String
        public init(id: String, expiration: String) {
            self.id = id
            self.expiration = expiration
        }
    }
    public var account: Account
    public var session: Session
    public init(account: Account, session: Session) {
        self.account = account
        self.session = session
    }
}

/// `DELETE /session` body.
public struct LogoutResponse: Codable, Sendable, Equatable {
    public var session: SessionResponse.Session
    public init(session: SessionResponse.Session) { self.session = session }
}

/// Udacity-style error: `{"status":403,"error":"..."}`, with `parameter` for a missing field.
public struct UdacityErrorBody: Codable, Sendable, Equatable {
    public var status: Int
    public var parameter: String?
    public var error: String
    public init(status: Int, parameter: String? = nil, error: String) {
        self.status = status
        self.parameter = parameter
        self.error = error
    }
}

/// Parse-style error: `{"code":101,"error":"Object not found."}`.
public struct ParseErrorBody: Codable, Sendable, Equatable {
    public var code: Int
    public var error: String
    public init(code: Int, error: String) {
        self.code = code
        self.error = error
    }
}

/// `POST /StudentLocation` answer.
public struct CreatedResponse: Codable, Sendable, Equatable {
    public var createdAt: String
    public var objectId: String
    public init(createdAt: String, objectId: String) {
        self.createdAt = createdAt
        self.objectId = objectId
    }
}

/// `PUT /StudentLocation/:id` answer.
public struct UpdatedResponse: Codable, Sendable, Equatable {
    public var updatedAt: String
    public init(updatedAt: String) { self.updatedAt = updatedAt }
}

/// Our own `/api/...` error shape: `{"error":{"code":"email_taken","message":"..."}}`.
public struct APIErrorBody: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
        public var code: String
        public var message: String
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }
    public var error: Detail
    public init(code: String, message: String) { self.error = Detail(code: code, message: message) }
}

/// `POST /api/users` request body.
public struct SignUpRequest: Codable, Sendable, Equatable {
    public var email: String
    public var password: String
    public var firstName: String
    public var lastName: String
    enum CodingKeys: String, CodingKey {
        case email, password
        case firstName = "first_name"
        case lastName = "last_name"
    }
    public init(email: String, password: String, firstName: String, lastName: String) {
        self.email = email
        self.password = password
        self.firstName = firstName
        self.lastName = lastName
    }
}

/// `POST /api/users` answer: `{"account":{"key":"..."}}`.
public struct SignUpResponse: Codable, Sendable, Equatable {
    public struct Account: Codable, Sendable, Equatable {
        public var key: String
        public init(key: String) { self.key = key }
    }
    public var account: Account
    public init(key: String) { self.account = Account(key: key) }
}

/// `POST /api/account/password` request body.
public struct PasswordChangeRequest: Codable, Sendable, Equatable {
    public var currentPassword: String
    public var newPassword: String
    enum CodingKeys: String, CodingKey {
        case currentPassword = "current_password"
        case newPassword = "new_password"
    }
    public init(currentPassword: String, newPassword: String) {
        self.currentPassword = currentPassword
        self.newPassword = newPassword
    }
}

/// `POST /api/account/password` answer: how many other sessions were ended.
public struct PasswordChangeResponse: Codable, Sendable, Equatable {
    public var endedSessions: Int
    enum CodingKeys: String, CodingKey { case endedSessions = "ended_sessions" }
    public init(endedSessions: Int) { self.endedSessions = endedSessions }
}

/// The public credentials hard-coded in the original clients (docs/api/udacity-session.md §1.1); our
/// server accepts them by default so those clients work unchanged.
public enum ParseCredentials {
    public static let applicationID = "QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr"
    public static let restAPIKey = "QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY"
}

/// `PUT /api/account/name`: the signed-in account's new first and last name, which every post
/// of theirs in every class takes at once. The answer is the same shape, with the names as kept
/// (trimmed).
public struct NameChangeRequest: Codable, Sendable, Equatable {
    public var firstName: String
    public var lastName: String
    enum CodingKeys: String, CodingKey {
        case firstName = "first_name"
        case lastName = "last_name"
    }
    public init(firstName: String, lastName: String) {
        self.firstName = firstName
        self.lastName = lastName
    }
}
