import Foundation
import HearthAdminExample
import HearthServer
import HearthTesting
import HearthWire
import Hummingbird
import HummingbirdTesting
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// docs/hooks.md's Swift example (`Examples/AdminBackend/BlockingFunctionsBackend.swift`) as the project's blocking
/// functions of a real server.
@Suite struct BlockingFunctionsExampleTests {
    /// Issue 39, item 7: the docs' Swift example decides sign-ups and sign-ins of a real server: an address outside
    /// the domain is refused with the example's message and not stored; a colleague gets `role: member` (stored and in
    /// the ID token); a sign-in from the blocked prefix is refused with the example's message — on both stores.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func theDocsSwiftExampleDecidesSignUpsAndSignIns(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store, configure: { $0.blockingFunctions.development = true }) { h in
            let port = try Self.freeLoopbackPort()
            let base = "http://127.0.0.1:\(port)"
            let clock = h.clock
            let router = exampleBlockingFunctionsRouter(hearthURL: h.baseURL, projectId: h.projectId, baseURL: base,
                                                        blockedPrefix: "127.0.0.", now: { clock.now })
            let (running, started) = AsyncStream<Void>.makeStream()
            let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
                                  onServerRunning: { _ in started.yield() })
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await app.runService(gracefulShutdownSignals: []) }
                var listening = running.makeAsyncIterator()
                _ = await listening.next()
                defer { group.cancelAll() }
                let owner: HTTPFields = [.authorization: "Bearer owner"]
                let configured = try await h.send(
                    .patch, WirePaths.identityToolkitV2 + "/projects/\(h.projectId)/config?updateMask=blockingFunctions",
                    body: #"{"blockingFunctions":{"triggers":{"beforeCreate":{"functionUri":"\#(base)/before-create"}}}}"#,
                    headers: owner)
                #expect(configured.status == 200, "\(configured.text)")
                let signUp = WirePaths.accounts("signUp")

                let outsider = try await h.post(signUp, SignUpRequest(email: "eve@elsewhere.example", password: "correct horse"))
                #expect(outsider.status == 400 && outsider.errorCode == "BLOCKING_FUNCTION_ERROR_RESPONSE", "\(outsider.text)")
                #expect(outsider.text.contains("Only example.com addresses may sign up."), "\(outsider.text)")
                #expect(try await h.store.user(email: "eve@elsewhere.example") == nil)

                let colleague = try await h.post(signUp, SignUpRequest(email: "ann@example.com", password: "correct horse"))
                #expect(colleague.status == 200, "\(colleague.text)")
                let claims = jwtPayload(colleague.json?["idToken"] as? String ?? "") ?? [:]
                #expect(claims["role"] as? String == "member")
                #expect(try await h.store.user(email: "ann@example.com")?.customClaims == ["role": .string("member")])

                // beforeSignIn too: the harness's client comes from 127.0.0.1, which this run's example blocks.
                let both = try await h.send(
                    .patch, WirePaths.identityToolkitV2 + "/projects/\(h.projectId)/config?updateMask=blockingFunctions",
                    body: #"{"blockingFunctions":{"triggers":{"beforeCreate":{"functionUri":"\#(base)/before-create"},"beforeSignIn":{"functionUri":"\#(base)/before-sign-in"}}}}"#,
                    headers: owner)
                #expect(both.status == 200, "\(both.text)")
                let blocked = try await h.post(WirePaths.accounts("signInWithPassword"),
                                               SignInWithPasswordRequest(email: "ann@example.com", password: "correct horse"))
                #expect(blocked.status == 400 && blocked.errorCode == "BLOCKING_FUNCTION_ERROR_RESPONSE", "\(blocked.text)")
                #expect(blocked.text.contains("Sign-ins from your network are blocked."), "\(blocked.text)")
            }
        }
    }

    /// A loopback port nobody listens on now (the example needs its own URL before it starts).
    static func freeLoopbackPort() throws -> Int {
        #if canImport(Glibc)
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw HarnessError("no socket") }
        defer { _ = close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw HarnessError("no free loopback port") }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: actual.sin_port))
    }
}
