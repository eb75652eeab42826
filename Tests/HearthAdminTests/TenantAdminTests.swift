import Foundation
import HearthAdmin
import HearthAdminExample
import HearthAdminHummingbird
import HearthCore
import HearthServer
import HearthTesting
import HearthWire
import Hummingbird
import HummingbirdTesting
import Testing

/// HearthAdmin and Identity Platform tenants: tenant-aware token verification, tenant-bound admin clients, custom
/// tokens with `tenant_id`, and the middleware's tenant option. Tokens are signed with a real Hearth server's keys;
/// the admin API's tenant paths are checked on a loopback server that records what arrives.
@Suite(.serialized) struct TenantAdminTests {
    static let tenant = "acme-x7k2p"

    /// `idToken` re-signed with the server's active key with `firebase.tenant` = `tenant` (nil: none) and, for a
    /// session cookie, the session issuer.
    static func resigned(_ idToken: String, _ h: HearthHarness, tenant: String?, sessionCookie: Bool = false) async throws -> String {
        let payload = try #require(Data(base64URLEncoded: idToken.split(separator: ".")[1]))
        var claims = try JSONDecoder().decode(IDTokenClaims.self, from: payload)
        claims.firebase.tenant = tenant
        if sessionCookie { claims.issuer = "https://session.firebase.google.com/\(h.projectId)" }
        return try await h.server.keyRing.sign(claims)
    }

