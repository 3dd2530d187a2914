import Foundation

/// One student's pin, as the StudentLocation API sends it: all ten fields, never null.
public struct StudentInformation: Codable, Sendable, Hashable, Identifiable {
    public var objectId: String
    public var uniqueKey: String
    public var firstName: String
    public var lastName: String
    public var mapString: String
    public var mediaURL: String
    public var latitude: Double
    public var longitude: Double
    public var createdAt: String
    public var updatedAt: String

    public var id: String { objectId }

    public init(
        objectId: String, uniqueKey: String, firstName: String, lastName: String,
        mapString: String, mediaURL: String, latitude: Double, longitude: Double,
        createdAt: String, updatedAt: String
    ) {
        self.objectId = objectId
        self.uniqueKey = uniqueKey
        self.firstName = firstName
        self.lastName = lastName
        self.mapString = mapString
        self.mediaURL = mediaURL
        self.latitude = latitude
        self.longitude = longitude
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Builds a record from what real servers send (`JSONSerialization` output): numbers may
    /// arrive as Double, Int or numeric strings, optional text may be missing. Returns nil
    /// for what no map can show: no objectId or no valid coordinates.
    public init?(dictionary: [String: Any]) {
        guard let objectId = dictionary["objectId"] as? String, !objectId.isEmpty,
            let latitude = Self.number(dictionary["latitude"]),
            let longitude = Self.number(dictionary["longitude"]),
            (-90.0...90.0).contains(latitude), (-180.0...180.0).contains(longitude)
        else { return nil }
        func text(_ key: String) -> String { (dictionary[key] as? String) ?? "" }
        self.init(
            objectId: objectId, uniqueKey: text("uniqueKey"), firstName: text("firstName"),
            lastName: text("lastName"), mapString: text("mapString"), mediaURL: text("mediaURL"),
            latitude: latitude, longitude: longitude,
            createdAt: text("createdAt"), updatedAt: text("updatedAt")
        )
    }

    private static func number(_ value: Any?) -> Double? {
        switch value {
        case let value as Double: return value.isFinite ? value : nil
        case let value as Int: return Double(value)
        case let value as NSNumber: return value.doubleValue
        case let value as String: return Double(value.trimmingCharacters(in: .whitespaces))
        default: return nil
        }
    }

    /// "First Last", falling back to whichever part exists.
    public var fullName: String {
        [firstName, lastName].filter { !$0.isEmpty }.joined(separator: " ")
    }
}

/// The fields a client sends to create or replace its location.
public struct StudentLocationInput: Codable, Sendable, Hashable {
    public var uniqueKey: String
    public var firstName: String
    public var lastName: String
    public var mapString: String
    /// The link the student shares; optional: `""` (the default) when there is none. The
    /// server accepts an empty link or an http(s) one.
    public var mediaURL: String
    public var latitude: Double
    public var longitude: Double

    public init(
        uniqueKey: String, firstName: String, lastName: String, mapString: String,
        mediaURL: String = "", latitude: Double, longitude: Double
    ) {
        self.uniqueKey = uniqueKey
        self.firstName = firstName
        self.lastName = lastName
        self.mapString = mapString
        self.mediaURL = mediaURL
        self.latitude = latitude
        self.longitude = longitude
    }
}
