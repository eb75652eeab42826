import Foundation
import NIOPosix
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What addresses a blocking function's URL may reach: `hooks.allow.private.networks` and `--dev`, with the calls'
/// deadline. Part of ``HearthServerConfiguration`` (``HearthServerConfiguration/blockingFunctions``).
public struct BlockingFunctionSettings: Sendable {
    /// `hooks.allow.private.networks` (`--hooks-allow-private-networks`): function URLs may be or resolve to private,
    /// loopback, link-local and shared (CGNAT) addresses. Off: only public addresses (SSRF through a hook URL).
    public var allowPrivateNetworks: Bool
    /// The server runs with `--dev`: `http://` is accepted for a loopback host (and loopback addresses are allowed).
    public var development: Bool
    /// The whole call's deadline (resolution, connection, request, answer): ``BlockingFunctions/deadline``; tests
    /// inject a shorter one.
    public var deadline: Duration
    /// Resolves a host name to addresses instead of the system's resolver (nil, the default: `getaddrinfo`). For
    /// tests of the call-time check; the answers pass the same policy.
    public var resolver: (@Sendable (String) async throws -> [String])?

    public init(allowPrivateNetworks: Bool = false, development: Bool = false, deadline: Duration = BlockingFunctions.deadline) {
        self.allowPrivateNetworks = allowPrivateNetworks
        self.development = development
        self.deadline = deadline
    }
}

/// The URL policy of blocking functions, at configuration time (the URL's form and literal addresses) and at call
/// time (every address the host resolves to). One place for both, so they cannot disagree.
public enum BlockingFunctionURLPolicy {
    /// The longest function URL accepted.
    public static let maximumLength = 2048

    /// A function URL taken apart: scheme, host (brackets removed), port.
    public struct Target: Sendable, Equatable {
        public var url: String
        public var scheme: String
        public var host: String
        public var port: Int
        /// The literal address when the host is one.
        public var literal: IPAddress?
    }

    /// The kind of an address, for the policy.
    public enum AddressClass: String, Sendable, Equatable {
        case `public`, loopback, `private`, linkLocal, sharedAddressSpace, unspecified, multicast, reserved

        /// Words for messages.
        var words: String {
            switch self {
            case .public: "a public address"
            case .loopback: "a loopback address"
            case .private: "a private-network address"
            case .linkLocal: "a link-local address (cloud metadata services live there)"
            case .sharedAddressSpace: "a shared (carrier-grade NAT) address"
            case .unspecified: "the unspecified address"
            case .multicast: "a multicast or broadcast address"
            case .reserved: "a reserved address"
            }
        }
    }

    /// An IPv4 or IPv6 address as bytes.
    public enum IPAddress: Sendable, Equatable, CustomStringConvertible {
        case v4([UInt8])
        case v6([UInt8])

        public var description: String {
            switch self {
            case .v4(let b): return b.map(String.init).joined(separator: ".")
            case .v6(let b):
                var storage = in6_addr()
                withUnsafeMutableBytes(of: &storage) { raw in for i in 0..<16 { raw[i] = b[i] } }
                var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                guard inet_ntop(AF_INET6, &storage, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
                return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }

        /// The class of this address (IPv4-mapped, -compatible, NAT64 and 6to4 forms by the IPv4 address inside).
        public var addressClass: AddressClass {
            switch self {
            case .v4(let b): return Self.classify(v4: b)
            case .v6(let b):
                if b.allSatisfy({ $0 == 0 }) { return .unspecified }
                if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }
                // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64).
                if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff { return Self.classify(v4: Array(b[12..<16])) }
                if b[0..<12].allSatisfy({ $0 == 0 }) { return Self.classify(v4: Array(b[12..<16])) }
                if b[0] == 0x00, b[1] == 0x64, b[2] == 0xff, b[3] == 0x9b, b[4..<12].allSatisfy({ $0 == 0 }) {
                    return Self.classify(v4: Array(b[12..<16]))
                }
                if b[0] == 0x20, b[1] == 0x02 { return Self.classify(v4: Array(b[2..<6])) }   // 6to4
                if b[0] & 0xfe == 0xfc { return .private }                                   // fc00::/7
                if b[0] == 0xfe, b[1] & 0xc0 == 0x80 { return .linkLocal }                   // fe80::/10
                if b[0] == 0xfe, b[1] & 0xc0 == 0xc0 { return .private }                     // fec0::/10 (site-local)
                if b[0] == 0xff { return .multicast }
                if b[0] == 0x20, b[1] == 0x01, b[2] == 0x0d, b[3] == 0xb8 { return .reserved }  // documentation
                if b[0] == 0x01, b[1..<8].allSatisfy({ $0 == 0 }) { return .reserved }           // discard-only 100::/64
                return .public
            }
        }

        static func classify(v4 b: [UInt8]) -> AddressClass {
            switch (b[0], b[1]) {
            case (0, _): return b.allSatisfy { $0 == 0 } ? .unspecified : .reserved
            case (10, _): return .private
            case (100, 64...127): return .sharedAddressSpace
            case (127, _): return .loopback
            case (169, 254): return .linkLocal
            case (172, 16...31): return .private
            case (192, 168): return .private
            case (192, 0) where b[2] == 0 || b[2] == 2: return .reserved       // IETF protocol assignments, TEST-NET-1
            case (198, 18...19): return .reserved                              // benchmarking
            case (198, 51) where b[2] == 100: return .reserved
            case (203, 0) where b[2] == 113: return .reserved
            case (224...239, _): return .multicast
            case (240...255, _): return b.allSatisfy { $0 == 255 } ? .multicast : .reserved
            default: return .public
            }
        }
    }

