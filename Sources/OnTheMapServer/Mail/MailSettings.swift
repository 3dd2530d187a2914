import Foundation

/// The host's SMTP relay, read from `--smtp-url`: `smtp://[user[:password]@]host[:587]` (STARTTLS
/// when the relay offers it; `?tls=required` refuses to go on without it) or
/// `smtps://[user[:password]@]host[:465]` (TLS from the first byte). `?ca-file=/path.pem` trusts
/// that certificate authority instead of the system's (a relay with a private CA). The password
/// may come from `ONTHEMAP_SMTP_PASSWORD` instead of the URL, so it never shows in `ps`.
public struct SMTPSettings: Sendable, Equatable {
    public enum Security: String, Sendable, Equatable {
        /// `smtp://`: STARTTLS when the relay offers it, plain text otherwise.
        case startTLSWhenOffered
        /// `smtp://…?tls=required`: STARTTLS or nothing.
        case startTLSRequired
        /// `smtps://`: TLS from the first byte.
        case implicitTLS
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var username: String?
    public var password: String?
    /// A PEM file of certificate authorities trusted instead of the system's.
    public var caFile: String?

    public init(
        host: String, port: Int, security: Security, username: String? = nil, password: String? = nil, caFile: String? = nil
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.caFile = caFile
    }

    /// Reads `--smtp-url`; `environmentPassword` (`ONTHEMAP_SMTP_PASSWORD`) wins over one in the URL.
    public static func parse(_ text: String, environmentPassword: String? = nil) throws -> SMTPSettings {
        func refuse(_ why: String) -> ConfigurationError {
            ConfigurationError("The SMTP URL \(why); write smtp://user@host:587 (STARTTLS) or smtps://user@host:465 (TLS).")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw refuse("is not a URL")
        }
        guard let host = components.host, !host.isEmpty else { throw refuse("has no host") }
        var security: Security
        switch scheme {
        case "smtp": security = .startTLSWhenOffered
        case "smtps": security = .implicitTLS
        default: throw refuse("must start with smtp:// or smtps://, not \(scheme)://")
        }
        var caFile: String?
        for item in components.queryItems ?? [] {
            switch (item.name.lowercased(), item.value ?? "") {
            case ("tls", "required"):
                guard security == .startTLSWhenOffered else { throw refuse("says tls=required, which smtps:// always is") }
                security = .startTLSRequired
            case ("tls", "optional"), ("tls", ""): break
            case ("ca-file", let path) where !path.isEmpty: caFile = path
            default: throw refuse("has an unknown option '\(item.name.prefix(30))' (known: tls=required, ca-file=PATH)")
            }
        }
        let port = components.port ?? (security == .implicitTLS ? 465 : 587)
        guard (1...65535).contains(port) else { throw refuse("has no valid port") }
        let password = environmentPassword.flatMap { $0.isEmpty ? nil : $0 } ?? components.percentEncodedPassword?.removingPercentEncoding
        let username = components.percentEncodedUser?.removingPercentEncoding.flatMap { $0.isEmpty ? nil : $0 }
        if password != nil, username == nil { throw refuse("has a password but no user (smtp://user@host)") }
        return SMTPSettings(
            host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port, security: security, username: username,
            password: password, caFile: caFile)
    }

    /// For logs and `admin mail test`: never the password.
    public var description: String {
        let scheme = security == .implicitTLS ? "smtps" : "smtp"
        let user = username.map { "\($0)@" } ?? ""
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        return "\(scheme)://\(user)\(host):\(port)\(security == .startTLSRequired ? "?tls=required" : "")"
    }

    /// Whether the relay runs on this machine: the only place a password may travel without TLS.
    var isLoopback: Bool {
        ["localhost", "127.0.0.1", "::1"].contains(host.lowercased()) || host.hasPrefix("127.")
    }
}

/// A mailbox: `On the Map <map@school.example>` or a bare address.
public struct MailAddress: Sendable, Equatable {
    public var name: String?
    public var address: String

    public init(name: String? = nil, address: String) {
        self.name = name
        self.address = address
    }

    /// Reads `Name <address>` or `address`; nil when there is no plausible address.
    public static func parse(_ text: String) -> MailAddress? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let open = trimmed.lastIndex(of: "<"), trimmed.hasSuffix(">") {
            let address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            var name = trimmed[..<open].trimmingCharacters(in: .whitespaces)
            if name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") { name = String(name.dropFirst().dropLast()) }
            guard isPlausible(address) else { return nil }
            return MailAddress(name: name.isEmpty ? nil : name, address: address)
        }
        return isPlausible(trimmed) ? MailAddress(address: trimmed) : nil
    }

    /// One `@`, something either side, nothing that could break an SMTP command or a header.
    public static func isPlausible(_ address: String) -> Bool {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            address.utf8.count <= 254
        else { return false }
        return !address.unicodeScalars.contains { $0.value <= 32 || "<>(),;:\"[]\\".unicodeScalars.contains($0) || $0.value == 127 }
    }
}

extension Configuration {
    /// The relay in effect (`--smtp-url` with `ONTHEMAP_SMTP_PASSWORD`); nil: email is not set up.
    public var smtp: SMTPSettings? {
        guard let smtpURL, !smtpURL.isEmpty else { return nil }
        return try? SMTPSettings.parse(smtpURL, environmentPassword: smtpPassword)
    }

    /// Who emails come from: `--mail-from`, else `On the Map <onthemap@host of the public URL>`.
    public var mailSender: MailAddress? {
        if let mailFrom, !mailFrom.isEmpty { return MailAddress.parse(mailFrom) }
        guard let origin = publicOrigin, let host = URLComponents(string: origin)?.host, host.contains(".") else { return nil }
        return MailAddress(name: "On the Map", address: "onthemap@\(host)")
    }

    /// What `validate()` says of the mail settings (nil: fine, including email not set up).
    func mailProblem() -> String? {
        guard let smtpURL, !smtpURL.isEmpty else {
            return mailFrom.map { _ in "--mail-from is set but --smtp-url is not: email needs the relay's address too." }
        }
        do {
            _ = try SMTPSettings.parse(smtpURL, environmentPassword: smtpPassword)
        } catch {
            return "\(error)"
        }
        guard publicOrigin != nil else {
            return "Email needs --public-url (every link in an email starts with it): set it, or remove --smtp-url to run without email."
        }
        guard mailSender != nil else {
            if let mailFrom, !mailFrom.isEmpty {
                return "--mail-from '\(mailFrom.prefix(80))' must look like \"On the Map <map@school.example>\" or map@school.example."
            }
            return "Email needs --mail-from \"On the Map <map@school.example>\" (the public URL's host has no domain to send from)."
        }
        return nil
    }
}

extension Configuration {
    /// The relay as a transport; nil when email is not set up.
    public var mailTransport: SMTPTransport? {
        guard let smtp else { return nil }
        let name = publicOrigin.flatMap { URLComponents(string: $0)?.host } ?? "localhost"
        return SMTPTransport(settings: smtp, clientName: name)
    }

    /// What every mail feature says when `--smtp-url` is not given.
    public static let mailNotSetUp =
        "Email is not set up on this server (the host has not given --smtp-url), so no email was sent."
}
