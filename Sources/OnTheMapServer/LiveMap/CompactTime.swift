/// A Parse date as the server writes every one ("2026-11-27T23:05:27.123Z", UTC, to the
/// millisecond) held as milliseconds since 1970 instead of 24 bytes of text, and written back
/// byte for byte. Days are counted in the proleptic Gregorian calendar, by whole 400-year
/// cycles of 146,097 days from 1 March of year 0.
enum CompactTime {
    static let length = 24

    /// The milliseconds `text` stands for, when writing them back gives `text` exactly (so a
    /// date in any other form, or an impossible one such as 31 February, is nil and is kept as
    /// text).
    static func milliseconds(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard text.count == length else { return nil }
        func digits(_ from: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for index in from..<from + count {
                let digit = Int64(text[index]) - 48
                guard digit >= 0 && digit <= 9 else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2), let hour = digits(11, 2),
            let minute = digits(14, 2), let second = digits(17, 2), let millisecond = digits(20, 3)
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        let value = (((days * 24 + hour) * 60 + minute) * 60 + second) * 1000 + millisecond
        let same = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { out in
            write(value, into: out)
            return out.elementsEqual(text)
        }
        return same ? value : nil
    }

    /// Writes the date's 24 bytes into `out` (at least 24 long); `milliseconds` from
    /// `milliseconds(_:)`.
    static func write(_ milliseconds: Int64, into out: UnsafeMutableBufferPointer<UInt8>) {
        var (days, rest) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        if rest < 0 {
            days -= 1
            rest += 86_400_000
        }
        let (year, month, day) = date(daysSince1970: days)
        func put(_ value: Int64, _ at: Int, _ count: Int) {
            var value = value
            for index in stride(from: at + count - 1, through: at, by: -1) {
                out[index] = UInt8(48 + value % 10)
                value /= 10
            }
        }
        put(year, 0, 4)
        out[4] = UInt8(ascii: "-")
        put(month, 5, 2)
        out[7] = UInt8(ascii: "-")
        put(day, 8, 2)
        out[10] = UInt8(ascii: "T")
        put(rest / 3_600_000, 11, 2)
        out[13] = UInt8(ascii: ":")
        put(rest / 60_000 % 60, 14, 2)
        out[16] = UInt8(ascii: ":")
        put(rest / 1000 % 60, 17, 2)
        out[19] = UInt8(ascii: ".")
        put(rest % 1000, 20, 3)
        out[23] = UInt8(ascii: "Z")
    }

    /// Days from 1 January 1970 to the date (month 1-12); a month or day out of range gives a
    /// day that is written back as another date.
    static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        // Years start on 1 March, so a leap day is the last day of its year.
        let shifted = month <= 2 ? year - 1 : year
        let cycle = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfCycle = shifted - cycle * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfCycle = yearOfCycle * 365 + yearOfCycle / 4 - yearOfCycle / 100 + dayOfYear
        return cycle * 146_097 + dayOfCycle - 719_468
    }

    /// The date `days` after 1 January 1970.
    static func date(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shiftedDays = days + 719_468
        let cycle = (shiftedDays >= 0 ? shiftedDays : shiftedDays - 146_096) / 146_097
        let dayOfCycle = shiftedDays - cycle * 146_097
        let yearOfCycle = (dayOfCycle - dayOfCycle / 1460 + dayOfCycle / 36_524 - dayOfCycle / 146_096) / 365
        let dayOfYear = dayOfCycle - (365 * yearOfCycle + yearOfCycle / 4 - yearOfCycle / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfCycle + cycle * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
