import Foundation

/// The StudentLocation fields a query may filter or sort on, with their column and type.
public enum LocationField: String, CaseIterable, Sendable {
    case objectId, uniqueKey, firstName, lastName, mapString, mediaURL, latitude, longitude, createdAt, updatedAt

    public enum Kind: Sendable { case text, number, date }

    public var kind: Kind {
        switch self {
        case .latitude, .longitude: .number
        case .createdAt, .updatedAt: .date
        default: .text
        }
    }

    var column: String {
        switch self {
        case .objectId: "object_id"
        case .uniqueKey: "unique_key"
        case .firstName: "first_name"
        case .lastName: "last_name"
        case .mapString: "map_string"
        case .mediaURL: "media_url"
        case .latitude: "latitude"
        case .longitude: "longitude"
        case .createdAt: "created_at"
        case .updatedAt: "updated_at"
        }
    }
}

/// A value compared against a field. Dates are compared as canonical Parse strings,
/// which sort the same way as the instants they name.
public enum FilterValue: Sendable, Equatable {
    case text(String)
    case number(Double)
}

public enum Comparison: String, Sendable {
    case equal = "="
    case notEqual = "<>"
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
}

/// A backend-neutral filter: what a Parse `where` means, once validated.
public indirect enum LocationFilter: Sendable, Equatable {
    case always
    case never
    case and([LocationFilter])
    case or([LocationFilter])
    case not(LocationFilter)
    case compare(LocationField, Comparison, FilterValue)
    case oneOf(LocationField, [FilterValue])
    /// `options` is a subset of Parse's `imxs` flags.
    case regex(LocationField, pattern: String, options: String)
}

public struct LocationSort: Sendable, Equatable {
    public var field: LocationField
    public var descending: Bool
    public init(_ field: LocationField, descending: Bool) {
        self.field = field
        self.descending = descending
    }
}

public struct LocationQuery: Sendable, Equatable {
    public var filter: LocationFilter
    public var sort: [LocationSort]
    public var limit: Int
    public var skip: Int

    public init(filter: LocationFilter = .always, sort: [LocationSort] = [], limit: Int = 100, skip: Int = 0) {
        self.filter = filter
        self.sort = sort
        self.limit = limit
        self.skip = skip
    }
}
