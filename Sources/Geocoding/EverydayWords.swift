import Foundation

/// Everyday words that are no answer to "where are you?" even where a town bears them
/// (Resources/everyday-words.txt): "home", "school", "ici", "casa", "家".
enum EverydayWords {
    static let keys: Set<String> = {
        guard
            let url = Bundle.module.url(forResource: "everyday-words", withExtension: "txt", subdirectory: "Resources")
                ?? Bundle.module.url(forResource: "everyday-words", withExtension: "txt"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { return [] }
        return Set(
            text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { Normalizer.key(String($0)) }.filter { !$0.isEmpty })
    }()

    /// Whether a normalized query is one of them.
    static func contains(_ key: String) -> Bool { keys.contains(key) }
}
