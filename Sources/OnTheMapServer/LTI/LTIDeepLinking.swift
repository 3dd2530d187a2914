import Foundation
import HTTPTypes
import Hummingbird
import OnTheMapModels
import Storage

/// Deep Linking 2.0: a teacher's `LtiDeepLinkingRequest` shows a picker (the course's class,
/// or a new one; a plain form that works without script), and the choice goes back to the
/// platform as a signed `LtiResourceLink` whose custom `onthemap_class` names the class.
extension LTIController {

    struct DeepLinkTicket: Codable {
        let platformID: String
        let deploymentID: String
        let contextID: String
        let contextTitle: String?
        let returnURL: String
        let data: String?
    }

    func deepLinkingRequest(_ claims: LTILaunchClaims, platform: LTIPlatform, request: Request, context: AppRequestContext,
                                    frame: [String]) async throws -> Response {
        guard LTIRoles.teaches(claims.roles ?? []), let settings = claims.deepLinking else {
            throw LTIProblem(.forbidden, "Only teachers add OnTheMap", "Adding OnTheMap to a course is for its teachers.",
                             log: "deep linking by someone who does not teach")
        }
        if let accepted = settings.accept_types, !accepted.contains("ltiResourceLink") {
            throw LTIProblem(.badRequest, "Nothing OnTheMap can add", "This place in the course takes no links to a tool, which is what OnTheMap adds.")
        }
        let account = try await provisioning.account(for: claims, platform: platform)
        let now = configuration.clock.now()
        let ticket = DeepLinkTicket(platformID: platform.id, deploymentID: claims.deploymentID ?? "", contextID: claims.context?.id ?? "",
                                    contextTitle: claims.context?.title, returnURL: settings.deep_link_return_url, data: settings.data)
        let code = Tokens.random()
        try await store.saveTicket(digest: SessionToken.digest(code), LTITicket(
            kind: .deepLink, accountKey: account.key, payload: String(decoding: try JSONEncoder().encode(ticket), as: UTF8.self),
            expiresAt: now.addingTimeInterval(Self.loginLifetime)))
        let links = try await store.courseLinks(platformID: platform.id, deploymentID: ticket.deploymentID, contextID: ticket.contextID)
        var ownName: String?
        if let own = links.first(where: \.courseClass) { ownName = try await store.mapClass(id: own.classID)?.name }
        let course = LTIPages.escape(ownName ?? claims.context?.title ?? "this course")
        let body = """
            <p>Which class map should this link open?</p>
            <form method="post" action="/lti/deep-link">
            <input type="hidden" name="ticket" value="\(code)">
            <fieldset><legend>Class map</legend>
            <p><input type="radio" id="choice-course" name="class" value="course" checked> <label for="choice-course">\(ownName == nil ? "The course's class map (made now): " : "The course's class map: ")<strong>\(course)</strong></label></p>
            <p><input type="radio" id="choice-new" name="class" value="new"> <label for="choice-new">A new class map, named</label>
            <input type="text" id="new-name" name="name" maxlength="80" aria-label="Name of the new class map"></p>
            </fieldset>
            <p><button type="submit" id="add-link">Add to the course</button></p>
            </form>
            """
        var response = LTIPages.page(.ok, title: "Add OnTheMap to the course", body: body, headers: LTIPages.headers(frameAncestors: frame))
        try await signIn(account, response: &response, request: request, context: context)
        return response
    }

    /// `POST /lti/deep-link` (the picker's form): the chosen class, and the signed answer the
    /// browser takes back to the platform (Deep Linking 2.0 §4.5).
    @Sendable func deepLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await page("deep linking", context: context) {
            let fields = try await Self.form(request, context: context)
            let now = configuration.clock.now()
            guard let code = fields["ticket"], code.count <= 128,
                  let ticket = try await store.takeTicket(digest: SessionToken.digest(code), kind: .deepLink, now: now),
                  let accountKey = ticket.accountKey,
                  let chosen = try? JSONDecoder().decode(DeepLinkTicket.self, from: Data(ticket.payload.utf8)),
                  let platform = try await platforms.platform(id: chosen.platformID)
            else {
                throw LTIProblem(.badRequest, "This choice was already sent", "Each choice works once, for ten minutes. Add OnTheMap from the course again.")
            }
            let mapClass: MapClass
            if fields["class"] == "new" {
                let name = (fields["name"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                guard !name.isEmpty else {
                    throw LTIProblem(.badRequest, "A new class needs a name", "Give the new class map a name. Add OnTheMap from the course again.")
                }
                mapClass = try await provisioning.newClass(named: name, teacherKey: accountKey, now: now)
                _ = try await store.addCourseLink(LTICourseLink(platformID: platform.id, deploymentID: chosen.deploymentID,
                                                                contextID: chosen.contextID, classID: mapClass.id, courseClass: false))
            } else {
                let links = try await store.courseLinks(platformID: platform.id, deploymentID: chosen.deploymentID, contextID: chosen.contextID)
                if let own = links.first(where: \.courseClass), let found = try await store.mapClass(id: own.classID) {
                    mapClass = found
                } else {
                    mapClass = try await provisioning.courseClass(platform: platform, deploymentID: chosen.deploymentID, contextID: chosen.contextID,
                                                                  title: chosen.contextTitle, teacherKey: accountKey, now: now)
                }
            }
            try await provisioning.enrol(accountKey: accountKey, in: mapClass, roles: ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"], now: now)
            let origin = try origin(request, context)
            let jwt = try await keys.sign(LTIDeepLinkingResponse(
                platform: platform, deploymentID: chosen.deploymentID, data: chosen.data, now: now,
                item: .init(title: mapClass.name, url: origin + "/lti/launch", slug: mapClass.slug)))
            let body = """
                <p>The link to <strong>\(LTIPages.escape(mapClass.name))</strong> is ready.</p>
                <form id="return" method="post" action="\(LTIPages.escape(chosen.returnURL))">
                <input type="hidden" name="JWT" value="\(jwt)">
                <p><button type="submit" id="return-to-course">Return to the course</button></p>
                </form>
                """
            let target = LTIPlatforms.origin(of: chosen.returnURL).map { [$0] } ?? []
            return LTIPages.page(.ok, title: "Add OnTheMap to the course", body: body,
                                 headers: LTIPages.headers(frameAncestors: await platforms.frameAncestors(), formTargets: target))
        }
    }
}
