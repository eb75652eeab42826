import Foundation
import HTTPTypes
import HearthCore
import HearthOIDC
import HearthServer
import HearthTesting
import HearthWire
import Logging
import Testing

/// Issue 13 item 5: provider errors keep their structure (logged, counted, passed to the app), and a provider's
/// configuration can be checked without a user.
@Suite struct ProviderDiagnosticsTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    @Test func parsesMicrosoftYahooAndPlainOAuthErrors() throws {
        let microsoft = ProviderErrorInfo.parse(providerId: "microsoft.com", fields: [
            "error": .string("invalid_client"),
            "error_description": .string("AADSTS7000215: Invalid client secret provided.\r\nTrace ID: 0b1c2d3e-aaaa-bbbb-cccc-1234567890ab"),
            "error_codes": .array([.number(7000215)]), "trace_id": .string("11111111-2222-3333-4444-555555555555"),
            "correlation_id": .string("66666666-7777-8888-9999-000000000000"),
        ])
        #expect(microsoft.error == "invalid_client")
        #expect(microsoft.errorCodes == ["AADSTS7000215"])
        #expect(microsoft.traceId == "11111111-2222-3333-4444-555555555555")
        #expect(microsoft.correlationId == "66666666-7777-8888-9999-000000000000")
        #expect(microsoft.errorDescription == "AADSTS7000215: Invalid client secret provided.", "first line only")
        #expect(microsoft.reason == "invalid_client")

        // An authorization error redirect: the ids are only in the description.
        let redirect = ProviderErrorInfo.parse(providerId: "microsoft.com", query: [
            "error": "access_denied",
            "error_description": "AADSTS50020: User account 'a@b.com' does not exist. Trace ID: abcdef01-0000-0000-0000-000000000001 Correlation ID: abcdef01-0000-0000-0000-000000000002 Timestamp: 2026-11-22 10:00:00Z",
        ])
        #expect(redirect.providerErrorCode == "AADSTS50020")
        #expect(redirect.traceId == "abcdef01-0000-0000-0000-000000000001")
        #expect(redirect.correlationId == "abcdef01-0000-0000-0000-000000000002")
        #expect(redirect.reason == "access_denied")

        // Yahoo's error object and its code.
        let yahoo = ProviderErrorInfo.parse(providerId: "yahoo.com", fields: [
            "error": .object(["description": .string("Client authentication failed"), "code": .string("INVALID_CLIENT")]),
        ])
        #expect(yahoo.errorDescription == "Client authentication failed")
        #expect(yahoo.errorCodes == ["INVALID_CLIENT"])
        let yahooPlain = ProviderErrorInfo.parse(providerId: "yahoo.com", fields: [
            "error": .string("invalid_grant"), "error_description": .string("Authorization code expired"), "error_code": .number(1402),
        ])
        #expect(yahooPlain.errorCodes == ["1402"])
        #expect(yahooPlain.reason == "invalid_grant")

