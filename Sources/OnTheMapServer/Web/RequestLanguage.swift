import Hummingbird
import Localization

/// The language of the pages and messages a person reads: the web app's choice (its
/// `onthemap_language` cookie, set when a student picks a language), else the browser's
/// `Accept-Language`, else English. The old protocols' answers never use it.
extension Request {
    static let languageCookieName = "onthemap_language"

    var language: Language {
        if let chosen = cookies[Self.languageCookieName]?.value, let language = Language(rawValue: String(chosen)) {
            return language
        }
        return Language.preferred(acceptLanguage: headers[.acceptLanguage])
    }
}
