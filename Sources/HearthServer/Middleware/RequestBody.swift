import Foundation
import HearthWire
import Hummingbird

/// Decoding of request bodies into wire types: JSON (the SDKs) or form-encoded (REST docs, curl), with clear
/// `INVALID_JSON_PAYLOAD` errors and a size cap.
enum RequestBody {
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: HearthRequestContext, limit: Int) async throws -> T {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch {
            throw HearthAPIError(.payloadTooLarge, "request body larger than \(limit) bytes")
        }
        let data = Data(buffer.readableBytesView)
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        if contentType.hasPrefix("application/x-www-form-urlencoded") {
            return try decodeForm(type, data: data)
        }
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            // An empty body is an empty object (e.g. anonymous sign-up with no fields).
            return try decodeJSON(type, data: Data("{}".utf8))
        }
        return try decodeJSON(type, data: data)
    }

    static func decodeJSON<T: Decodable>(_ type: T.Type, data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw HearthAPIError(.invalidJSONPayload, describe(error))
        } catch {
            throw HearthAPIError(.invalidJSONPayload, "the body is not valid JSON")
        }
    }

    /// Form bodies: values are strings; `true`/`false` are read as booleans where the field is a boolean (a
    /// string field, such as a password, keeps the text).
    static func decodeForm<T: Decodable>(_ type: T.Type, data: Data) throws -> T {
        guard let text = String(data: data, encoding: .utf8) else {
            throw HearthAPIError(.invalidJSONPayload, "the form body is not UTF-8")
        }
        var strings: [String: JSONValue] = [:]
        for pair in text.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(parts[0])
            let raw = parts.count > 1 ? String(parts[1]) : ""
            strings[key] = .string(raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? raw)
        }
        // Values start as strings; a field the type wants as a boolean is converted and decoding retried.
        var values = strings
        for _ in 0...values.count {
            do {
                return try JSONDecoder().decode(type, from: JSONEncoder().encode(JSONValue.object(values)))
            } catch let error as DecodingError {
                guard case .typeMismatch(let expected, let context) = error, expected == Bool.self, context.codingPath.count == 1,
                      case .string(let text)? = values[context.codingPath[0].stringValue], text == "true" || text == "false"
                else { throw HearthAPIError(.invalidJSONPayload, describe(error)) }
                values[context.codingPath[0].stringValue] = .bool(text == "true")
            }
        }
        throw HearthAPIError(.invalidJSONPayload, "the form body could not be read")
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
