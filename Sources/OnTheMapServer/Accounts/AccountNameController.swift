import Foundation
import Hummingbird
import OnTheMapModels
import Storage

/// `PUT /api/account/name` `{"first_name","last_name"}`: a student corrects their name. The
/// names keep sign-up's rules (`AccountController.checkNames`); the account and every post of
/// theirs in every class change in one transaction, through `LocationWrites`, so lists,
/// snapshots, the live map and old clients' Parse reads show the new name at once.
struct AccountNameController: Sendable {
    let configuration: Configuration
    let writes: LocationWrites

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.put("account/name", use: rename)
    }

    @Sendable func rename(_ request: Request, context: AppRequestContext) async throws -> Response {
        let me = try context.requireSignedIn(.api("Log in to change your name.")).account
        let body = try await request.collectBody(limit: configuration.maxBodySize) { APIError.tooLarge }
        guard let form = try? JSONDecoder().decode(NameChangeRequest.self, from: body) else {
            throw APIError(.badRequest, "invalid_body", "Send a JSON object with first_name and last_name (strings).")
        }
        let (firstName, lastName) = try AccountController.checkNames(first: form.firstName, last: form.lastName)
        guard let classes = try await writes.renameAccount(key: me.key, firstName: firstName, lastName: lastName) else {
            throw APIError(.unauthorized, "invalid_session", "Your session has ended or is not valid; log in again.")
        }
        context.logger.info("account renamed", metadata: ["account": "\(me.key)", "classes": "\(classes.count)"])
        return try JSONResponse.make(NameChangeRequest(firstName: firstName, lastName: lastName))
    }
}
