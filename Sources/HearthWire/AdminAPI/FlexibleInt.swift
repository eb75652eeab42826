import Foundation

/// An integer that arrives as a JSON number or as a numeric string: the Admin SDKs disagree (Python sends
/// `validSince` as a number, Go as a string; Go's `limit`/`offset` are strings). Encodes as a number.
public struct FlexibleInt: Codable, Sendable, Equatable, Hashable, ExpressibleByIntegerLiteral {
    public var value: Int64

    public init(_ value: Int64) { self.value = value }
    public init(integerLiteral value: Int64) { self.value = value }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            value = number
        } else if let double = try? container.decode(Double.self), double.rounded() == double, abs(double) < 9.2e18 {
            value = Int64(double)
        } else if let text = try? container.decode(String.self),
                  let number = Int64(text.trimmingCharacters(in: .whitespaces)) {
            value = number
        } else {
            throw DecodingError.typeMismatch(Int.self, .init(codingPath: decoder.codingPath,
                                                             debugDescription: "expected an integer or a numeric string"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