        // Anything a provider invents is `other` (the metrics label set stays bounded); junk ids are dropped.
        let odd = ProviderErrorInfo.parse(providerId: "oidc.x", fields: [
            "error": .string("made_up_\(UUID().uuidString)"), "trace_id": .string("<script>"), "error_description": .string(String(repeating: "x", count: 1000)),
        ])
        #expect(odd.reason == "other")
        #expect(odd.traceId == nil)
        #expect(odd.errorDescription?.count == 300)
    }

    @Test func tokenEndpointRefusalIsLoggedCountedAndPassedToTheApp() async throws {
        let records = LogCapture.Records()
        var logger = Logger(label: "hearth.test") { _ in LogCapture(records: records) }
        logger.logLevel = .notice
        try await HearthHarness.run(devIdPs: true, logger: logger) { h in
            // The administrator pasted the wrong secret: the browser part works, the code exchange is refused.
            try await h.storeDevProviderConfig("microsoft.com")
            var config = try #require(try await h.store.idpConfig(providerId: "microsoft.com"))
            config.clientSecret = "the-secret-id-not-its-value"
            try await h.store.saveIdPConfig(config)
            let reply = try await h.federatedSignIn(providerId: "microsoft.com", email: "ada@outlook.com")
            #expect(reply.status == 400)
            #expect(reply.errorCode == "INVALID_IDP_RESPONSE")
            let envelope = try #require(reply.envelope)
            #expect(envelope.error.message.contains("invalid_client, AADSTS7000215"), "\(reply.text)")
            let detail = try #require(envelope.error.details?.first)
            #expect(detail.type == "type.googleapis.com/google.rpc.ErrorInfo")
            #expect(detail.domain == ProviderErrorInfo.errorInfoDomain)
            #expect(detail.reason == "invalid_client")
            let metadata = detail.metadata
            #expect(metadata["providerId"] == "microsoft.com")
            #expect(metadata["providerError"] == "invalid_client")
            #expect(metadata["providerErrorCode"] == "AADSTS7000215")
            #expect(metadata["providerTraceId"]?.count == 36)
            #expect(metadata["providerCorrelationId"]?.count == 36)
            let correlationId = try #require(metadata["correlationId"])
            #expect(envelope.error.message.contains(correlationId))

            let line = try #require(records.all.first { $0.message == "federated sign-in refused" })
            #expect(line.level == .notice)
            #expect(line.metadata["reason_code"] == "invalid_client")
            #expect(line.metadata["provider_error_codes"] == "AADSTS7000215")
            #expect(line.metadata["provider_trace_id"] == metadata["providerTraceId"])
            #expect(line.metadata["correlation_id"] == correlationId)
            #expect(!records.all.contains { "\($0.message) \($0.metadata)".contains("the-secret-id-not-its-value") })

            let counter = h.server.configuration.metrics.counterValue(.providerErrors, ["microsoft.com", "invalid_client"])
            #expect(counter == 1)

            // The provider's own refusal at the authorization endpoint (a personal account on `organizations`)
            // carries Microsoft's trace id to the app and is counted under its OAuth error.
            let flow = try await h.browserSignIn(providerId: "microsoft.com", email: "eve@outlook.com", customParameters: ["tenant": "organizations"])
            let web = try #require(flow.webError)
            #expect(web.providerErrorCode == "AADSTS50020")
            #expect(web.providerTraceId?.count == 36)
            #expect(h.server.configuration.metrics.counterValue(.providerErrors, ["microsoft.com", "access_denied"]) == 1)
            // A cancel is counted as one.
            _ = try await h.browserSignIn(providerId: "microsoft.com", email: "eve@outlook.com", cancel: true)
            #expect(h.server.configuration.metrics.counterValue(.providerErrors, ["microsoft.com", "cancelled"]) == 1)
        }
    }

    // MARK: Configuration check

    func check(_ h: HearthHarness, _ providerId: String = "microsoft.com") async throws -> ProviderCheckReport {
        let collection = providerId.hasPrefix("oidc.") ? "oauthIdpConfigs" : "defaultSupportedIdpConfigs"
        let reply = try await h.send(.post, "/identitytoolkit.googleapis.com/v2/projects/\(h.projectId)/\(collection)/\(providerId):test",
                                     headers: Self.owner)
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.decode(ProviderCheckReport.self)
    }

    @Test func configurationCheckAgainstTheDevIdPs() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            // Right settings: every check passes, and the redirect URI to register is named.
            for providerId in ["microsoft.com", "yahoo.com"] {
                try await h.storeDevProviderConfig(providerId)
                let report = try await check(h, providerId)
                #expect(report.ok, "\(report.text)")
                #expect(report.redirectUri == h.baseURL + "/__/auth/handler")
                #expect(Set(report.checks.filter { $0.status == .ok }.map(\.name)) == ["discovery", "issuer", "keys", "client"], "\(report.text)")
                #expect(report.checks.first { $0.name == "client" }?.detail.contains("accepted the client id") == true)
                #expect(report.checks.first { $0.name == "redirectUri" }?.detail.contains(h.baseURL + "/__/auth/handler") == true)
            }

            // Wrong secret: says so, and what to do.
            var config = try #require(try await h.store.idpConfig(providerId: "microsoft.com"))
            config.clientSecret = "S3cret-Wrong-Value-123"
            try await h.store.saveIdPConfig(config)
            let wrongSecret = try await check(h)
            #expect(!wrongSecret.ok)
            let client = try #require(wrongSecret.checks.first { $0.name == "client" })
            #expect(client.status == .failed)
            #expect(client.detail.contains("the client secret is wrong"), "\(client.detail)")
            #expect(client.detail.contains("AADSTS7000215"))
            #expect(client.fix?.contains("Value") == true)
            #expect(client.providerError?.traceId != nil)
            let json = String(decoding: try JSONEncoder().encode(wrongSecret), as: UTF8.self)
            #expect(!json.contains("S3cret-Wrong-Value-123") && !wrongSecret.text.contains("S3cret-Wrong-Value-123"), "the secret is never echoed")

            // Unknown client id.
            config.clientId = "nobody-registered-this"
            try await h.store.saveIdPConfig(config)
            let unknown = try await check(h)
            #expect(unknown.checks.first { $0.name == "client" }?.detail.contains("does not know the client id nobody-registered-this") == true, "\(unknown.text)")

            // Unreachable discovery (nothing listens on this port).
            config.endpointBase = "http://127.0.0.1:9249/__dev/microsoft"
            try await h.store.saveIdPConfig(config)
            let unreachable = try await check(h)
            #expect(!unreachable.ok)
            let discovery = try #require(unreachable.checks.first { $0.name == "discovery" })
            #expect(discovery.status == .failed)
            // The real cause first (issue 18.7): the connection was refused.
            #expect(discovery.detail.contains("connect: 127.0.0.1 refused the connection"), "\(discovery.detail)")
            #expect(discovery.fix?.contains("can reach http://127.0.0.1:9249/__dev/microsoft/") == true, "\(discovery.fix ?? "")")
            #expect(!unreachable.checks.contains { $0.name == "client" }, "no secret is sent anywhere when discovery fails")

            // Wrong issuer for an oidc.* provider: the Yahoo dev IdP under another issuer name.
            try await h.store.saveIdPConfig(IdPConfig(providerId: "oidc.corp", kind: .oidc, clientId: h.devIdPs!.yahooClient.id,
                                                      clientSecret: h.devIdPs!.yahooClient.secret, issuer: h.devIdPs!.yahooBase + "/"))
            #expect(try await check(h, "oidc.corp").ok, "a trailing slash is the same issuer")
            try await h.store.saveIdPConfig(IdPConfig(providerId: "oidc.other", kind: .oidc, clientId: "x", clientSecret: "y",
                                                      issuer: h.baseURL + "/__dev/microsoft/common/v2.0"))
            let foreign = try await check(h, "oidc.other")
            #expect(foreign.checks.first { $0.name == "discovery" }?.detail.contains("issuer differs") == true, "\(foreign.text)")

            // Not configured, and admin only.
            let missing = try await h.send(.post, "/identitytoolkit.googleapis.com/v2/projects/\(h.projectId)/oauthIdpConfigs/oidc.none:test",
                                           headers: Self.owner)
            #expect(missing.errorCode == "CONFIGURATION_NOT_FOUND")
            let anonymous = try await h.send(.post, "/identitytoolkit.googleapis.com/v2/projects/\(h.projectId)/defaultSupportedIdpConfigs/microsoft.com:test")
            #expect(anonymous.status == 401)
        }
    }

    @Test func tenantAllowListIsPartOfTheCheck() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.storeDevProviderConfig("microsoft.com")
            var config = try #require(try await h.store.idpConfig(providerId: "microsoft.com"))
            config.allowedEntraTenants = ["contoso.com", "consumers"]
            try await h.store.saveIdPConfig(config)
            let report = try await check(h)
            #expect(report.ok, "\(report.text)")
            #expect(report.checks.first { $0.name == "tenants" }?.detail == "allowed: contoso.com, consumers")
        }
    }
}
