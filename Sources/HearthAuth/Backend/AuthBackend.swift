import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthWire

/// Where requests go: the seam between the SDK and the network (tests may substitute it).
public protocol AuthBackend: Sendable {
    /// POSTs `body` as JSON to `path` (host-relative, e.g. `/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPassword`)
    /// and decodes the answer. Server errors are thrown as `NSError`s in `AuthErrors.domain`.
    func post<Body: Encodable & Sendable, Answer: Decodable & Sendable>(_ path: String, _ body: Body, as: Answer.Type) async throws -> Answer
}

/// The URLSession backend: the server URL, the API key in `?key=`, Firebase's client headers.
public struct URLSessionAuthBackend: AuthBackend {
    public let serverURL: URL
    public let apiKey: String
    public let bundleId: String?
    public let appId: String?
    let session: URLSession

    public init(serverURL: URL, apiKey: String, bundleId: String? = nil, appId: String? = nil, session: URLSession = .shared) {
        self.serverURL = serverURL
        self.apiKey = apiKey
        self.bundleId = bundleId
        self.appId = appId
        self.session = session
    }

    public func post<Body: Encodable & Sendable, Answer: Decodable & Sendable>(_ path: String, _ body: Body, as: Answer.Type) async throws -> Answer {
        var components = URLComponents(url: serverURL, resolvingAgainstBaseURL: false)!
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + path
        components.queryItems = [URLQueryItem(name: "key", value: apiKey)]
        var request = URLRequest(url: components.url!)
        request.httpMethod = "POST"
        request.timeoutInterval = 30
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Hearth/Swift/1", forHTTPHeaderField: "X-Client-Version")
        if let bundleId { request.setValue(bundleId, forHTTPHeaderField: "X-Ios-Bundle-Identifier") }
        if let appId { request.setValue(appId, forHTTPHeaderField: "X-Firebase-GMPID") }
        request.httpBody = try JSONEncoder().encode(body)
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw AuthErrorUtils.error(.networkError, userInfo: [NSUnderlyingErrorKey: error.localizedDescription])
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            if let envelope = try? JSONDecoder().decode(GoogleErrorEnvelope.self, from: data) {
                let name = envelope.errorCode
                let code = AuthErrorUtils.code(forServerError: name, reason: envelope.error.errors.first?.reason)
                let detail = envelope.error.message.split(separator: ":", maxSplits: 1).dropFirst().first.map { $0.trimmingCharacters(in: .whitespaces) }
                var info: [String: any Sendable] = [AuthErrors.userInfoNameKey: name]
                if let provider = envelope.providerErrorMetadata { info.merge(AuthErrorUtils.providerUserInfo(provider)) { first, _ in first } }
                var message = detail.map { $0.isEmpty ? code.message : $0 } ?? code.message
                if code == .blockingCloudFunctionError, let detail, !detail.isEmpty { message = AuthErrorUtils.blockingFunctionMessage(detail) }
                throw AuthErrorUtils.error(code, message: message, userInfo: info)
            }
            throw AuthErrorUtils.error(.internalError, message: "HTTP \(status) from the server")
        }
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw AuthErrorUtils.error(.internalError, message: "The server's answer could not be read.")
        }
    }
}

extension AuthBackend {
    /// Sends an RPC of HearthWire's catalog to its client path (the v3 alias where there is one, as the Firebase
    /// Apple SDK does) and decodes the answer the RPC names.
    func send<R: WireRPC>(_ request: R) async throws -> R.Response {
        try await post(R.method.clientPath, request, as: R.Response.self)
    }
}
