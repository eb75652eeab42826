import Foundation

extension AppRegistration {
    /// `com.example.app`: two or more labels of letters, digits and hyphens.
    public static func isBundleId(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return text.count <= 155 && labels.count >= 2
            && labels.allSatisfy { !$0.isEmpty && $0.allSatisfy { ($0.isLetter || $0.isNumber || $0 == "-") && $0.isASCII } }
    }

    /// A Firebase Apple app id: `1:<project number>:ios|macos:<hex>`.
    public static func isAppId(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "1" && !parts[1].isEmpty && parts[1].allSatisfy(\.isNumber)
            && ["ios", "macos"].contains(parts[2]) && !parts[3].isEmpty && parts[3].allSatisfy(\.isHexDigit)
    }

    /// An OAuth client id whose reverse is a URL scheme: labels of letters, digits, hyphens, underscores.
    public static func isClientId(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return text.count <= 200 && labels.count >= 2
            && labels.allSatisfy { !$0.isEmpty && $0.allSatisfy { ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") && $0.isASCII } }
            && labels.last?.first?.isLetter == true
    }

    /// An Apple developer team id: exactly 10 upper-case ASCII letters and digits (`ABCDE12345`).
    public static func isTeamId(_ text: String) -> Bool {
        text.utf8.count == 10 && text.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// Why a team id is refused.
    public static let teamIdProblem = "a team id is 10 upper-case letters and digits, e.g. ABCDE12345 (Apple Developer → Membership details)"

    /// The app's `webcredentials` entry in `/.well-known/apple-app-site-association` (`ABCDE12345.com.example.notes`):
    /// an Apple app with both a team id and a bundle id; nil otherwise.
    public var appleAppIdentifier: String? {
        guard kind == .apple, let teamId, let bundleId, !teamId.isEmpty, !bundleId.isEmpty else { return nil }
        return "\(teamId).\(bundleId)"
    }

    /// A desktop app's id (`appId=<id>`): letters, digits, `.`, `-`, `_`.
    public static func isDesktopId(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 100 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
    }
}
