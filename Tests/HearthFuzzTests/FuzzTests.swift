import Foundation
import HearthCore
import HearthFuzzing
import HearthTesting
import HearthWire
import Testing

/// The short fuzz run of `./scripts/test`: every seed of `Fuzz/corpus`, then a fixed number of seeded random
/// mutations per target through the real server, the real relying party and a fake provider (libFuzzer runs
/// longer: scripts/fuzz). HEARTH_FUZZ_ITERATIONS and HEARTH_FUZZ_SEED change the run; a finding prints its seed.
@Suite(.serialized) struct FuzzTests {
    static let iterations = ProcessInfo.processInfo.environment["HEARTH_FUZZ_ITERATIONS"].flatMap(Int.init)
    static let seed = ProcessInfo.processInfo.environment["HEARTH_FUZZ_SEED"].flatMap(UInt64.init) ?? 20_261_122

    /// Iterations per target in the short run (the HTTP targets are cheap; a provider input is four fetches).
    static let defaultIterations: [FuzzTarget: Int] = [.jwt: 400, .json: 1500, .form: 600, .query: 600, .provider: 400]

    @Test(arguments: FuzzTarget.allCases)
    func shortRun(_ target: FuzzTarget) async throws {
        #expect(!FuzzCorpus.seeds(target).isEmpty, "no seeds in Fuzz/corpus/\(target.rawValue)")
        let rig = try await FuzzRig.start()
        let report = await FuzzLoop.run(rig, target, seed: Self.seed, iterations: Self.iterations ?? Self.defaultIterations[target]!,
                                        extraSeeds: try await Self.freshSeeds(target))
        await rig.stop()
        print(report.summary)
        for (input, finding) in report.findings.prefix(3) {
            Issue.record("\(finding) — input (base64): \(Data(input).base64EncodedString())")
        }
        #expect(report.executions > 0)
    }

    /// Seeds that are valid now: a fresh ID token and refresh token of a real server (the corpus's own are signed
    /// with keys of a server that no longer runs).
    static func freshSeeds(_ target: FuzzTarget) async throws -> [[UInt8]] {
        guard target == .jwt || target == .json || target == .form else { return [] }
        return try await HearthHarness.run { h in
            let session = try await h.signUp(email: "seed@example.com")
            let idToken = try #require(session.idToken)
            let refreshToken = try #require(session.refreshToken)
            switch target {
            case .jwt: return [Array(idToken.utf8)]
            case .json:
                let lookup = [UInt8(2)] + Array(#"{"idToken":"\#(idToken)"}"#.utf8)
                let update = [UInt8(3)] + Array(#"{"idToken":"\#(idToken)","displayName":"Ada","deleteAttribute":["PHOTO_URL"],"returnSecureToken":true}"#.utf8)
                return [lookup, update]
            default: return [Array("grant_type=refresh_token&refresh_token=\(refreshToken)".utf8)]
            }
        }
    }

    /// Findings become regular tests: these inputs once reached a parser the fuzzer went through; each must be
    /// answered with a 4xx envelope (or a relying-party error) from now on.
    @Test func regressionInputs() async throws {
        let rig = try await FuzzRig.start()
        for (target, input) in Self.regressions {
            let finding = await rig.check(target, Array(input.utf8))
            #expect(finding == nil, "\(target): \(String(describing: finding))")
        }
        await rig.stop()
    }

    static let regressions: [(FuzzTarget, String)] = [
        (.json, "\u{0}{\"email\":\"a@b.c\",\"password\":1e309}"),
        (.query, "apiKey=k&providerId=microsoft.com&authType=signInWithRedirect&redirectUrl=%00&sessionId=&v=1"),
        (.jwt, "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0."),
    ]
}
