import Foundation
import Hummingbird
import NIOCore

/// A JSON body with sorted keys and unescaped slashes, `Cache-Control: no-store` unless told otherwise.
struct JSONResponse<Value: Encodable & Sendable>: ResponseGenerator {
    var value: Value
    var status: HTTPResponse.Status = .ok
    var cacheControl: String = "no-store"

    init(_ value: Value, status: HTTPResponse.Status = .ok, cacheControl: String = "no-store") {
        self.value = value
        self.status = status
        self.cacheControl = cacheControl
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return Response(status: status,
                        headers: [.contentType: "application/json; charset=UTF-8", .cacheControl: cacheControl],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