    /// Expects a `wrongTenant` refusal whose description holds no control or format character.
    static func expectWrongTenant(_ operation: () async throws -> VerifiedToken, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            let verified = try await operation()
            Issue.record("accepted a token of tenant \(verified.tenant ?? "(project)")", sourceLocation: sourceLocation)
        } catch let error as TokenVerificationError {
            #expect(error.reason == .wrongTenant, "\(error)", sourceLocation: sourceLocation)
            #expect(!error.description.unicodeScalars.contains { [.control, .format].contains($0.properties.generalCategory) },
                    sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    /// Issue 38, item 4: a project-level verifier verifies a tenant's token (as the Admin SDKs do) and exposes its
    /// tenant; `forTenant` accepts only that tenant's tokens (the project's and another tenant's are `wrongTenant`);
    /// `.projectOnly` refuses every tenant's; the tenant is checked after the signature (an edited claim is
    /// `badSignature`), compared as bytes (a decomposed "é", a NUL), and an empty requirement accepts nothing.
    @Test func verifiesTenantTokensAgainstTheExpectedTenant() async throws {
        try await HearthHarness.run { h in
            let session = try await h.signUp(email: "tenant@example.com")
            let projectToken = try #require(session.idToken)
            let tenantToken = try await Self.resigned(projectToken, h, tenant: Self.tenant)
            let otherToken = try await Self.resigned(projectToken, h, tenant: "other-t0k3n")
            let verifier = TokenVerifier(projectId: h.projectId, keySource: .hearth(h.baseURL))
            #expect(verifier.tenant == .any)

            // Project level: both verify; the tenant is exposed.
            let verified = try await verifier.verifyIDToken(tenantToken)
            #expect(verified.uid == session.localId && verified.tenant == Self.tenant)
            #expect(verified.claims["firebase"]?.objectValue?["tenant"] == .string(Self.tenant))
            #expect(try await verifier.verifyIDToken(projectToken).tenant == nil)

            // One tenant's verifier (sharing the keys).
            let acme = verifier.forTenant(Self.tenant)
            #expect(acme.tenant == .tenant(Self.tenant))
            #expect(try await acme.verifyIDToken(tenantToken).tenant == Self.tenant)
            await Self.expectWrongTenant { try await acme.verifyIDToken(projectToken) }
            await Self.expectWrongTenant { try await acme.verifyIDToken(otherToken) }
            // Per call, on any verifier.
            #expect(try await verifier.verifyIDToken(tenantToken, tenant: .tenant(Self.tenant)).uid == session.localId)
            await Self.expectWrongTenant { try await verifier.verifyIDToken(otherToken, tenant: .tenant(Self.tenant)) }
            #expect(try await acme.verifyIDToken(otherToken, tenant: .any).tenant == "other-t0k3n")

            // The project's users only.
            let projectOnly = TokenVerifier(projectId: h.projectId, keySource: .hearth(h.baseURL), tenant: .projectOnly)
            #expect(try await projectOnly.verifyIDToken(projectToken).tenant == nil)
            await Self.expectWrongTenant { try await projectOnly.verifyIDToken(tenantToken) }
            // An empty `firebase.tenant` is the project's, as the server reads an empty tenantId.
            #expect(try await projectOnly.verifyIDToken(try await Self.resigned(projectToken, h, tenant: "")).tenant == nil)

            // An empty requirement accepts nothing.
            let empty = verifier.forTenant("")
            await Self.expectWrongTenant { try await empty.verifyIDToken(projectToken) }
            await Self.expectWrongTenant { try await empty.verifyIDToken(try await Self.resigned(projectToken, h, tenant: "")) }

            // Bytes, not canonical equivalence; a NUL is not a terminator; the message shows neither raw.
            let decomposed = try await Self.resigned(projectToken, h, tenant: "cafe\u{301}-x7k2p")
            await Self.expectWrongTenant { try await verifier.forTenant("caf\u{E9}-x7k2p").verifyIDToken(decomposed) }
            #expect(try await verifier.forTenant("cafe\u{301}-x7k2p").verifyIDToken(decomposed).tenant == "cafe\u{301}-x7k2p")
            let withNUL = try await Self.resigned(projectToken, h, tenant: "acme-x7k2p\u{0}evil")
            await Self.expectWrongTenant { try await acme.verifyIDToken(withNUL) }
            let bidi = try await Self.resigned(projectToken, h, tenant: "acme\u{202E}-x7k2p")
            await Self.expectWrongTenant { try await acme.verifyIDToken(bidi) }

            // The claim is trusted only once the signature is: an edited tenant fails on the signature.
            let parts = projectToken.split(separator: ".")
            var payload = try #require(jwtPayload(projectToken))
            var firebase = try #require(payload["firebase"] as? [String: Any])
            firebase["tenant"] = Self.tenant
            payload["firebase"] = firebase
            let forged = "\(parts[0]).\(try rawJWT(header: [:], payload: payload).split(separator: ".")[1]).\(parts[2])"
            do {
                _ = try await acme.verifyIDToken(forged)
                Issue.record("an unsigned tenant claim was accepted")
            } catch let error as TokenVerificationError {
                #expect(error.reason == .badSignature)
            }

            // Session cookies: the same rules.
            let cookie = try await Self.resigned(projectToken, h, tenant: Self.tenant, sessionCookie: true)
            #expect(try await acme.verifySessionCookie(cookie).tenant == Self.tenant)
            #expect(try await verifier.verifySessionCookie(cookie).tenant == Self.tenant)
            await Self.expectWrongTenant { try await projectOnly.verifySessionCookie(cookie) }
            await Self.expectWrongTenant { try await verifier.forTenant("other-t0k3n").verifySessionCookie(cookie) }
        }
    }

    // MARK: The admin API of a tenant

    struct Captured: Sendable {
        let method: String
        let uri: String
        let authorization: String?
        let body: String
    }

    static let user = #"{"localId":"u1","emailVerified":false,"providerUserInfo":[],"validSince":"0","disabled":false,"createdAt":"0"}"#
    /// One answer that decodes as every admin response (and as a token endpoint's).
    static let answer = #"{"kind":"k","localId":"u1","emailVerified":false,"providerUserInfo":[],"users":[\#(user)],"sessionCookie":"cookie-1","access_token":"at-1","expires_in":3600}"#

    /// A loopback server that records every request and answers ``answer``; `body` gets its base URL.
    static func capturing<T: Sendable>(_ body: @Sendable (String, Locked<[Captured]>) async throws -> T) async throws -> T {
        let seen = Locked<[Captured]>([])
        let router = Router()
        let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            seen.mutate {
                $0.append(Captured(method: "\(request.method)", uri: request.uri.description, authorization: request.headers[.authorization],
                                   body: String(buffer: bytes)))
            }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: Self.answer)))
        }
        router.post("**", use: handler)
        router.get("**", use: handler)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        return try await app.test(.live) { client in
            try await body("http://127.0.0.1:\(try #require(client.port))", seen)
        }
    }

    /// Issue 38, item 4: a tenant's admin client (the Admin SDKs' `auth_for_tenant`) sends every user call to
    /// `projects/{p}/tenants/{t}/accounts…` and session cookies to `projects/{p}/tenants/{t}:createSessionCookie`;
    /// the project's client keeps the project paths; the tenant id is one percent-encoded path segment.
    @Test func tenantClientUsesTheTenantPaths() async throws {
        try await Self.capturing { base, seen in
            let project = AdminClient(baseURL: base, projectId: "demo-hearth", credentials: .emulatorOwner)
            #expect(project.tenantId == nil)
            let acme = try project.forTenant(Self.tenant)
            #expect(acme.tenantId == Self.tenant)
            #expect(await acme.projectId == "demo-hearth")
            _ = try await acme.getUser(uid: "u1")
            _ = try await acme.getUser(email: "ada@example.com")
            try await acme.createUser(AdminCreateUserRequest(localId: "u1", email: "ada@example.com"))
            try await acme.setCustomClaims(uid: "u1", ["role": .string("editor")])
            try await acme.revokeRefreshTokens(uid: "u1")
            try await acme.deleteUser(uid: "u1")
            _ = try await acme.listUsers(maxResults: 10)
            let tenantIDToken = try rawJWT(header: ["alg": "RS256"], payload: ["sub": "u1", "firebase": ["tenant": Self.tenant]], signature: "sig")
            #expect(try await acme.createSessionCookie(idToken: tenantIDToken, duration: 600) == "cookie-1")
            _ = try await project.getUser(uid: "u1")
            _ = try await project.createSessionCookie(idToken: "any", duration: 600)

            let tenantBase = "/identitytoolkit.googleapis.com/v1/projects/demo-hearth/tenants/\(Self.tenant)"
            let projectBase = "/identitytoolkit.googleapis.com/v1/projects/demo-hearth"
            #expect(seen.value.map { "\($0.method) \($0.uri)" } == [
                "POST \(tenantBase)/accounts:lookup", "POST \(tenantBase)/accounts:lookup", "POST \(tenantBase)/accounts",
                "POST \(tenantBase)/accounts:update", "POST \(tenantBase)/accounts:update", "POST \(tenantBase)/accounts:delete",
                "GET \(tenantBase)/accounts:batchGet?maxResults=10", "POST \(tenantBase):createSessionCookie",
                "POST \(projectBase)/accounts:lookup", "POST \(projectBase):createSessionCookie",
            ])
            #expect(seen.value.allSatisfy { $0.authorization == "Bearer owner" })
            #expect(seen.value.allSatisfy { !$0.body.contains("tenantId") }, "the path names the tenant; the body does not")

            // Ids that are not path-safe stay one segment.
            let cyrillic = try project.forTenant("тенант-x7k2p")
            _ = try await cyrillic.getUser(uid: "u1")
            #expect(seen.value.last?.uri == "\(projectBase)/tenants/%D1%82%D0%B5%D0%BD%D0%B0%D0%BD%D1%82-x7k2p/accounts:lookup")
            _ = try await project.forTenant("../x?y=1#z:w").getUser(uid: "u1")
            #expect(seen.value.last?.uri == "\(projectBase)/tenants/..%2Fx%3Fy%3D1%23z%3Aw/accounts:lookup")
        }
    }

    /// Issue 38, item 4: tenant ids a path cannot carry safely — empty, NUL, a line break, a bidi override, over
    /// 128 bytes — are refused with `INVALID_TENANT_ID` before any request; a tenant's client refuses to turn an ID
    /// token of the project or of another tenant into a session cookie (`TENANT_ID_MISMATCH`, nothing sent).
    @Test func badTenantIdsAndMismatchedTokensAreRefusedBeforeAnyRequest() async throws {
        try await Self.capturing { base, seen in
            let project = AdminClient(baseURL: base, projectId: "demo-hearth", credentials: .emulatorOwner)
            for bad in ["", "acme\u{0}", "acme\nx", "acme\u{202E}x", String(repeating: "a", count: 129)] {
                do {
                    _ = try project.forTenant(bad)
                    Issue.record("accepted tenant id \(bad.debugDescription)")
                } catch let error as AdminError {
                    #expect(error.code == "INVALID_TENANT_ID" && error.httpStatus == 0)
                }
            }
            #expect(try project.forTenant(String(repeating: "a", count: 128)).tenantId?.count == 128)
            let acme = try project.forTenant(Self.tenant)
            let projectToken = try rawJWT(header: ["alg": "RS256"], payload: ["sub": "u1", "firebase": ["sign_in_provider": "password"]], signature: "s")
            let otherToken = try rawJWT(header: ["alg": "RS256"], payload: ["sub": "u1", "firebase": ["tenant": "other-t0k3n"]], signature: "s")
            let nulToken = try rawJWT(header: ["alg": "RS256"], payload: ["sub": "u1", "firebase": ["tenant": Self.tenant + "\u{0}"]], signature: "s")
            for token in [projectToken, otherToken, nulToken, "not-a-jwt"] {
                do {
                    _ = try await acme.createSessionCookie(idToken: token, duration: 600)
                    Issue.record("a session cookie was requested for \(token)")
                } catch let error as AdminError {
                    #expect(error.code == "TENANT_ID_MISMATCH" && error.httpStatus == 0)
                }
            }
            #expect(seen.value.isEmpty)
        }
    }

    /// Issue 38, item 4: the revocation check looks the user up in the token's tenant — through a tenant client made
    /// from the project's one — and an admin client bound to another tenant (or a tenant's client given a project
    /// token) refuses with `wrongTenant` without a request.
    @Test func revocationCheckLooksUpInTheTokensTenant() async throws {
        try await HearthHarness.run { h in
            let session = try await h.signUp(email: "revoke@example.com")
            let projectToken = try #require(session.idToken)
            let tenantToken = try await Self.resigned(projectToken, h, tenant: Self.tenant)
            let verifier = TokenVerifier(projectId: h.projectId, keySource: .hearth(h.baseURL))
            try await Self.capturing { base, seen in
                let admin = AdminClient(baseURL: base, projectId: h.projectId, credentials: .emulatorOwner)
                #expect(try await verifier.verifyIDToken(tenantToken, checkRevokedWith: admin).tenant == Self.tenant)
                #expect(try await verifier.verifyIDToken(tenantToken, checkRevokedWith: try admin.forTenant(Self.tenant)).uid == session.localId)
                #expect(try await verifier.verifyIDToken(projectToken, checkRevokedWith: admin).tenant == nil)
                let tenantPath = "/identitytoolkit.googleapis.com/v1/projects/\(h.projectId)/tenants/\(Self.tenant)/accounts:lookup"
                #expect(seen.value.map(\.uri) == [tenantPath, tenantPath, "/identitytoolkit.googleapis.com/v1/projects/\(h.projectId)/accounts:lookup"])
                let otherTenant = try admin.forTenant("other-t0k3n")
                let acme = try admin.forTenant(Self.tenant)
                for (token, client) in [(tenantToken, otherTenant), (projectToken, acme)] {
                    do {
                        _ = try await verifier.verifyIDToken(token, checkRevokedWith: client)
                        Issue.record("looked a user up with a client of another tenant")
                    } catch let error as TokenVerificationError {
                        #expect(error.reason == .wrongTenant)
                    }
                }
                #expect(seen.value.count == 3)
            }
        }
    }

    /// Issue 38, item 4: custom tokens minted for a tenant carry `tenant_id` (the service account's, and a tenant
    /// client's), a project's none; bad tenant ids are refused; a client without a key cannot mint one.
    @Test func customTokensCarryTheTenant() async throws {
        let account = try TestServiceAccount(email: "backend@hearth-prod.iam.gserviceaccount.com")
        let serviceAccount = try await ServiceAccount(json: HearthAdminTests.serviceAccountJSON(account, projectId: "hearth-prod",
                                                                                                tokenURI: "http://127.0.0.1:1/token"))
        let plain = try await serviceAccount.createCustomToken(uid: "u1")
        #expect(jwtPayload(plain)?.keys.contains("tenant_id") == false)
        let scoped = try await serviceAccount.createCustomToken(uid: "u1", claims: ["plan": .string("pro")], tenantId: Self.tenant)
        #expect(jwtPayload(scoped)?["tenant_id"] as? String == Self.tenant)
        #expect((jwtPayload(scoped)?["claims"] as? [String: Any])?["plan"] as? String == "pro")
        for bad in ["", "acme\u{0}", "acme\u{2028}"] {
            await #expect(throws: ServiceAccount.Error.self) { try await serviceAccount.createCustomToken(uid: "u1", tenantId: bad) }
        }
        let admin = AdminClient(baseURL: "http://127.0.0.1:1", projectId: "hearth-prod", credentials: .serviceAccount(serviceAccount))
        #expect(jwtPayload(try await admin.forTenant(Self.tenant).createCustomToken(uid: "u2"))?["tenant_id"] as? String == Self.tenant)
        #expect(jwtPayload(try await admin.createCustomToken(uid: "u2"))?.keys.contains("tenant_id") == false)
        let owner = AdminClient(baseURL: "http://127.0.0.1:1", projectId: "demo-hearth", credentials: .emulatorOwner)
        do {
            _ = try await owner.forTenant(Self.tenant).createCustomToken(uid: "u2")
            Issue.record("minted a custom token without a key")
        } catch let error as AdminError {
            #expect(error.code == "INVALID_CREDENTIAL")
        }
    }

    /// Issue 38, item 4: a tenant's client shares the project client's access token (one token request for both).
    @Test func tenantClientSharesTheAccessToken() async throws {
        let account = try TestServiceAccount(email: "backend@hearth-prod.iam.gserviceaccount.com")
        try await Self.capturing { base, seen in
            let serviceAccount = try await ServiceAccount(json: HearthAdminTests.serviceAccountJSON(account, projectId: "hearth-prod", tokenURI: base + "/token"))
            let admin = AdminClient(baseURL: base, projectId: "hearth-prod", credentials: .serviceAccount(serviceAccount))
            _ = try await admin.getUser(uid: "u1")
            _ = try await admin.forTenant(Self.tenant).getUser(uid: "u1")
            _ = try await admin.forTenant("other-t0k3n").getUser(uid: "u1")
            #expect(seen.value.filter { $0.uri == "/token" }.count == 1)
            #expect(seen.value.filter { $0.uri != "/token" }.allSatisfy { $0.authorization == "Bearer at-1" })
            #expect(seen.value.count == 4)
        }
    }

    struct Context: HearthAuthRequestContext, RequestContext {
        var coreContext: CoreRequestContextStorage
        var verifiedToken: VerifiedToken?
        init(source: ApplicationRequestContextSource) { coreContext = .init(source: source) }
    }

    /// Issue 38, item 4: the middleware's `tenant` option admits only the tenant's users (401 for the project's and
    /// another tenant's), `.projectOnly` only the project's, and by default the verifier's own requirement applies;
    /// the handler sees the token's tenant.
    @Test func middlewareAdmitsTheExpectedTenantOnly() async throws {
        try await HearthHarness.run { h in
            let session = try await h.signUp(email: "mw@example.com")
            let projectToken = try #require(session.idToken)
            let tenantToken = try await Self.resigned(projectToken, h, tenant: Self.tenant)
            let otherToken = try await Self.resigned(projectToken, h, tenant: "other-t0k3n")
            let verifier = TokenVerifier(projectId: h.projectId, keySource: .hearth(h.baseURL))
            let router = Router(context: Context.self)
            let echo: @Sendable (Request, Context) async throws -> String = { _, context in context.verifiedToken?.tenant ?? "(project)" }
            router.group("acme").add(middleware: HearthAuthMiddleware(verifier: verifier, tenant: .tenant(Self.tenant))).get(use: echo)
            router.group("project").add(middleware: HearthAuthMiddleware(verifier: verifier, tenant: .projectOnly)).get(use: echo)
            router.group("any").add(middleware: HearthAuthMiddleware(verifier: verifier)).get(use: echo)
            router.group("bound").add(middleware: HearthAuthMiddleware(verifier: verifier.forTenant(Self.tenant))).get(use: echo)
            let app = Application(router: router)
            try await app.test(.router) { client in
                /// The body of a 200 answer, nil for a 401; anything else is an issue.
                func call(_ path: String, _ token: String) async throws -> String? {
                    try await client.execute(uri: path, method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                        if response.status == .unauthorized { return nil }
                        #expect(response.status == .ok, "\(path)")
                        return String(buffer: response.body)
                    }
                }
                let cases: [(String, String, String?)] = [
                    ("/acme", tenantToken, Self.tenant), ("/acme", projectToken, nil), ("/acme", otherToken, nil),
                    ("/bound", tenantToken, Self.tenant), ("/bound", otherToken, nil),
                    ("/project", projectToken, "(project)"), ("/project", tenantToken, nil),
                    ("/any", tenantToken, Self.tenant), ("/any", otherToken, "other-t0k3n"), ("/any", projectToken, "(project)"),
                ]
                for (path, token, expected) in cases {
                    let answered = try await call(path, token)
                    #expect(answered == expected, "\(path)")
                }
            }
        }
    }
}