    /// Whether an address of `kind` may be called under `settings`; nil when it may, else why not.
    static func refusal(_ kind: AddressClass, settings: BlockingFunctionSettings) -> String? {
        switch kind {
        case .public: return nil
        case .loopback where settings.development || settings.allowPrivateNetworks: return nil
        case .private, .linkLocal, .sharedAddressSpace, .loopback:
            if settings.allowPrivateNetworks { return nil }
            return "is \(kind.words), which a blocking function may not have unless the administrator allows private networks (setting hooks.allow.private.networks, --hooks-allow-private-networks)"
        case .unspecified, .multicast, .reserved:
            return "is \(kind.words), which a blocking function can never have"
        }
    }

    /// Checks a function URL's form and, when its host is an address, the address: `INVALID_CONFIG`-worthy problems
    /// as a message (nil: fine). Used when the URL is configured and again before every call.
    public static func check(_ url: String, settings: BlockingFunctionSettings) -> Result<Target, PolicyError> {
        func fail(_ why: String) -> Result<Target, PolicyError> { .failure(PolicyError(message: why)) }
        guard !url.isEmpty else { return fail("the function URL is empty") }
        guard url.count <= maximumLength else { return fail("the function URL is longer than \(maximumLength) characters") }
        guard url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7f && $0.isASCII }) else {
            return fail("the function URL contains spaces, control characters (NUL included) or non-ASCII characters; percent-encode them")
        }
        guard let components = URLComponents(string: url), let rawScheme = components.scheme else {
            return fail("the function URL is not an absolute URL (https://host/path)")
        }
        let scheme = rawScheme.lowercased()
        guard scheme == "https" || scheme == "http" else { return fail("the function URL must use https (it uses \(scheme.prefix(20)))") }
        guard components.percentEncodedUser == nil, components.percentEncodedPassword == nil, !url.contains("@") else {
            return fail("the function URL must not carry a user name or password (user@host)")
        }
        guard components.percentEncodedFragment == nil, !url.contains("#") else { return fail("the function URL must not have a fragment (#…)") }
        guard var host = components.percentEncodedHost?.lowercased(), !host.isEmpty else { return fail("the function URL has no host") }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.contains("%") else { return fail("the function URL's host must not be percent-encoded or carry an IPv6 zone") }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else { return fail("the function URL's port must be 1 to 65535") }

