/// An optional that a JSON answer writes as `null` when it has no value, where a synthesized
/// `Encodable` would leave the key out: the web app and the documented answers read the key
/// either way (`"last_post_at": null`). Read back, a missing key is nil as for any optional.
// swift-format-ignore: UseSynthesizedInitializer
@propertyWrapper
struct ExplicitNull<Value: Encodable>: Encodable {
    var wrappedValue: Value?

    // Written out, though the synthesized one looks the same: only a declared
    // `init(wrappedValue:)` lets a memberwise init take a plain optional.
    init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

extension ExplicitNull: Sendable where Value: Sendable {}

extension ExplicitNull: Decodable where Value: Decodable {
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}

extension KeyedDecodingContainer {
    /// A synthesized `Decodable` asks for the wrapper by this overload: an absent key is nil.
    func decode<Value: Decodable>(_ type: ExplicitNull<Value>.Type, forKey key: Key) throws -> ExplicitNull<Value> {
        try decodeIfPresent(type, forKey: key) ?? ExplicitNull(wrappedValue: nil)
    }
}
