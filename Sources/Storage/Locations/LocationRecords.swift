import Foundation
import OnTheMapModels

/// A stored StudentLocation and the account allowed to change it
/// (nil for records written with open writes, which nobody owns).
public struct StoredLocation: Sendable, Equatable {
    public var record: StudentInformation
    public var ownerKey: String?
    /// The class whose map it is on (`MapClass.id`).
    public var classId: String
    /// Waiting for a moderator's approval: seen by its author and the class's moderators only.
    public var waiting: Bool

    public init(record: StudentInformation, ownerKey: String?, classId: String, waiting: Bool = false) {
        self.record = record
        self.ownerKey = ownerKey
        self.classId = classId
        self.waiting = waiting
    }
}

/// The changes a PUT asks for; nil leaves a field as it is.
public struct LocationPatch: Sendable, Equatable {
    public var uniqueKey: String?
    public var firstName: String?
    public var lastName: String?
    public var mapString: String?
    public var mediaURL: String?
    public var latitude: Double?
    public var longitude: Double?
    /// Set (or clear) the wait for a moderator's approval; nil leaves it as it is.
    public var waiting: Bool?

    public init(
        uniqueKey: String? = nil, firstName: String? = nil, lastName: String? = nil, mapString: String? = nil,
        mediaURL: String? = nil, latitude: Double? = nil, longitude: Double? = nil
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
