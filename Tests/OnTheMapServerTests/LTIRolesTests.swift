import Testing

@testable import OnTheMapServer

/// What a course's roles make a person in its class: the server's one table (`LTIRoles`),
/// which the course roster answers as `course_role` and the web app shows as it is.
@Suite("LTI roles")
struct LTIRolesTests {
    static let membership = "http://purl.imsglobal.org/vocab/lis/v2/membership"

    @Test("full IRIs, sub-roles and short context names; the highest counts")
    func rolesMap() {
        #expect(LTIRoles.classRole(["\(Self.membership)#Instructor"]) == .teacher)
        #expect(LTIRoles.classRole(["Instructor"]) == .teacher)
        #expect(LTIRoles.classRole(["\(Self.membership)#Administrator"]) == .teacher)
        #expect(LTIRoles.classRole(["\(Self.membership)/Instructor#TeachingAssistant"]) == .moderator)
        #expect(LTIRoles.classRole(["TeachingAssistant", "Instructor"]) == .teacher)
        #expect(LTIRoles.classRole(["\(Self.membership)#Learner", "\(Self.membership)#Mentor"]) == .student)
        #expect(LTIRoles.classRole([]) == .student)
    }

    @Test("an LTI 1.1 URN is no LTI 1.3 role: a student, as the web app now shows too (it read it as a teacher)")
    func urnIsAStudent() {
        #expect(LTIRoles.classRole(["urn:lti:role:ims/lis/Instructor"]) == .student)
        #expect(LTIRoles.classRole(["urn:lti:role:ims/lis/TeachingAssistant"]) == .student)
    }
}
