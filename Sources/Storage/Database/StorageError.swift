public enum StorageError: Error, Equatable, CustomStringConvertible {
    case emailTaken
    /// A class with this slug exists.
    case slugTaken
    /// An LTI platform with this issuer and client id is registered.
    case platformExists
    /// Refused, nothing changed: the account is the last enabled administrator.
    case lastAdministrator
    case unsupportedDatabaseURL(String)
    case invalidDatabaseURL(String, String)
    case migrationFailed(String)
    /// The database could not be opened or reached: which one (password masked), and why.
    case databaseUnavailable(String, String)
    /// A copy's destination already holds data in this table.
    case destinationNotEmpty(String)
    /// Text the database cannot hold (PostgreSQL refuses NUL characters).
    case unstorableText
    /// A `$regex` the database's regular-expression engine refuses.
    case unsupportedPattern(String)
    /// The statement ran past `QueryLimits.timeout` and was cancelled, or no connection
    /// (or turn for a `$regex` query) came free within it.
    case queryTimeout

    /// Errors caused by what a client sent, not by the server: answer them with a 400.
    public var isCausedByInput: Bool {
        switch self {
        case .unstorableText, .unsupportedPattern: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .emailTaken: "An account with this email already exists."
        case .slugTaken: "A class with this slug already exists."
        case .platformExists: "A platform with this issuer and client id is already registered."
        case .lastAdministrator: "This is the last enabled administrator: promote another account first."
        case .unsupportedDatabaseURL(let url):
            "Unsupported database URL '\(url)': use sqlite:///path/to/file.sqlite or postgres://user:password@host:port/database"
        case .invalidDatabaseURL(let url, let reason): "Invalid database URL '\(url)': \(reason)."
        case .migrationFailed(let reason): "Database migration failed: \(reason)"
        case .databaseUnavailable(let url, let reason): "Cannot open the database \(url): \(reason)."
        case .destinationNotEmpty(let table):
            "The destination database is not empty (table \(table) has rows); copy into a new, empty database."
        case .unstorableText: "Text must not contain NUL characters."
        case .unsupportedPattern(let reason): "Unsupported regular expression: \(reason)"
        case .queryTimeout: "The query took longer than the server allows; simplify it or try again."
        }
    }
}
