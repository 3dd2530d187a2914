import Hummingbird
import Logging
import Storage

/// The context of the administrator routes: a route in a group of this context runs only
/// for a signed-in administrator (anyone else gets 401 or 403 before the route reads its
/// body or its target), and reads that administrator from `administrator`.
struct AdministratorContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let administrator: SignedIn
    let clientAddress: String
    let isHTTPS: Bool

    static let notSignedIn = SignInRequired.api("Log in as an administrator.")
    static let notAdministrator = APIError(.forbidden, "forbidden", "Only the community's administrators may do this.")

    init(context: AppRequestContext) throws {
        let caller = try context.requireSignedIn(Self.notSignedIn)
        guard caller.isAdministrator else { throw Self.notAdministrator }
        coreContext = context.coreContext
        administrator = caller
        clientAddress = context.clientAddress
        isHTTPS = context.isHTTPS
    }

    var maxUploadSize: Int { AppRequestContext.transportBodyLimit }
}

/// The context of a class's moderation routes: a route in a group of this context runs only
/// for a moderator or teacher of the request's class, or an administrator (`ClassAccess`).
/// Built from the class's own context, so it cannot exist without the class.
struct ModeratorContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let moderator: SignedIn
    let mapClass: MapClass
    let clientAddress: String
    let isHTTPS: Bool

    init(context: ClassRequestContext) throws {
        moderator = try context.classAccess.requireModerator(.api)
        mapClass = context.mapClass
        coreContext = context.coreContext
        clientAddress = context.clientAddress
        isHTTPS = context.isHTTPS
    }

    var maxUploadSize: Int { AppRequestContext.transportBodyLimit }
}
