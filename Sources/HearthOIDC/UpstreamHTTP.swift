import AsyncHTTPClient
import Foundation
import HearthWire
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// HTTP to upstream providers: bounded time and body size, JSON answers.
public struct UpstreamHTTP: Sendable {
    let client: HTTPClient
    let timeout: TimeAmount
    let maxBodySize: Int

    public init(client: HTTPClient = .shared, timeout: TimeAmount = .seconds(10), maxBodySize: Int = 1 << 20) {
        self.client = client
        self.timeout = timeout
        self.maxBodySize = maxBodySize
    }

    /// A response: status, headers and body.
    public struct Reply: Sendable {
        public var status: Int
        public var headers: HTTPHeaders
        public var body: Data

        /// The body decoded as `T`, or nil.
        public func decode<T: Decodable>(_ type: T.Type) -> T? {
            try? WireJSON.decoder.decode(type, from: body)
        }
    }

    func get(_ url: String, bearer: String? = nil) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        request.headers.add(name: "Accept", value: "application/json")
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        return try await send(request)
    }

    /// A form POST (`application/x-www-form-urlencoded`), with HTTP Basic credentials (already base64) when given.
    public func postForm(_ url: String, _ fields: [(String, String)], basicAuthorization: String? = nil) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Accept", value: "application/json")
        if let basicAuthorization { request.headers.add(name: "Authorization", value: "Basic \(basicAuthorization)") }
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(fields)))
        return try await send(request)
    }

    /// A POST of `body` with `headers` (an SMS webhook's JSON).
    public func post(_ url: String, headers: [(String, String)], body: Data) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        return try await send(request)
    }

    /// A copy whose requests wait at most `timeout` (configuration checks: a few seconds per probe).
    public func with(timeout: TimeAmount) -> UpstreamHTTP {
        UpstreamHTTP(client: client, timeout: timeout, maxBodySize: maxBodySize)
    }

    /// Why a request to `url` failed, in words, the real cause first: the name does not resolve (DNS), the connection
    /// is refused or times out, TLS fails. Never the request's content.
    public static func describe(_ error: any Error, url: String) -> String {
        let host = URLComponents(string: url)?.host ?? url
        if let failure = error as? NIOConnectionError {
            if failure.connectionErrors.isEmpty, failure.dnsAError != nil || failure.dnsAAAAError != nil {
                return "DNS: the host \(host) does not resolve (no network, or a mistyped host)"
            }
            if let io = failure.connectionErrors.first?.error as? IOError {
                if io.errnoCode == ECONNREFUSED { return "connect: \(host) refused the connection" }
                return "connect: \(host) cannot be reached (\(io.errnoCode == ENETUNREACH || io.errnoCode == EHOSTUNREACH ? "no route" : "error \(io.errnoCode)"))"
            }
            return "connect: no connection to \(host)"
        }
        if let io = error as? IOError {
            if io.errnoCode == ECONNREFUSED { return "connect: \(host) refused the connection" }
            return "connect: \(host) cannot be reached (error \(io.errnoCode))"
        }
        let text = String(describing: error)
        if text.contains("refused") { return "connect: \(host) refused the connection" }
        if text.lowercased().contains("name resolution") || text.contains("dnsA") || text.contains("EAI_") {
            return "DNS: the host \(host) does not resolve (no network, or a mistyped host)"
        }
        if text.contains("NIOSSL") || text.contains("TLS") || text.contains("handshake") || text.contains("certificate") {
            return "TLS: the secure connection to \(host) failed (certificate or protocol)"
        }
        if let client = error as? HTTPClientError {
            switch client {
            case .connectTimeout, .deadlineExceeded, .readTimeout, .writeTimeout: return "timeout: \(host) did not answer in time"
            case .remoteConnectionClosed: return "connect: \(host) closed the connection"
            default: return "HTTP: \(client)"
            }
        }
        if error is CancellationError { return "timeout: \(host) did not answer in time" }
        return "connect: \(host) could not be reached (\(type(of: error)))"
    }

    private func send(_ request: HTTPClientRequest) async throws -> Reply {
        let response = try await client.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: maxBodySize)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: body))
    }
}
