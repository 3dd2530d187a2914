import Foundation
import Hummingbird
import Localization

/// `PUT /api/account/language` `{"language": "de"}`: the language the account chose for the
/// web app, kept with the account so it follows the student to every device (`null` forgets
/// it: the browser's languages decide again). `GET /api/account` answers it.
extension AccountController {
    struct LanguageChoice: Codable {
        @ExplicitNull var language: String?
    }

    @Sendable func setLanguage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.requireSignedIn(.api("Log in to choose your language.")).account
        let body = try await request.collectBody(limit: configuration.maxBodySize) { APIError.tooLarge }
        guard let choice = try? JSONDecoder().decode(LanguageChoice.self, from: body) else {
            throw APIError(.badRequest, "invalid_body", #"Send a JSON object {"language": "<tag>"} (or null to forget it)."#)
        }
        var tag: String?
        if let asked = choice.language {
            guard let language = Language.allCases.first(where: { $0.tag.lowercased() == asked.lowercased() }) else {
                let offered = Language.allCases.map(\.tag).joined(separator: ", ")
                throw APIError(.badRequest, "invalid_language", "language must be one of \(offered), or null.")
            }
            tag = language.tag
        }
        guard try await store.setAccountLanguage(tag, accountKey: me.key) else {
            throw APIError(.unauthorized, "invalid_session", "Your session has ended or is not valid; log in again.")
        }
        return try JSONResponse.make(LanguageChoice(language: tag))
    }
}
