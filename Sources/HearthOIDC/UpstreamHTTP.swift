import AsyncHTTPClient
import Foundation
import HearthWire
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

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

    func postForm(_ url: String, _ fields: [(String, String)], basicAuthorization: String? = nil) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Accept", value: "application/json")
        if let basicAuthorization { request.headers.add(name: "Authorization", value: "Basic \(basicAuthorization)") }
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(fields)))
        return try await send(request)
    }

    private func send(_ request: HTTPClientRequest) async throws -> Reply {
        let response = try await client.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: maxBodySize)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: body))
    }
}
