import Foundation
import HearthPages
import HearthWire
import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat

/// The API's one request codec (the request context's `requestDecoder`): JSON bodies, or form-encoded ones when
/// the content type says so (REST docs, curl, the JS SDK's refresh). An empty body is an empty object. Bodies
/// over the context's `maxUploadSize` are `PAYLOAD_TOO_LARGE`; anything unreadable is `INVALID_JSON_PAYLOAD`
/// with what is wrong and where.
public struct HearthRequestDecoder: RequestDecoder {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        var request = request
        let limit = context.maxUploadSize
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch {
            throw HearthAPIError(.payloadTooLarge, "request body larger than \(limit) bytes")
        }
        let contentType = request.headers[.contentType] ?? ""
        if contentType.range(of: "application/x-www-form-urlencoded", options: [.caseInsensitive, .anchored]) != nil {
            return try Self.decodeForm(type, text: String(buffer: buffer))
        }
        if Self.mayContainNUL(buffer), Self.containsNUL(json: buffer.readableBytesView) { throw Self.nulRefusal }
        if buffer.readableBytesView.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            // An empty body is an empty object (e.g. anonymous sign-up with no fields).
            return try Self.decodeJSON(type, bytes: ByteBuffer(string: "{}"))
        }
        return try Self.decodeJSON(type, bytes: buffer)
    }

    static func decodeJSON<T: Decodable>(_ type: T.Type, bytes: ByteBuffer) throws -> T {
        do {
            return try WireJSON.decoder.decode(type, from: bytes)
        } catch let error as DecodingError {
            throw HearthAPIError(.invalidJSONPayload, describe(error))
        } catch {
            throw HearthAPIError(.invalidJSONPayload, "the body is not valid JSON")
        }
    }

    /// Form bodies: values are strings; `true`/`false` are read as booleans where the field is a boolean (a
    /// string field, such as a password, keeps the text).
    static func decodeForm<T: Decodable>(_ type: T.Type, text: String) throws -> T {
        var values: [String: JSONValue] = [:]
        for (key, value) in FormEncoding.decode(text) {
            if key.contains("\0") || value.contains("\0") { throw nulRefusal }
            values[key] = .string(value)
        }
        // Values start as strings; a field the type wants as a boolean is converted and decoding retried.
        for _ in 0...values.count {
            do {
                return try WireJSON.decoder.decode(type, from: WireJSON.encoder.encode(JSONValue.object(values)))
            } catch let error as DecodingError {
                guard case .typeMismatch(let expected, let context) = error, expected == Bool.self, context.codingPath.count == 1,
                      case .string(let text)? = values[context.codingPath[0].stringValue], text == "true" || text == "false"
                else { throw HearthAPIError(.invalidJSONPayload, describe(error)) }
                values[context.codingPath[0].stringValue] = .bool(text == "true")
            }
        }
        throw HearthAPIError(.invalidJSONPayload, "the form body could not be read")
    }

    /// U+0000 is refused in every string field: SQLite would cut the text there (a lookup for `uid\0x` finding
    /// `uid`) and PostgreSQL refuses it outright.
    static let nulRefusal = HearthAPIError(.invalidArgument, "the request holds a NUL character (U+0000), which no field accepts")

    /// False when `buffer` has neither a zero byte nor a backslash, so it cannot hold U+0000 (two `memchr`s, far
    /// cheaper than ``containsNUL(json:)``'s byte-by-byte walk, which runs only when this is true).
    static func mayContainNUL(_ buffer: ByteBuffer) -> Bool {
        buffer.withUnsafeReadableBytes { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return false }
            return memchr(base, 0, bytes.count) != nil || memchr(base, Int32(UInt8(ascii: "\\")), bytes.count) != nil
        }
    }

    /// Whether a JSON text holds U+0000: a raw zero byte, or a `\u0000` escape (one whose backslash is not itself
    /// escaped). Backslashes occur only inside strings in JSON, so a left-to-right scan of escapes is exact.
    static func containsNUL(json bytes: some Collection<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            if byte == 0 { return true }
            guard byte == UInt8(ascii: "\\") else { continue }
            guard let escaped = iterator.next() else { return false }
            guard escaped == UInt8(ascii: "u") else { continue }
            var digits: [UInt8] = []
            for _ in 0..<4 { if let digit = iterator.next() { digits.append(digit) } }
            if digits.count == 4, digits.allSatisfy({ $0 == UInt8(ascii: "0") }) { return true }
        }
        return false
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.isEmpty ? "the body" : "'" + codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".") + "'"
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "Invalid value at \(path(context.codingPath)): expected \(typeName(type))"
        case .valueNotFound(let type, let context):
            return "Invalid value at \(path(context.codingPath)): expected \(typeName(type)), got null"
        case .keyNotFound(let key, let context):
            return "Missing field '\(key.stringValue)' in \(path(context.codingPath))"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "the body is not valid JSON" }
            return "Invalid value at \(path(context.codingPath))"
        @unknown default:
            return "the body could not be read"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is Double.Type: "a number"
        case is [String].Type: "an array of strings"
        default: "a value of another type"
        }
    }
}

/// The API's one response codec (the request context's `responseEncoder`): JSON from the shared
/// ``WireJSON/encoder``, `Cache-Control: no-store`.
public struct HearthResponseEncoder: ResponseEncoder {
    public init() {}

    public func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        try Self.response(value)
    }

    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok, cacheControl: String = "no-store") throws -> Response {
        var buffer = ByteBuffer()
        try buffer.writeJSONEncodable(value, encoder: WireJSON.encoder)
        return Response(status: status,
                        headers: [.contentType: "application/json; charset=UTF-8", .cacheControl: cacheControl],
                        body: .init(byteBuffer: buffer))
    }
}

/// A JSON answer with a status and `Cache-Control` other than the defaults, through the context's encoder.
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
        var response = try context.responseEncoder.encode(value, from: request, context: context)
        response.status = status
        response.headers[.cacheControl] = cacheControl
        return response
    }
}

/// Decoding with a body limit other than the router's, through the same codec (``HearthRequestDecoder``).
enum RequestBody {
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: HearthRequestContext, limit: Int) async throws -> T {
        var context = context
        context.maxUploadSize = limit
        return try await request.decode(as: type, context: context)
    }
}
