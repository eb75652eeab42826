import HearthWire
import Foundation

/// The source of the current time, injectable so tests can move it.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Date
    private let wait: @Sendable (Date) async -> Void

    /// A clock read by `read`; `sleep(until:)` sleeps for real unless `wait` says how this clock passes time (a
    /// test clock moves itself forward).
    public init(_ read: @escaping @Sendable () -> Date, wait: (@Sendable (Date) async -> Void)? = nil) {
        self.read = read
        self.wait = wait ?? { target in
            let seconds = target.timeIntervalSince(read())
            if seconds > 0 { try? await Task.sleep(nanoseconds: UInt64((seconds * 1_000_000_000).rounded(.up))) }
        }
    }

    /// The system clock.
    public static let system = WallClock { Date() }

    /// The current time.
    public func now() -> Date { read() }

    /// Returns once `now()` is at or after `target` (at once when it is already).
    public func sleep(until target: Date) async {
        while read() < target, !Task.isCancelled { await wait(target) }
    }
}

/// Random identifiers and secrets from the system's secure random generator.
public enum RandomID {
    static let alphanumerics = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// A Firebase-style user id: 28 alphanumeric characters.
    public static func localId() -> String { alphanumeric(count: 28) }

    /// `count` random alphanumeric characters.
    public static func alphanumeric(count: Int) -> String { string(count: count, from: alphanumerics) }

    /// `byteCount` random bytes, base64url without padding.
    public static func token(byteCount: Int = 32) -> String {
        Data(bytes(byteCount)).base64URLEncodedString()
    }

    /// `count` bytes from the system's secure generator, eight per call: the standard library's generator asks
    /// the kernel once per `next()`, so drawing a byte at a time cost one `getrandom` system call per byte (32 for
    /// each refresh token; 2 % of a refresh's CPU in the profile of issue 24).
    public static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var out: [UInt8] = []
        out.reserveCapacity(count + 7)
        while out.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { out.append(contentsOf: $0) }
        }
        out.removeLast(out.count - count)
        return out
    }

    /// `count` characters drawn uniformly from `alphabet` (2 to 256 symbols): each random byte below the largest
    /// multiple of the alphabet's size is used modulo the size; the rest are discarded, so no symbol is favoured.
    public static func string(count: Int, from alphabet: [Character]) -> String {
        precondition((2...256).contains(alphabet.count), "an alphabet of 2 to 256 symbols")
        let limit = 256 - 256 % alphabet.count
        var result = ""
        result.reserveCapacity(count)
        var remaining = count
        while remaining > 0 {
            for byte in bytes(remaining + remaining / 4 + 8) where remaining > 0 && Int(byte) < limit {
                result.append(alphabet[Int(byte) % alphabet.count])
                remaining -= 1
            }
        }
        return result
    }
}
