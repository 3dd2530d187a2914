import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import OnTheMapServer

/// The account's language (`PUT /api/account/language`, `GET /api/account`) and our own API's
/// error messages in the request's language, while codes and the old protocols stay as they are.
@Suite("Languages on the server")
struct LanguageAPITests {
    @Test("an account keeps its language, answers it with the account, forgets it on null, and refuses one we do not offer")
    func accountLanguage() async throws {
        try await withTestServer { client in
            let ana = try await client.makeUser()
            func language() async throws -> Any? {
                try await client.execute(uri: "/api/account", method: .get, headers: ana.cookieHeaders) { response throws in
                    #expect(response.status == .ok)
                    let account = try #require(try response.json["account"] as? [String: Any])
                    #expect(account.keys.contains("language"), "language is always answered, null when unset")
                    return account["language"]
                }
            }
            #expect(try await language() is NSNull)
            try await client.execute(
                uri: "/api/account/language", method: .put, headers: ana.cookieHeaders,
                body: jsonBody(["language": "PT-br"])
            ) { response throws in
                #expect(response.status == .ok)
                #expect(try response.json["language"] as? String == "pt-BR")
            }
            #expect(try await language() as? String == "pt-BR")
            try await client.execute(uri: "/api/account/data", method: .get, headers: ana.cookieHeaders) { response throws in
                let account = try #require(try response.json["account"] as? [String: Any])
                #expect(account["language"] as? String == "pt-BR", "the data download holds everything kept")
            }
            for bad: Any in ["sv", "", 42, "de-DE"] {
                try await client.execute(
                    uri: "/api/account/language", method: .put, headers: ana.cookieHeaders,
                    body: jsonBody(["language": bad])
                ) { response throws in
                    #expect(response.status == .badRequest)
                    let error = try #require(try response.json["error"] as? [String: Any])
                    #expect(["invalid_language", "invalid_body"].contains(error["code"] as? String ?? ""))
                }
            }
            #expect(try await language() as? String == "pt-BR", "a refused choice changes nothing")
            try await client.execute(
                uri: "/api/account/language", method: .put, headers: ana.cookieHeaders,
                body: jsonBody(["language": NSNull()])
            ) { response throws in
                #expect(response.status == .ok)
                #expect(try response.json["language"] is NSNull)
            }
            #expect(try await language() is NSNull)
            try await client.execute(
                uri: "/api/account/language", method: .put,
                body: jsonBody(["language": "de"])
            ) { response throws in
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test("our API's error message follows Accept-Language; its code, English and the old protocols' errors do not change")
    func errorMessages() async throws {
        try await withTestServer { client in
            let body = jsonBody(["email": "not an email", "password": "long enough password", "first_name": "A", "last_name": "B"])
            func signUp(_ acceptLanguage: String?) async throws -> (code: String?, message: String?, language: String?) {
                var headers: HTTPFields = [:]
                if let acceptLanguage { headers[.acceptLanguage] = acceptLanguage }
                return try await client.execute(uri: "/api/users", method: .post, headers: headers, body: body) { response throws in
                    #expect(response.status == .badRequest)
                    let error = try #require(try response.json["error"] as? [String: Any])
                    return (error["code"] as? String, error["message"] as? String, response.headers[.contentLanguage])
                }
            }
            let english = try await signUp(nil)
            #expect(english.code == "invalid_email")
            #expect(english.message == "Enter a valid email address, like name@example.com.")
            #expect(english.language == nil)
            #expect(try await signUp("en-GB,de;q=0.5").message == english.message)
            let german = try await signUp("de-DE,de;q=0.9,en;q=0.8")
            #expect(german.code == "invalid_email")
            #expect(german.message == "Gib eine gültige E-Mail-Adresse ein, etwa name@example.com.")
            #expect(german.language == "de")
            let arabic = try await signUp("ar")
            #expect(arabic.message == "أدخل عنوان بريد إلكتروني صالحًا، مثل name@example.com.")

            // The Udacity session API's error stays byte for byte what old apps read.
            let udacity = #"{"udacity":{"username":"nobody@example.com","password":"wrong"}}"#
            let answers = try await ["de", "ar", nil].asyncMap { (language: String?) -> String in
                var headers: HTTPFields = [.contentType: "application/json"]
                if let language { headers[.acceptLanguage] = language }
                return try await client.execute(uri: "/api/session", method: .post, headers: headers, body: textBody(udacity)) { response in
                    String(buffer: response.body)
                }
            }
            #expect(Set(answers).count == 1)
            #expect(answers[0].contains("Account not found or invalid credentials."))
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
