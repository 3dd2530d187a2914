import Foundation

/// The Udacity user shape (`GET /users/:key`): every field strict clients decode as
/// non-optional is present, arrays empty, `guard` `{}`.
public struct UdacityUserBody: Codable, Sendable, Equatable {
    public struct Email: Codable, Sendable, Equatable {
        public let address: String
        public let _verified: Bool
        public let _verification_code_sent: Bool
    }

    public let key: String
    public let first_name: String
    public let last_name: String
    public let nickname: String
    public let email: Email
    public var social_accounts: [String] = []
    public var `guard`: [String: String] = [:]
    public var _badges: [String] = []
    public var _principals: [String] = []
    public var _enrollments: [String] = []
    public var external_accounts: [String] = []
    public var tags: [String] = []
    public var _affiliate_profiles: [String] = []
    public var _memberships: [String] = []
    public var _cohort_keys: [String] = []
    public var _has_password = true
    public var employer_sharing = false
    public var _registered = true
    public let _image_url: String

    /// A user as others see it; `email` empty unless the reader is its owner.
    public init(key: String, firstName: String, lastName: String, email: String) {
        self.key = key
        first_name = firstName
        last_name = lastName
        nickname = [firstName, lastName].filter { !$0.isEmpty }.joined(separator: " ")
        self.email = Email(address: email, _verified: false, _verification_code_sent: false)
        _image_url = "https://robohash.org/udacity-\(key)"
    }
}

/// The answer to `GET /users/:key`: the user's fields at the top level (v1 clients) plus a
/// `"user"` copy (older clients).
public struct UdacityUserAnswer: Encodable, Sendable {
    public let user: UdacityUserBody

    public init(_ user: UdacityUserBody) {
        self.user = user
    }

    enum CodingKeys: String, CodingKey { case user }

    public func encode(to encoder: any Encoder) throws {
        try user.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(user, forKey: .user)
    }
}
