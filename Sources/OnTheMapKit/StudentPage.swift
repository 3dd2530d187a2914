import Foundation

/// One page of StudentLocation records. Decoding never fails because of one bad record:
/// records without an objectId or usable coordinates are skipped and counted.
public struct StudentPage: Sendable, Hashable {
    /// The usable records, in the server's order.
    public var students: [StudentInformation]
    /// Records the server sent that could not be used.
    public var skippedCount: Int
    /// How many records the server sent, usable or not (what `skip` must advance by).
    public var recordCount: Int
    /// The total number of records, when the request asked for it (`count=1`).
    public var totalCount: Int?
    /// The `skip` and `limit` this page was asked with.
    public var skip: Int
    public var limit: Int

    public init(
        students: [StudentInformation], skippedCount: Int = 0, recordCount: Int? = nil,
        totalCount: Int? = nil, skip: Int = 0, limit: Int
    ) {
        self.students = students
        self.skippedCount = skippedCount
        self.recordCount = recordCount ?? (students.count + skippedCount)
        self.totalCount = totalCount
        self.skip = skip
        self.limit = limit
    }

    /// Where the next page starts.
    public var nextSkip: Int { skip + recordCount }

    /// A short page means the server has nothing after it.
    public var isLastPage: Bool {
        if let totalCount, nextSkip >= totalCount { return true }
        return recordCount < limit
    }

    /// Decodes `{"results":[…], "count"?: N}`.
    public static func decode(_ data: Data, skip: Int = 0, limit: Int) -> Result<StudentPage, OnTheMapError> {
        JSONBody.object(from: data, what: "student list").flatMap { json in
            guard let results = json["results"] as? [Any] else {
                return .failure(.unreadableResponse(detail: "student list without \"results\""))
            }
            var students: [StudentInformation] = []
            students.reserveCapacity(results.count)
            var skipped = 0
            for record in results {
                if let dictionary = record as? [String: Any],
                    let student = StudentInformation(dictionary: dictionary)
                {
                    students.append(student)
                } else {
                    skipped += 1
                }
            }
            let count = (json["count"] as? NSNumber)?.intValue
            return .success(
                StudentPage(
                    students: students, skippedCount: skipped, recordCount: results.count,
                    totalCount: count, skip: skip, limit: limit))
        }
    }
}

/// Progress of `StudentLocationClient.allPages`: records received so far and, when the
/// server reports it, the total.
public struct PagingProgress: Sendable, Hashable {
    public var loaded: Int
    public var total: Int?

    public init(loaded: Int, total: Int?) {
        self.loaded = loaded
        self.total = total
    }

    /// 0…1 when the total is known.
    public var fraction: Double? {
        guard let total, total > 0 else { return nil }
        return min(1, Double(loaded) / Double(total))
    }
}

/// A place found by the server's geocoder (`GET /api/geocode`).
public struct GeocodedPlace: Sendable, Hashable, Codable {
    public struct Span: Sendable, Hashable, Codable {
        public var latitudeDelta: Double
        public var longitudeDelta: Double
        public init(latitudeDelta: Double, longitudeDelta: Double) {
            self.latitudeDelta = latitudeDelta
            self.longitudeDelta = longitudeDelta
        }
    }

    public var name: String
    public var latitude: Double
    public var longitude: Double
    public var kind: String?
    public var country: String?
    public var region: String?
    /// A map region that shows the place (as `MKCoordinateSpan` wants it).
    public var span: Span?

    public init(
        name: String, latitude: Double, longitude: Double, kind: String? = nil,
        country: String? = nil, region: String? = nil, span: Span? = nil
    ) {
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.kind = kind
        self.country = country
        self.region = region
        self.span = span
    }

    /// "Paris, Île-de-France, France": the name plus the region and country it does not
    /// already mention.
    public var displayName: String {
        var parts = name.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for part in [region, country].compactMap({ $0 }) where !part.isEmpty && !parts.contains(part) {
            parts.append(part)
        }
        return parts.filter { !$0.isEmpty }.joined(separator: ", ")
    }

    init?(json: [String: Any]) {
        func number(_ key: String) -> Double? { (json[key] as? NSNumber)?.doubleValue }
        guard let name = json["name"] as? String, let latitude = number("latitude"),
            let longitude = number("longitude"),
            (-90.0...90.0).contains(latitude), (-180.0...180.0).contains(longitude)
        else { return nil }
        var span: Span?
        if let spanJSON = json["span"] as? [String: Any],
            let dLat = (spanJSON["latitudeDelta"] as? NSNumber)?.doubleValue,
            let dLon = (spanJSON["longitudeDelta"] as? NSNumber)?.doubleValue
        {
            span = Span(latitudeDelta: dLat, longitudeDelta: dLon)
        }
        self.init(
            name: name, latitude: latitude, longitude: longitude, kind: json["kind"] as? String,
            country: json["country"] as? String, region: json["region"] as? String, span: span)
    }
}

extension StudentLocationInput {
    /// A post of the place the geocoder found: `mapString` is the place as found and shown
    /// (``GeocodedPlace/displayName``, "São Paulo, Brazil"), not what the student typed, and
    /// the point is the place's. The link is optional (`""` when there is none).
    public init(
        uniqueKey: String, firstName: String, lastName: String, place: GeocodedPlace, mediaURL: String = ""
    ) {
        self.init(
            uniqueKey: uniqueKey, firstName: firstName, lastName: lastName, mapString: place.displayName,
            mediaURL: mediaURL, latitude: place.latitude, longitude: place.longitude)
    }
}
