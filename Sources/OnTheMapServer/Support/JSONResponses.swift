import Foundation
import Hummingbird
import NIOCore

enum JSONResponse {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    static func make(
        _ value: some Encodable, status: HTTPResponse.Status = .ok, prefix: String = "",
        headers: HTTPFields = [:]
    ) throws -> Response {
        var data = Data(prefix.utf8)
        data.append(try encoder.encode(value))
        return raw(data, status: status, headers: headers)
    }

    static func raw(_ data: Data, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension Request {
    /// Collects the body up to `limit` bytes; `tooLarge` builds the protocol's own error.
    func collectBody(limit: Int, tooLarge: () -> any Error) async throws -> Data {
        do {
            let buffer = try await body.collect(upTo: limit)
            return Data(buffer: buffer)
        } catch is NIOTooManyBytesError {
            throw tooLarge()
        }
    }
}
