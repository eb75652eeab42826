import Foundation
import HearthCore
import HearthServer
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// Attacks on the admin API found in review: each is shown failing.
@Suite(.serialized) struct AdminAttackTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]
    static let users = WirePaths.adminAccounts(projectId: "demo-hearth")

    /// A web page the developer visits is a loopback peer too: its requests carry an `Origin`, and with DNS
    /// rebinding a `Host` that is not loopback. Neither gets the emulator credential.
    @Test func aWebPageCannotUseTheEmulatorCredential() async throws {
        try await HearthHarness.run { h in
            let created = try await h.send(.post, Self.users, body: #"{"localId":"victim"}"#, headers: Self.owner)
            #expect(created.status == 200, "\(created.text)")
            var fromPage = Self.owner
            fromPage[.origin] = "https://evil.example"
            let read = try await h.send(.get, Self.users + ":batchGet?maxResults=10", headers: fromPage)
            #expect(read.status == 403)
            #expect(read.errorCode == "INSUFFICIENT_PERMISSION")
            #expect(!read.text.contains("victim"))
            let wipe = try await h.send(.delete, "/emulator/v1/projects/demo-hearth/accounts", headers: fromPage)
            #expect(wipe.status == 404)
            // DNS rebinding: the page's name resolves to 127.0.0.1, so the request carries the page's Host (sent here
            // with curl, which writes the Host header as given).
            let curl = Process()
            curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            curl.arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer owner",
                              "-H", "Host: evil.example:9099", h.baseURL + Self.users + ":batchGet?maxResults=10"]
            let output = Pipe()
            curl.standardOutput = output
            try curl.run()
            let code = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            curl.waitUntilExit()
            #expect(code == "403", "curl said \(code)")
            for header in ["X-Real-IP", "Via"] {
                var proxied = Self.owner
                proxied[HTTPField.Name(header)!] = header == "Via" ? "1.1 proxy" : "203.0.113.9"
                #expect(try await h.send(.get, Self.users + ":batchGet?maxResults=10", headers: proxied).status == 403)
            }
            #expect(try await h.store.userCount() == 1)
            // An unsigned custom token from a page is not accepted either.
            let now = Int(Date().timeIntervalSince1970)
            let token = try rawJWT(header: ["alg": "none", "typ": "JWT"],
                                   payload: ["iss": "a@b.c", "sub": "a@b.c", "aud": CustomTokenClaims.audience, "iat": now, "exp": now + 600,
                                             "uid": "victim"])
            let signIn = try await h.send(.post, WirePaths.accounts("signInWithCustomToken") + "?key=k", body: "{\"token\":\"\(token)\"}",
                                          headers: [.origin: "https://evil.example"])
            #expect(signIn.errorCode == "INVALID_CUSTOM_TOKEN")
        }
    }

    /// Imported hash parameters are paid by every sign-in attempt: ones that would tie the server up are refused.
    @Test func costlyImportedHashesAreRefused() async throws {
        try await HearthHarness.run { h in
            let bcrypt31 = #"{"hashAlgorithm":"BCRYPT","users":[{"localId":"b","email":"b@example.com","passwordHash":"# + "\"" +
                Data("$2b$31$abcdefghijklmnopqrstuu5o2SClc1F7nbTkyTsrURpnm0UYCzHyi".utf8).base64EncodedString() + "\"}]}"
            let reply = try await h.send(.post, Self.users + ":batchCreate", body: bcrypt31, headers: Self.owner)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.text.contains("BCRYPT cost must be 4 to 16"), "\(reply.text)")
            let scrypt = #"{"hashAlgorithm":"STANDARD_SCRYPT","cpuMemCost":1048576,"blockSize":16,"parallelization":1,"dkLen":32,"users":[{"localId":"s","passwordHash":"AAAA","salt":"AAAA"}]}"#
            let refused = try await h.send(.post, Self.users + ":batchCreate", body: scrypt, headers: Self.owner)
            #expect(refused.status == 400, "\(refused.text)")
            #expect(refused.errorCode == "INVALID_HASH_ALGORITHM")
            #expect(try await h.store.userCount() == 0)
        }
    }

    /// Out-of-range input is a 400, and the server stays up (a huge `validSince` used to trap when written out).
    @Test func outOfRangeAdminInputIsRefusedAndTheServerStaysUp() async throws {
        try await HearthHarness.run { h in
            _ = try await h.send(.post, Self.users, body: #"{"localId":"u"}"#, headers: Self.owner)
            let cases: [(String, String, String)] = [
                (":update", #"{"localId":"u","validSince":"9223372036854775807"}"#, "INVALID_ARGUMENT"),
                (":update", #"{"localId":"u","createdAt":"9223372036854775807"}"#, "INVALID_ARGUMENT"),
                // 400 characters but 1600 bytes of claims.
                (":update", "{\"localId\":\"u\",\"customAttributes\":\"{\\\"a\\\":\\\"" + String(repeating: "€", count: 400) + "\\\"}\"}", "CLAIMS_TOO_LARGE"),
                (":query", "{\"expression\":[" + Array(repeating: #"{"userId":"u"}"#, count: 1001).joined(separator: ",") + "]}", "INVALID_ARGUMENT"),
                (":batchCreate", #"{"users":[{"localId":"t","lastLoginAt":"9223372036854775807"}]}"#, ""),
            ]
            for (suffix, body, code) in cases {
                let reply = try await h.send(.post, Self.users + suffix, body: body, headers: Self.owner)
                if code.isEmpty {
                    #expect(reply.status == 200 && reply.text.contains("up to the year 9999"), "\(reply.text.prefix(300))")
                } else {
                    #expect(reply.status == 400, "\(suffix): \(reply.text.prefix(300))")
                    #expect(reply.errorCode == code, "\(suffix): \(reply.text.prefix(300))")
                }
            }
            let lookup = try await h.send(.post, Self.users + ":lookup", body: #"{"localId":["u"]}"#, headers: Self.owner)
            #expect(lookup.status == 200)
        }
    }

    /// The token endpoint answers errors with an error status, never 200.
    @Test func tokenEndpointErrorsAreNot200() async throws {
        try await HearthHarness.run { h in
            let reply = try await h.send(.post, WirePaths.oauth2Token, body: #"{"grant_type":5}"#)
            #expect(reply.status == 400, "\(reply.text)")
            #expect(reply.text.contains("invalid_request"))
        }
    }

    /// A custom token naming a tenant must not sign in to the project's user of the same uid (issue 38: the
    /// token's tenant is not the request's, `TENANT_ID_MISMATCH`).
    @Test func customTokenForATenantIsRefused() async throws {
        let now = Int(Date().timeIntervalSince1970)
        let token = try rawJWT(header: ["alg": "none", "typ": "JWT"],
                               payload: ["iss": "a@b.c", "sub": "a@b.c", "aud": CustomTokenClaims.audience, "iat": now, "exp": now + 600,
                                         "uid": "alice", "tenant_id": "t1"])
        try await HearthHarness.run { h in
            let reply = try await h.post(WirePaths.accounts("signInWithCustomToken"), SignInWithCustomTokenRequest(token: token))
            #expect(reply.errorCode == "TENANT_ID_MISMATCH")
            #expect(try await h.store.userCount() == 0)
        }
    }

    /// The write-only client secret cannot be sent elsewhere by moving the provider's endpoints without it.
    @Test func movingAProviderEndpointNeedsTheSecretAgain() async throws {
        try await HearthHarness.run { h in
            let idps = WirePaths.v2Project("demo-hearth", "defaultSupportedIdpConfigs")
            let created = try await h.send(.post, idps + "?idpId=yahoo.com", body: #"{"enabled":true,"clientId":"c","clientSecret":"s3cret"}"#,
                                           headers: Self.owner)
            #expect(created.status == 200, "\(created.text)")
            let moved = try await h.send(.patch, idps + "/yahoo.com?updateMask=endpointBase", body: #"{"endpointBase":"http://203.0.113.9/steal"}"#,
                                         headers: Self.owner)
            #expect(moved.status == 400)
            #expect(moved.errorCode == "INVALID_CONFIG")
            #expect(try await h.store.idpConfig(providerId: "yahoo.com")?.endpointBase != "http://203.0.113.9/steal")
            let withSecret = try await h.send(.patch, idps + "/yahoo.com?updateMask=endpointBase,clientSecret",
                                              body: #"{"endpointBase":"http://127.0.0.1:1/yahoo","clientSecret":"new"}"#, headers: Self.owner)
            #expect(withSecret.status == 200, "\(withSecret.text)")
        }
    }
}
