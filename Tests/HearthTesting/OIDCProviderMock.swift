import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat

/// oidc-provider-mock (PyPI, authlib), the OpenID provider nobody here wrote, which `scripts/test` starts and
/// names in HEARTH_TEST_OIDC_ISSUER.
public enum OIDCProviderMock {
    /// Registers a confidential client (HTTP Basic at the token endpoint) whose only redirect URI is `redirectUri`.
    public static func registerClient(issuer: String, redirectUri: String) async throws -> (id: String, secret: String) {
        var request = HTTPClientRequest(url: issuer + "/oauth2/clients")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        let body = try JSONSerialization.data(withJSONObject: ["redirect_uris": [redirectUri], "token_endpoint_auth_method": "client_secret_basic"])
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let data = try await response.body.collect(upTo: 1 << 16)
        guard let object = try JSONSerialization.jsonObject(with: Data(buffer: data)) as? [String: Any],
              let id = object["client_id"] as? String, let secret = object["client_secret"] as? String
        else { throw HarnessError("oidc-provider-mock did not register the client: HTTP \(response.status.code)") }
        return (id, secret)
    }
}
