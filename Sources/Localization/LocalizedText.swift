/// A message to be written in whichever language its reader reads, decided where the page is
/// made: a catalogue key, its arguments, and the sentences that follow it ("Try again." after
/// a problem). Its `description` is the English, for logs.
public struct LocalizedText: Sendable, CustomStringConvertible {
    public let key: String
    public let arguments: [String: MessageArgument]
    public let following: [LocalizedText]

    public init(_ key: String, _ arguments: [String: MessageArgument] = [:], then following: [LocalizedText] = []) {
        self.key = key
        self.arguments = arguments
        self.following = following
    }

    /// The text in `language`: sentences separated as the language separates them (a space;
    /// none in Chinese).
    public func text(in language: Language, catalogue: Catalogue = .shared) -> String {
        let parts = [catalogue.message(key, arguments, in: language)] + following.map { $0.text(in: language, catalogue: catalogue) }
        return parts.filter { !$0.isEmpty }.joined(separator: language == .chineseSimplified ? "" : " ")
    }

    public var description: String { text(in: .english) }
}
