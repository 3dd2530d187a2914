import Foundation
import HTTPTypes
import Hummingbird
import OnTheMapModels
import Storage

/// The course roster, for the class's teachers (see `LTIRosterSync` for how it is fetched).
extension LTIController {
    func addRoutes(api: RouterGroup<AppRequestContext>) {
        api.get("classes/:slug/course-roster", use: courseRoster)
    }

    struct RosterView: Encodable {
        struct Line: Encodable {
            let name: String
            let roles: [String]
            let role: ClassRole?
            /// What the course's roles make them (`LTIRoles`, as a launch would): the web app's
            /// answer for someone not in the class.
            let course_role: ClassRole
            let member: Bool
            let on_map: Bool
        }
        /// Null until the first sync.
        @ExplicitNull var synced_at: String?
        let members: [Line]
    }

    /// `GET /api/classes/:slug/course-roster` (teachers): the course's members as the
    /// platform last gave them, with who is in the class and who has put themselves on the map.
    @Sendable func courseRoster(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (found, access) = try await ClassAccess.named(
            context.parameters.get("slug") ?? "", for: context.caller,
            directory: provisioning.directory, store: store)
        _ = try access.requireTeacher(.api)
        let roster = try await store.roster(classID: found.id)
        return try JSONResponse.make(
            RosterView(
                synced_at: roster.syncedAt.map { ParseDate.string(from: $0) },
                members: roster.lines.map {
                    .init(
                        name: $0.entry.name, roles: $0.entry.roles, role: $0.role,
                        course_role: LTIRoles.classRole($0.entry.roles), member: $0.role != nil, on_map: $0.onMap)
                }))
    }
}
