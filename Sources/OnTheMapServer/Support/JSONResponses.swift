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
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // The body's framing could not be read (a chunk size that is not hex, one too large
            // to be real): the client's mistake, which `ErrorFormatMiddleware` answers with 400.
            throw MalformedRequestBody(reason: String(describing: error))
        }
    }
}

/// A request body that could not be read as HTTP frames it.
struct MalformedRequestBody: Error {
    let reason: String
}
