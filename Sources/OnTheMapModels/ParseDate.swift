import Foundation

/// Parse timestamps: `YYYY-MM-DDTHH:MM:SS.mmmZ`, exactly three fraction digits and `Z`,
/// the one format every known client parses (see docs/api/parse-student-location.md §2.1).
public enum ParseDate {
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
    private static let plainStyle = Date.ISO8601FormatStyle(timeZone: .gmt)

    public static func string(from date: Date) -> String {
        // Truncate to whole milliseconds so a stored value round-trips exactly.
        let millis = (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000
        return style.format(Date(timeIntervalSince1970: millis))
    }

    /// Accepts the Parse format and, leniently, ISO-8601 without a fraction.
    public static func date(from string: String) -> Date? {
        if let date = try? style.parse(string) { return date }
        return try? plainStyle.parse(string)
    }
}