        let literal: IPAddress?
        if host.contains(":") {
            guard let v6 = parseIPv6(host) else { return fail("the function URL's host \(host.prefix(60)) is not a valid IPv6 address") }
            literal = .v6(v6)
        } else if let v4 = parseIPv4(host) {
            guard v4.map(String.init).joined(separator: ".") == host else {
                return fail("the function URL's host \(host.prefix(60)) is an IPv4 address in a non-standard form (decimal, hex or octal); write a host name or a dotted-quad address")
            }
            literal = .v4(v4)
        } else {
            guard isHostName(host) else { return fail("the function URL's host \(host.prefix(60)) is not a valid host name") }
            literal = nil
        }
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        let loopbackName = name == "localhost" || name.hasSuffix(".localhost")
        let isLoopback = loopbackName || literal?.addressClass == .loopback
        if scheme == "http" {
            guard isLoopback, settings.development else {
                return fail(isLoopback
                    ? "the function URL uses http, which Hearth accepts only for a loopback host when the server runs with --dev; use https"
                    : "the function URL must use https (http only for a loopback host when the server runs with --dev)")
            }
        }
        if let literal, let why = refusal(literal.addressClass, settings: settings) {
            return fail("the function URL's host \(literal) \(why)")
        }
        if loopbackName, let why = refusal(.loopback, settings: settings) {
            return fail("the function URL's host \(host) \(why)")
        }
        return .success(Target(url: url, scheme: scheme, host: host, port: port, literal: literal))
    }

    /// A refusal by the policy: what is wrong and what to do.
    public struct PolicyError: Error, Sendable, Equatable {
        public var message: String
    }

    /// The addresses `target`'s host resolves to, each checked: the first allowed one to connect to (the call is
    /// pinned to it, so a second resolution cannot swap in another), or a refusal naming the address when any
    /// address is not allowed (a name that resolves to a private address among public ones is refused whole).
    static func resolve(_ target: Target, settings: BlockingFunctionSettings) async throws(PolicyError) -> IPAddress {
        if let literal = target.literal { return literal }
        let addresses: [IPAddress]
        do {
            if let resolver = settings.resolver {
                addresses = try await resolver(target.host).compactMap { text in
                    parseIPv6(text).map(IPAddress.v6) ?? parseIPv4(text).map(IPAddress.v4)
                }
            } else {
                addresses = try await NIOThreadPool.singleton.runIfActive { try lookUp(target.host, port: target.port) }
            }
        } catch {
            throw PolicyError(message: "the host \(target.host) of the function URL could not be resolved (\(error))")
        }
        guard let first = addresses.first else { throw PolicyError(message: "the host \(target.host) of the function URL has no address") }
        for address in addresses {
            if let why = refusal(address.addressClass, settings: settings) {
                throw PolicyError(message: "the host \(target.host) of the function URL resolves to \(address), which \(why)")
            }
        }
        return first
    }

    struct LookupFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// getaddrinfo, TCP, both families.
    static func lookUp(_ host: String, port: Int) throws -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let result else { throw LookupFailure(description: String(cString: gai_strerror(status))) }
        defer { freeaddrinfo(result) }
        var addresses: [IPAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = result
        while let entry = cursor {
            if let sockaddr = entry.pointee.ai_addr {
                if entry.pointee.ai_family == AF_INET {
                    let address = sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                    addresses.append(.v4(withUnsafeBytes(of: address) { Array($0) }))
                } else if entry.pointee.ai_family == AF_INET6 {
                    let address = sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                    addresses.append(.v6(withUnsafeBytes(of: address) { Array($0) }))
                }
            }
            cursor = entry.pointee.ai_next
        }
        var seen: [IPAddress] = []
        for address in addresses where !seen.contains(address) { seen.append(address) }
        return seen
    }

    /// An IPv4 address in any form `inet_aton` takes (`127.1`, `2130706433`, `0x7f.0.0.1`, `0177.0.0.1`), or nil.
    static func parseIPv4(_ host: String) -> [UInt8]? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var values: [UInt64] = []
        for part in parts {
            let text = part.lowercased()
            guard !text.isEmpty else { return nil }
            let value: UInt64?
            if text.hasPrefix("0x") {
                value = text.count == 2 ? 0 : UInt64(text.dropFirst(2), radix: 16)
            } else if text.count > 1, text.hasPrefix("0") {
                value = UInt64(text.dropFirst(), radix: 8)
            } else {
                value = UInt64(text, radix: 10)
            }
            guard let value, text.count <= 12 else { return nil }
            values.append(value)
        }
        var number: UInt64 = 0
        for (index, value) in values.enumerated() {
            if index < values.count - 1 {
                guard value <= 255 else { return nil }
                number |= value << UInt64(8 * (3 - index))
            } else {
                let bits = 8 * (4 - index)
                guard value < (UInt64(1) << UInt64(bits)) else { return nil }
                number |= value
            }
        }
        return [UInt8((number >> 24) & 0xff), UInt8((number >> 16) & 0xff), UInt8((number >> 8) & 0xff), UInt8(number & 0xff)]
    }

    static func parseIPv6(_ host: String) -> [UInt8]? {
        var storage = in6_addr()
        guard inet_pton(AF_INET6, host, &storage) == 1 else { return nil }
        return withUnsafeBytes(of: storage) { Array($0) }
    }

    /// LDH labels of 1 to 63 characters, at most 253 in all, the last label not all digits.
    static func isHostName(_ host: String) -> Bool {
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        guard !name.isEmpty, name.count <= 253 else { return false }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            guard (1...63).contains(label.count), label.first != "-", label.last != "-",
                  label.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return false }
        }
        return !(labels.last?.allSatisfy(\.isNumber) ?? true)
    }
}
