import Foundation
import OnTheMapKit
import Testing

/// JSON for one StudentLocation record.
func studentJSON(
    _ objectId: String, updatedAt: String = "2024-05-01T10:00:00.000Z",
    uniqueKey: String = "u1", latitude: String = "48.85", longitude: String = "2.35"
) -> String {
    """
    {"objectId":"\(objectId)","uniqueKey":"\(uniqueKey)","firstName":"Ada","lastName":"Lovelace",\
    "mapString":"Paris","mediaURL":"https://example.com/\(objectId)","latitude":\(latitude),\
    "longitude":\(longitude),"createdAt":"2024-01-01T00:00:00.000Z","updatedAt":"\(updatedAt)"}
    """
}

func student(_ objectId: String, updatedAt: String, uniqueKey: String = "u1") -> StudentInformation {
    StudentInformation(
        objectId: objectId, uniqueKey: uniqueKey, firstName: "F\(objectId)", lastName: "L",
        mapString: "Somewhere", mediaURL: "https://example.com", latitude: 1, longitude: 2,
        createdAt: "2024-01-01T00:00:00.000Z", updatedAt: updatedAt)
}

/// A configuration for a server at `url`, with a short timeout.
func configuration(
    _ url: URL, api: OnTheMapConfiguration.StudentLocationAPI = .parse,
    timeout: TimeInterval = 5
) -> OnTheMapConfiguration {
    OnTheMapConfiguration(server: url, studentLocationAPI: api, timeout: timeout)
}

/// The error an `async throws(OnTheMapError)` call threw, nil if it succeeded.
func failure<T>(_ body: () async throws -> T) async -> OnTheMapError? {
    do {
        _ = try await body()
        return nil
    } catch let error as OnTheMapError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

let prefix = udacityResponsePrefix
