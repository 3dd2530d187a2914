import Foundation

/// Folds a place name or query to the key form used in the gazetteer's index.
///
/// Must stay in step with `normalize()` in Scripts/build-gazetteer.py: apostrophes
/// dropped, special letters spelled out (ß -> ss, ø -> o, ł -> l ...), compatibility
/// decomposition (full-width and half-width forms folded) with accents removed, lower
/// case, anything that is not a letter, digit or mark becomes a space, runs of single
/// letters joined ("U.S.A." -> "usa"), traditional Chinese characters folded to simplified,
/// and "st", "ste", "mt", "ft" spelled out as "saint", "sainte", "mount", "fort".
public enum Normalizer {
    private static let apostrophes: Set<Unicode.Scalar> = ["'", "\u{2019}", "\u{2018}", "`", "\u{B4}", "\u{2BB}", "\u{2BC}", "\u{2B9}"]
    private static let special: [Unicode.Scalar: String] = [
        "ß": "ss", "ẞ": "ss", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ø": "o", "Ø": "o",
        "ł": "l", "Ł": "l", "đ": "d", "Đ": "d", "ð": "d", "Ð": "d", "þ": "th", "Þ": "th",
        "ı": "i", "ħ": "h", "Ħ": "h", "ŀ": "l", "Ŀ": "l", "ŧ": "t", "Ŧ": "t", "ŋ": "n", "Ŋ": "n",
        "ſ": "s", "ĸ": "k",
    ]
    private static let abbreviations: [String: String] = ["st": "saint", "ste": "sainte", "mt": "mount", "ft": "fort"]

    /// The normalized key of `text`; "" when nothing but punctuation is left.
    public static func key(_ text: String) -> String {
        var folded = ""
        folded.unicodeScalars.reserveCapacity(text.utf8.count)
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            // Fast path for ASCII, the common case.
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    folded.unicodeScalars.append(Unicode.Scalar(byte))
                case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    folded.unicodeScalars.append(Unicode.Scalar(byte + 32))
                case UInt8(ascii: "'"), UInt8(ascii: "`"):
                    continue
                default:
                    folded.unicodeScalars.append(" ")
                }
            }
        } else {
            for scalar in text.unicodeScalars {
                if apostrophes.contains(scalar) { continue }
                let piece = special[scalar] ?? String(scalar)
                for c in piece.decomposedStringWithCompatibilityMapping.unicodeScalars {
                    if isDiacritic(c) { continue }
                    for lower in c.properties.lowercaseMapping.unicodeScalars {
                        let lc = lower.value >= 0x3400 ? hantHans[lower] ?? lower : lower
                        folded.unicodeScalars.append(isWordCharacter(lc) ? lc : " ")
                    }
                }
            }
        }
        var tokens: [Substring] = []
        var run = ""
        var runCount = 0
        func flushRun() {
            if runCount > 0 {
                tokens.append(Substring(run))
                run = ""
                runCount = 0
            }
        }
        for token in folded.split(separator: " ") {
            if token.unicodeScalars.count == 1 {
                run += token
                runCount += 1
                continue
            }
            flushRun()
            if let long = abbreviations[String(token)] {
                tokens.append(Substring(long))
            } else {
                tokens.append(token)
            }
        }
        flushRun()
        return tokens.joined(separator: " ")
    }

    /// Traditional Chinese characters and their simplified forms (Resources/hant-hans.tsv,
    /// made from ICU's Traditional-Simplified transform by Scripts/build-hant-hans.swift):
    /// 臺北 and 台北, 廣州 and 广州 share a key. Japanese kanji fold the same way (東京 and
    /// 东京), which only makes more spellings find the same place. Empty if the table is
    /// missing (the keys then simply do not fold).
    static let hantHans: [Unicode.Scalar: Unicode.Scalar] = {
        guard
            let url = Bundle.module.url(forResource: "hant-hans", withExtension: "tsv", subdirectory: "Resources")
                ?? Bundle.module.url(forResource: "hant-hans", withExtension: "tsv"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { return [:] }
        var table: [Unicode.Scalar: Unicode.Scalar] = [:]
        table.reserveCapacity(3_200)
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let pair = line.unicodeScalars.split(separator: "\t")
            guard pair.count == 2, pair[0].count == 1, pair[1].count == 1 else { continue }
            table[pair[0][pair[0].startIndex]] = pair[1][pair[1].startIndex]
        }
        return table
    }()

    /// Accents, dropped: combining marks of Latin, Greek and Cyrillic letters, Hebrew points,
    /// Arabic vowel signs. Other scripts' marks (Devanagari vowel signs, kana voicing) stay:
    /// they are part of the letter.
    private static let diacriticRanges: [ClosedRange<UInt32>] = [
        0x0300...0x036F, 0x0591...0x05BD, 0x064B...0x065F, 0x0670...0x0670,
        0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F,
    ]

    private static func isDiacritic(_ s: Unicode.Scalar) -> Bool {
        s.value >= 0x0300 && diacriticRanges.contains { $0.contains(s.value) }
    }

    /// Letters, numbers and marks (Unicode categories L*, N*, M*), as Python's
    /// `unicodedata.category(c)[0] in "LNM"`.
    private static func isWordCharacter(_ s: Unicode.Scalar) -> Bool {
        switch s.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber,
            .nonspacingMark, .spacingMark, .enclosingMark:
            return true
        default:
            return false
        }
    }
}
