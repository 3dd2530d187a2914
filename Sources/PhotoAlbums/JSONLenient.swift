import Foundation

/// An integer that some API eras send as a number and others as a string
/// (Flickr's `total`: `"15849"` until 2021, `9234` after).
struct LenientInt: Decodable, Sendable {
    let value: Int

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            value = number
        } else if let number = try? container.decode(Double.self), number.isFinite {
            value = Int(number)
        } else if let text = try? container.decode(String.self), let number = Int(text.trimmingCharacters(in: .whitespaces)) {
            value = number
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected an integer or a string holding one")
        }
    }
}

/// A string that is sometimes sent as a number (ids).
struct LenientString: Decodable, Sendable {
    let value: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            value = text
        } else if let number = try? container.decode(Int.self) {
            value = String(number)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a string or a number")
        }
    }
}
