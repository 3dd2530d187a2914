import Foundation
import Localization
import Testing

@testable import OnTheMapServer
@testable import Storage

/// Every email the server writes, in every language, from the catalogues' `mail.*` messages.
@Suite("The emails' words")
struct MailWordsTests {
    static func notice(_ kind: NoticeKind) -> DueNotice {
        DueNotice(
            classId: "c1", classSlug: "geo-101", className: "Geo <101>", accountKey: "k", email: "t@example.com", firstName: "Ada",
            language: nil, kind: kind, stopToken: "tok", fresh: 3, total: 3, newest: "", noticedThrough: "")
    }

    /// Each email of each kind in `language`, by name.
    static func emails(_ language: Language) -> [String: MailContent] {
        [
            "reset": MailTexts.resetLink(language: language, name: "Zoë", link: "https://map.example/reset#t"),
            "providerOnly": MailTexts.providerOnly(language: language, origin: "https://map.example"),
            "invite": InviteMailTexts.invitation(
                language: language, className: "Geo <101>", inviter: "Ada L.", link: "https://map.example/join/x"),
            "waiting": NoticeTexts.content(for: notice(.waiting), language: language, origin: "https://map.example"),
            "reported": NoticeTexts.content(for: notice(.reported), language: language, origin: "https://map.example"),
        ]
    }

    @Test("each names what it is about and leaves no placeholder, in every language", arguments: Language.allCases)
    func filledIn(language: Language) throws {
        let emails = Self.emails(language)
        for (kind, email) in emails {
            for part in [email.subject, email.text] {
                #expect(!part.contains("{") && !part.contains("}"), "\(language.tag) \(kind): \(part)")
            }
        }
        #expect(try #require(emails["reset"]).text.contains("Zoë") && emails["reset"]!.text.contains("https://map.example/reset#t"))
        #expect(try #require(emails["providerOnly"]).text.contains("https://map.example"))
        let invite = try #require(emails["invite"])
        #expect(invite.subject.contains("Geo <101>") && invite.text.contains("Ada L.") && invite.html.contains("Geo &lt;101&gt;"))
        for kind in ["waiting", "reported"] {
            let notice = try #require(emails[kind])
            #expect(notice.subject.contains("Geo <101>") && notice.text.contains("3") && notice.oneClickStop != nil)
        }
    }
}
