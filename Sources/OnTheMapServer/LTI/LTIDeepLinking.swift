import Foundation
import HTTPTypes
import Hummingbird
import Localization
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

    func deepLinkingRequest(
        _ claims: LTILaunchClaims, platform: LTIPlatform, request: Request, context: AppRequestContext,
        frame: [String]
    ) async throws -> Response {
        guard LTIRoles.teaches(claims.roles ?? []), let settings = claims.deepLinking else {
            throw LTIProblem(.forbidden, "teachersOnly", log: "deep linking by someone who does not teach")
        }
        if let accepted = settings.accept_types, !accepted.contains("ltiResourceLink") {
            throw LTIProblem(.badRequest, "nothingToAdd")
        }
        let account = try await provisioning.account(for: claims, platform: platform)
        let now = configuration.clock.now()
        let ticket = DeepLinkTicket(
            platformID: platform.id, deploymentID: claims.deploymentID ?? "", contextID: claims.context?.id ?? "",
            contextTitle: claims.context?.title, returnURL: settings.deep_link_return_url, data: settings.data)
        let code = Tokens.random()
        try await store.saveTicket(
            digest: SessionToken.digest(code),
            LTITicket(
                kind: .deepLink, accountKey: account.key, payload: String(decoding: try JSONEncoder().encode(ticket), as: UTF8.self),
                expiresAt: now.addingTimeInterval(Self.loginLifetime)))
        let links = try await store.courseLinks(platformID: platform.id, deploymentID: ticket.deploymentID, contextID: ticket.contextID)
        var ownName: String?
        if let own = links.first(where: \.courseClass) { ownName = try await store.mapClass(id: own.classID)?.name }
        let language = request.language
        let say = Translator(language)
        let course = LTIPages.bold(ownName ?? claims.context?.title ?? say("lti.pick.thisCourse"))
        let body = """
            <p>\(LTIPages.escape(say("lti.pick.question")))</p>
            <form method="post" action="/lti/deep-link">
            <input type="hidden" name="ticket" value="\(code)">
            <fieldset><legend>\(LTIPages.escape(say("lti.pick.legend")))</legend>
            <p><input type="radio" id="choice-course" name="class" value="course" checked> <label for="choice-course">\(LTIPages.html(say, ownName == nil ? "lti.pick.courseMapNew" : "lti.pick.courseMap", ["course": course]))</label></p>
            <p><input type="radio" id="choice-new" name="class" value="new"> <label for="choice-new">\(LTIPages.escape(say("lti.pick.newMap")))</label>
            <input type="text" id="new-name" name="name" maxlength="80" dir="auto" aria-label="\(LTIPages.escape(say("lti.pick.newMapName")))"></p>
            </fieldset>
            <p><button type="submit" id="add-link">\(LTIPages.escape(say("lti.pick.add")))</button></p>
            </form>
            """
        var response = LTIPages.page(
            .ok, title: say("lti.pick.title"), language: language, body: body, headers: LTIPages.headers(frameAncestors: frame))
        try await signIn(account, response: &response, request: request, context: context)
        return response
    }

    /// `POST /lti/deep-link` (the picker's form): the chosen class, and the signed answer the
    /// browser takes back to the platform (Deep Linking 2.0 §4.5).
    @Sendable func deepLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await page("deep linking", request: request, context: context) {
            let fields = try await Self.form(request, context: context)
            let now = configuration.clock.now()
            guard let code = fields["ticket"], code.count <= 128,
                let ticket = try await store.takeTicket(digest: SessionToken.digest(code), kind: .deepLink, now: now),
                let accountKey = ticket.accountKey,
                let chosen = try? JSONDecoder().decode(DeepLinkTicket.self, from: Data(ticket.payload.utf8)),
                let platform = try await platforms.platform(id: chosen.platformID)
            else {
                throw LTIProblem(.badRequest, "choiceUsed")
            }
            let mapClass: MapClass
            if fields["class"] == "new" {
                let name = (fields["name"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                guard !name.isEmpty else {
                    throw LTIProblem(.badRequest, "nameNeeded")
                }
                mapClass = try await provisioning.newClass(named: name, teacherKey: accountKey, now: now)
                _ = try await store.addCourseLink(
                    LTICourseLink(
                        platformID: platform.id, deploymentID: chosen.deploymentID,
                        contextID: chosen.contextID, classID: mapClass.id, courseClass: false))
            } else {
                let links = try await store.courseLinks(
                    platformID: platform.id, deploymentID: chosen.deploymentID, contextID: chosen.contextID)
                if let own = links.first(where: \.courseClass), let found = try await store.mapClass(id: own.classID) {
                    mapClass = found
                } else {
                    mapClass = try await provisioning.courseClass(
                        platform: platform, deploymentID: chosen.deploymentID, contextID: chosen.contextID,
                        title: chosen.contextTitle, teacherKey: accountKey, now: now)
                }
            }
            try await provisioning.enrol(
                accountKey: accountKey, in: mapClass, roles: ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"], now: now)
            let origin = try origin(request, context)
            let jwt = try await keys.sign(
                LTIDeepLinkingResponse(
                    platform: platform, deploymentID: chosen.deploymentID, data: chosen.data, now: now,
                    item: .init(title: mapClass.name, url: origin + "/lti/launch", slug: mapClass.slug)))
            let language = request.language
            let say = Translator(language)
            let body = """
                <p>\(LTIPages.html(say, "lti.pick.ready", ["class": LTIPages.bold(mapClass.name)]))</p>
                <form id="return" method="post" action="\(LTIPages.escape(chosen.returnURL))">
                <input type="hidden" name="JWT" value="\(jwt)">
                <p><button type="submit" id="return-to-course">\(LTIPages.escape(say("lti.pick.return")))</button></p>
                </form>
                """
            let target = LTIPlatforms.origin(of: chosen.returnURL).map { [$0] } ?? []
            return LTIPages.page(
                .ok, title: say("lti.pick.title"), language: language, body: body,
                headers: LTIPages.headers(frameAncestors: await platforms.frameAncestors(), formTargets: target))
        }
    }
}
