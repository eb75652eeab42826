import Foundation
import HearthCore
import HearthDevIdP
import HearthStore
import Hummingbird
#if canImport(Glibc)
import Glibc
#endif

/// The dev IdPs (HearthDevIdP) served by a process of their own for the signInWithIdp scenario: the benchmark
/// spawns itself with `--dev-idp-server PORT`, so that the provider's pages, its code exchange and its token
/// signing are not counted as the measured server's CPU (issue 41, item 4). The measured server reaches it
/// through a stored `microsoft.com` configuration, as it would reach the real Microsoft.
enum DevIdPServer {
    /// The configuration the measured server signs in with: the dev IdP process's Microsoft, by its URL.
    static func config(port: Int, client: DevIdentityProviders.Client) -> IdPConfig {
        let base = "http://127.0.0.1:\(port)" + DevIdentityProviders.microsoftPath
        return IdPConfig(providerId: "microsoft.com", kind: .microsoft, clientId: client.id, clientSecret: client.secret,
                         endpointBase: base, graphBase: base, displayName: "Microsoft (bench dev IdP, own process)")
    }

    /// `hearth-bench --dev-idp-server PORT --relying-party URL --client-id ID --client-secret SECRET`: runs until killed.
    static func run(port: Int, relyingParty: String, clientId: String, clientSecret: String) async throws {
        let client = DevIdentityProviders.Client(id: clientId, secret: clientSecret)
        let providers = try await DevIdentityProviders(publicURL: PublicBaseURL("http://127.0.0.1:\(port)"), microsoftClient: client,
                                                       relyingParty: PublicBaseURL(relyingParty))
        let router = Router()
        router.get("/healthz") { _, _ in "ok" }
        providers.register(on: router)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "hearth-bench dev IdP"))
        try await app.runService()
    }
}

extension Bench {
    /// Starts this executable as the dev IdP server on `port` (its output to the data directory's `dev-idp.log`) and
    /// waits for it to answer. Returns its process id.
    func startDevIdP(port: Int, client: DevIdentityProviders.Client) async throws -> Int32 {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
        let arguments = [executable, "--dev-idp-server", "\(port)", "--relying-party", base, "--client-id", client.id, "--client-secret", client.secret]
        let pid = try Self.spawn(arguments, stdout: "/dev/null", stderr: dataDir + "/dev-idp.log")
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            var exit: Int32 = 0
            if waitpid(pid, &exit, WNOHANG) == pid {
                let text = (try? String(contentsOfFile: dataDir + "/dev-idp.log", encoding: .utf8)) ?? ""
                throw BenchError("the dev IdP process exited: \(text.suffix(2000))")
            }
            if let reply = try? await get("http://127.0.0.1:\(port)/healthz"), reply.status == 200 { return pid }
            try await Task.sleep(for: .milliseconds(100))
        }
        kill(pid, SIGKILL)
        waitpid(pid, nil, 0)
        throw BenchError("the dev IdP process did not answer on port \(port) within 30 s")
    }

    /// Stops the dev IdP process (SIGTERM, then SIGKILL) and reaps it.
    func stopDevIdP(_ pid: Int32) async {
        kill(pid, SIGTERM)
        var exit: Int32 = 0
        for _ in 0..<60 {
            if waitpid(pid, &exit, WNOHANG) == pid { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
        kill(pid, SIGKILL)
        waitpid(pid, &exit, 0)
    }
}

extension Bench {
    /// The dev IdP process's port.
    var devIdPPort: Int { options.devIdPPort ?? options.port + 2 }

    /// The `microsoft.com` client the measured server and the dev IdP process share (per bench run).
    var devIdPClient: DevIdentityProviders.Client {
        DevIdentityProviders.Client(id: "bench-ms-\(devIdPPort)", secret: "bench-secret-\(ProcessInfo.processInfo.processIdentifier)-\(devIdPPort)")
    }
}
