/// A class's slug: the `<slug>` of `/c/<slug>`, chosen once when the class is made.
enum ClassSlug {
    /// Words the server's own paths use, and ones people would mistake for them.
    static let reserved: Set<String> = [
        "api", "v1", "parse", "c", "auth", "admin", "js", "css", "img", "health", "metrics", "openapi", "openapi-json",
        "classes", "class", "join", "new", "settings", "static", "www", "login", "logout", "session", "users", "reset",
        "map", "list", "travel", "account", "manifest", "sw", "index",
    ]

    /// Why `slug` cannot name a class, or nil when it can.
    static func problem(_ slug: String) -> String? {
        guard (2...40).contains(slug.count) else { return "A class's slug has 2 to 40 characters." }
        guard slug.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }) else {
            return "A class's slug uses only lower-case letters a to z, digits and hyphens."
        }
        guard !slug.hasPrefix("-"), !slug.hasSuffix("-") else { return "A class's slug neither starts nor ends with a hyphen." }
        guard !reserved.contains(slug) else { return "'\(slug)' is a word this server's own addresses use; choose another slug." }
        return nil
    }

    /// Whether `text` could be a slug at all (before asking whether a class has it).
    static func isWellFormed(_ text: String) -> Bool {
        (1...40).contains(text.utf8.count) && text.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }
    }
}
