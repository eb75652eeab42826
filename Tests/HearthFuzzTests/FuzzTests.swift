import Foundation
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
    static let defaultIterations: [FuzzTarget: Int] = [.jwt: 600, .json: 3000, .form: 1500, .query: 1500, .provider: 1500, .smtp: 20000, .cbor: 20000, .webauthn: 20000]

    @Test(arguments: FuzzTarget.allCases)
    func shortRun(_ target: FuzzTarget) async throws {
        #expect(!FuzzCorpus.seeds(target).isEmpty, "no seeds in Fuzz/corpus/\(target.rawValue)")
        let rig = try await FuzzRig.start()
        let report = await FuzzLoop.run(rig, target, seed: Self.seed, iterations: Self.iterations ?? Self.defaultIterations[target]!,
                                        extraSeeds: rig.freshSeeds[target] ?? [])
        await rig.stop()
        print(report.summary)
        for (input, finding) in report.findings.prefix(3) {
            Issue.record("\(finding) — input (base64): \(Data(input).base64EncodedString())")
        }
        #expect(report.executions > 0)
    }

    /// The rig reaches the deep paths: the seeds' valid inputs get all the way through (a sign-in at the fake
    /// provider, a lookup of a fresh ID token, an auth handler redirect to the dev IdP).
    @Test func validSeedsGetThrough() async throws {
        let rig = try await FuzzRig.start()
        let provider = await rig.run(.provider, FuzzCorpus.providerParts(discovery: nil, jwks: nil, tokenResponse: nil, userinfo: nil, claims: nil))
        #expect(provider.finding == nil && provider.detail == "signed in as user-1", "\(provider.detail)")
        let jwt = await rig.run(.jwt, try #require(rig.freshSeeds[.jwt]?.first))
        #expect(jwt.finding == nil && jwt.detail.hasPrefix("lookup 200"), "\(jwt.detail)")
        let queries = try #require(rig.freshSeeds[.query])
        #expect(queries.count == 4)
        let start = await rig.run(.query, queries[0])
        #expect(start.finding == nil && start.detail == "auth handler [302, 302]", "\(start.detail)")
        // A live callback: delivered once (a redirect to the app), then refused as used (a page, not a 5xx).
        let callback = await rig.run(.query, queries[1])
        #expect(callback.finding == nil && callback.detail == "auth handler [302, 400]", "\(callback.detail)")
        // The corpus's start seeds use a well-formed session id, so they get as far as the redirect too.
        let seeded = await rig.run(.query, try #require(FuzzCorpus.seeds(.query).first { String(decoding: $0, as: UTF8.self).contains("appName") }))
        #expect(seeded.detail == "auth handler [302, 302]", "\(seeded.detail)")
        await rig.stop()
    }

    /// Where findings become regular tests (input and target, plus the fix). No run has found anything yet; the
    /// inputs here are hand-picked edge cases (a number out of Double's range, a NUL in a URL, an unsigned JWT).
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
