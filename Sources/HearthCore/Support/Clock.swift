import HearthWire
import Foundation

/// The source of the current time, injectable so tests can move it.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Date

    public init(_ read: @escaping @Sendable () -> Date) { self.read = read }

    /// The system clock.
    public static let system = WallClock { Date() }

    /// The current time.
    public func now() -> Date { read() }
}

/// Random identifiers and secrets from the system's secure random generator.
public enum RandomID {
    static let alphanumerics = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// A Firebase-style user id: 28 alphanumeric characters.
    public static func localId() -> String { alphanumeric(count: 28) }

    /// `count` random alphanumeric characters.
    public static func alphanumeric(count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in alphanumerics.randomElement(using: &generator)! })
    }

    /// `byteCount` random bytes, base64url without padding.
    public static func token(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64URLEncodedString()
    }
}
