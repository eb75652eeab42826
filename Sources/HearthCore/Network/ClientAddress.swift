import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Client addresses: parsing, the trusted-proxy rule and the key a client is limited by.
public enum ClientAddress {
    /// An address as bytes (4 for IPv4, 16 for IPv6; IPv4-mapped IPv6 addresses become IPv4).
    public static func bytes(_ text: String) -> [UInt8]? {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("["), let end = trimmed.firstIndex(of: "]") { trimmed = String(trimmed[trimmed.index(after: trimmed.startIndex)..<end]) }
        if let percent = trimmed.firstIndex(of: "%") { trimmed = String(trimmed[..<percent]) }
        var v4 = in_addr()
        if inet_pton(AF_INET, trimmed, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, trimmed, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff { return Array(bytes[12..<16]) }
        return bytes
    }

    /// The key a client is counted under: its IPv4 address, or its IPv6 /64 network (one host usually holds a
    /// whole /64, so counting single IPv6 addresses would let it rotate through them).
    public static func limitKey(_ address: String) -> String {
        guard let bytes = bytes(address) else { return address }
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 8, by: 2).map { String(format: "%02x%02x", bytes[$0], bytes[$0 + 1]) }.joined(separator: ":") + "::/64"
    }
}

/// Networks whose peers are reverse proxies: only a request from one of them has its client address taken from
/// `X-Forwarded-For` (the right-most address that is not itself a trusted proxy). With none configured the header
/// is ignored, so a client cannot choose its own address.
public struct TrustedProxies: Sendable, Equatable {
    struct Network: Sendable, Equatable {
        var bytes: [UInt8]
        var prefix: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefix
            for index in bytes.indices where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xff << (8 - bits))
                if address[index] & mask != bytes[index] & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    let networks: [Network]

    public static let none = TrustedProxies(networks: [])

    private init(networks: [Network]) { self.networks = networks }

    /// Parses addresses and CIDR networks (`10.0.0.0/8`, `::1`, `fd00::/8`). Throws a message naming the bad entry.
    public init(_ entries: [String]) throws {
        networks = try entries.map { entry in
            let parts = entry.trimmingCharacters(in: .whitespaces).split(separator: "/", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let bytes = ClientAddress.bytes(String(parts[0])) else {
                throw TrustedProxyError(entry: entry)
            }
            let prefix = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
            guard let prefix, (0...bytes.count * 8).contains(prefix) else { throw TrustedProxyError(entry: entry) }
            return Network(bytes: bytes, prefix: prefix)
        }
    }

    public var isEmpty: Bool { networks.isEmpty }

    public func contains(_ address: String) -> Bool {
        guard let bytes = ClientAddress.bytes(address) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    /// The client's address for a request whose peer is `peer` and whose `X-Forwarded-For` values are
    /// `forwardedFor`: the peer unless it is a trusted proxy; then the right-most forwarded address that is not a
    /// trusted proxy (addresses left of it were written by the client and prove nothing).
    public func clientAddress(peer: String, forwardedFor: [String]) -> String {
        guard contains(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peer
        for hop in hops.reversed() {
            guard ClientAddress.bytes(hop) != nil else { break }
            client = hop
            if !contains(hop) { break }
        }
        return client
    }
}

/// A `trusted.proxies` entry that is not an address or CIDR network.
public struct TrustedProxyError: Error, CustomStringConvertible {
    public let entry: String
    public var description: String { "\"\(entry)\" is not an IP address or CIDR network (such as 10.0.0.0/8 or fd00::/8)" }
}
