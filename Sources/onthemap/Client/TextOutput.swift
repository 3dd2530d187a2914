import Foundation
import OnTheMapKit

/// "3 hours ago", "yesterday", "in 2 days".
enum RelativeTime {
    static func describe(_ date: Date, now: Date = Date()) -> String {
        let seconds = now.timeIntervalSince(date)
        if abs(seconds) < 45 { return say("cli.time.justNow") }
        let (count, unit) = span(abs(seconds))
        if unit == "Days" && count == 1 { return say(seconds > 0 ? "cli.time.yesterday" : "cli.time.tomorrow") }
        // cli.time.minutesAgo … cli.time.inYears: plural messages.
        return say(seconds > 0 ? "cli.time.\(unit.lowercased())Ago" : "cli.time.in\(unit)", ["count": .number(count)])
    }

    /// The rounded count and its unit ("Minutes", "Hours", "Days", "Months", "Years").
    private static func span(_ seconds: Double) -> (Int, String) {
        let minutes = Int((seconds / 60).rounded())
        if minutes < 60 { return (max(1, minutes), "Minutes") }
        let hours = Int((seconds / 3600).rounded())
        if hours < 24 { return (hours, "Hours") }
        let days = Int((seconds / 86_400).rounded())
        if days < 30 { return (days, "Days") }
        let months = Int((seconds / (86_400 * 30.44)).rounded())
        if months < 12 { return (max(1, months), "Months") }
        return (max(1, Int((seconds / (86_400 * 365.25)).rounded())), "Years")
    }

    static func describe(parseDate text: String, now: Date = Date()) -> String {
        guard let date = ParseDate.date(from: text) else { return text.isEmpty ? say("cli.time.unknown") : text }
        return describe(date, now: now)
    }
}

enum TextCleaning {
    /// Server text shown in a terminal: control characters (escape sequences!) become spaces.
    static func printable(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map {
                    CharacterSet.controlCharacters.contains($0) ? " " : $0
                }))
    }

    static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0, text.count > width else { return text }
        return width == 1 ? "…" : String(text.prefix(width - 1)) + "…"
    }

    static func pad(_ text: String, to width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}

/// A plain-text table; on a terminal the widest columns shrink to fit its width.
struct TextTable {
    var headers: [String]
    var rows: [[String]]
    /// Columns that may be shortened, by index, with their minimum widths.
    var shrinkable: [Int: Int] = [:]

    func render(maxWidth: Int?) -> String {
        let cleaned = rows.map { $0.map(TextCleaning.printable) }
        var widths = headers.indices.map { column in
            ([headers[column]] + cleaned.map { $0[column] }).map(\.count).max() ?? 0
        }
        if let maxWidth {
            let gaps = 2 * (headers.count - 1)
            var overflow = widths.reduce(0, +) + gaps - maxWidth
            // Shrink the widest shrinkable column one step at a time.
            while overflow > 0 {
                guard
                    let column = shrinkable.keys
                        .filter({ widths[$0] > shrinkable[$0]! })
                        .max(by: { widths[$0] < widths[$1] })
                else { break }
                widths[column] -= 1
                overflow -= 1
            }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let text = TextCleaning.truncate(cell, to: widths[index])
                return index == cells.count - 1 ? text : TextCleaning.pad(text, to: widths[index])
            }.joined(separator: "  ")
        }
        return ([line(headers)] + cleaned.map(line)).joined(separator: "\n")
    }
}

/// `[#########.........]  120/250` on stderr, redrawn in place; silent when stderr is not
/// a terminal.
final class ProgressBar {
    private let enabled: Bool
    private var drawn = false
    private let label: String

    init(label: String, enabled: Bool = Console.stderrIsTerminal) {
        self.label = label
        self.enabled = enabled
    }

    func update(_ progress: PagingProgress) {
        guard enabled else { return }
        let width = 30
        var line = "\r\(label) "
        if let fraction = progress.fraction, let total = progress.total {
            let filled = Int((fraction * Double(width)).rounded(.down))
            line +=
                "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                + "] \(progress.loaded)/\(total)"
        } else {
            line += "\(progress.loaded)"
        }
        Console.writeErr(line)
        drawn = true
    }

    func finish() {
        guard enabled, drawn else { return }
        // Clear the line so the table starts clean.
        Console.writeErr("\r\u{1B}[2K")
        drawn = false
    }
}
