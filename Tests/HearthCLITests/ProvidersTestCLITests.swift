import Foundation
import Testing

/// `hearth providers test` and `--allowed-tenant`, run as a user would, against a `serve --dev` process's
/// Microsoft-shaped IdP (its client id and secret from `dev-idp-clients.json`).
@Suite struct ProvidersTestCLITests {
    struct DevClients: Decodable {
        struct Client: Decodable { var id: String; var secret: String }
        var microsoft: Client
    }

    @Test func checksTheConfigurationAndSaysWhatToFix() throws {
        let data = CLI.temporaryDirectory() + "/data"
        let server = try RunningServer.start(["--dev"], dataDir: data)
        defer { server.stop() }
        let clients = try JSONDecoder().decode(DevClients.self, from: Data(contentsOf: URL(fileURLWithPath: data + "/dev-idp-clients.json")))
        let base = server.url + "/__dev/microsoft"
        func enable(_ secret: String, _ extra: [String] = []) throws -> CLI.Result {
            try CLI.run(["providers", "enable", "microsoft.com", "--data-dir", data, "--client-id", clients.microsoft.id,
                         "--endpoint-base", base, "--graph-base", base] + extra, environment: ["HEARTH_CLIENT_SECRET": secret])
        }
        let enabled = try enable(clients.microsoft.secret, ["--allowed-tenant", "Contoso.com", "--allowed-tenant", "consumers"])
        #expect(enabled.status == 0, "\(enabled.output)")
        #expect(enabled.stdout.contains("tenants: contoso.com, consumers"), "\(enabled.stdout)")
        #expect(try CLI.run(["providers", "list", "--data-dir", data]).stdout.contains("tenants contoso.com,consumers"))

        let good = try CLI.run(["providers", "test", "microsoft.com", "--data-dir", data, "--public-url", server.url])
        #expect(good.status == 0, "\(good.output)")
        #expect(good.stdout.contains("microsoft.com: configuration looks right"), "\(good.stdout)")
        #expect(good.stdout.contains("accepted the client id \(clients.microsoft.id)"))
        #expect(good.stdout.contains("\(server.url)/__/auth/handler"))
        #expect(good.stdout.contains("allowed: contoso.com, consumers"))

        // The secret's ID pasted instead of its value.
        #expect(try enable("0f1e2d3c-secret-id").status == 0)
        let wrong = try CLI.run(["providers", "test", "microsoft.com", "--data-dir", data, "--public-url", server.url])
        #expect(wrong.status == 1)
        #expect(wrong.stdout.contains("FAILED  client: the provider refused the client id and secret: the client secret is wrong"), "\(wrong.stdout)")
        #expect(wrong.stdout.contains("fix: store the secret's Value"))
        #expect(!wrong.output.contains("0f1e2d3c-secret-id"))
        let json = try CLI.run(["providers", "test", "microsoft.com", "--data-dir", data, "--json"])
        #expect(json.stdout.contains("\"ok\" : false"), "\(json.stdout)")

        // Unreachable discovery.
        let moved = try CLI.run(["providers", "enable", "microsoft.com", "--data-dir", data, "--endpoint-base", "http://127.0.0.1:9248/nothing",
                                 "--client-secret=\(clients.microsoft.secret)"])
        #expect(moved.status == 0, "\(moved.output)")
        let unreachable = try CLI.run(["providers", "test", "microsoft.com", "--data-dir", data])
        #expect(unreachable.status == 1)
        #expect(unreachable.stdout.contains("FAILED  discovery"), "\(unreachable.stdout)")
        #expect(unreachable.stdout.contains("can reach http://127.0.0.1:9248/nothing/"), "\(unreachable.stdout)")

        // Bad input is refused in words; --any-tenant clears the list.
        let bad = try CLI.run(["providers", "enable", "microsoft.com", "--data-dir", data, "--allowed-tenant", "common"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("'common' is not a Microsoft tenant"), "\(bad.stderr)")
        #expect(try CLI.run(["providers", "enable", "yahoo.com", "--data-dir", data, "--allowed-tenant", "consumers"]).stderr
            .contains("apply to microsoft.com only"))
        #expect(try CLI.run(["providers", "enable", "microsoft.com", "--data-dir", data, "--any-tenant"]).stdout.contains("tenants: any"))
        let missing = try CLI.run(["providers", "test", "oidc.none", "--data-dir", data])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("oidc.none is not configured"))
    }
}
