import Foundation
import HTTPTypes
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// Issue 40, item 4: the defences of phone sign-in, attacked through the real server on loopback on both stores —
/// code guessing under a parallel burst (per session and per number), replays, another tenant's `sessionInfo`,
/// expiry, malformed numbers and codes, the region policy, the daily budget, test numbers, the send limits per
/// number and per address, and app verification (reCAPTCHA against a loopback stand-in of the verify endpoint;
/// a production project without it). Each refusal stores and sends nothing.
@Suite struct PhoneDefenceTests {
    typealias P = PhoneSignInTests
    static let ada = PhoneSignInTests.ada

    /// A six-digit code other than `code`.
    static func wrong(_ code: String, _ offset: Int = 1) -> String {
        String(format: "%06d", ((Int(code) ?? 0) + offset) % 1_000_000)
    }

    /// The SMS counted against the project's budget today.
    static func budgetCount(_ h: HearthHarness) async throws -> Int {
        try await h.store.rateLimitCount(key: "sms|budget|\(h.projectId)",
                                         window: Int64((h.clock.now.timeIntervalSince1970 / 86400).rounded(.down))).current
    }

    // MARK: Guessing

    /// Issue 40, item 4: a burst of 50 parallel wrong guesses on one sessionInfo gets at most 5 compared (each
    /// counted atomically before the comparison): at most 4 answers say INVALID_CODE, the others
    /// TOO_MANY_ATTEMPTS_TRY_LATER (or the session is gone) — and the right code is refused afterwards.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aBurstOfGuessesIsHeldToFivePerSession(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let (sessionInfo, code) = try await P.codeFor(h, Self.ada)
            let codes = try await withThrowingTaskGroup(of: String?.self) { group in
                for offset in 1...50 {
                    group.addTask {
                        try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: sessionInfo, code: Self.wrong(code, offset))).errorCode
                    }
                }
                var codes: [String?] = []
                for try await code in group { codes.append(code) }
                return codes
            }
            #expect(codes.count == 50)
            let compared = codes.filter { $0 == "INVALID_CODE" }.count
            #expect(compared <= 4, "\(compared) wrong codes were compared: \(codes)")
            #expect(codes.allSatisfy { ["INVALID_CODE", "TOO_MANY_ATTEMPTS_TRY_LATER", "INVALID_SESSION_INFO"].contains($0 ?? "") }, "\(codes)")
            #expect(codes.contains("TOO_MANY_ATTEMPTS_TRY_LATER"))
            let right = try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: sessionInfo, code: code))
            #expect(right.status == 400 && right.json?["idToken"] == nil, "\(right.text)")
            #expect(try await h.store.userCount() == 0)
        }
    }

    /// Issue 40, item 1: a code completes once — of 20 parallel sign-ins with the right code, exactly one gets
    /// tokens, the others INVALID_SESSION_INFO (or TOO_MANY_ATTEMPTS_TRY_LATER past the session's 5 checks) — and two sessions of one new number finishing at once make one user.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func theRightCodeSignsInOnceUnderABurst(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let (sessionInfo, code) = try await P.codeFor(h, Self.ada)
            let answers = try await withThrowingTaskGroup(of: HearthHarness.Reply.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: sessionInfo, code: code)) }
                }
                var answers: [HearthHarness.Reply] = []
                for try await answer in group { answers.append(answer) }
                return answers
            }
            // One signs in; the others find the code used (or, counted after its 5 checks, are told so).
            #expect(answers.filter { $0.status == 200 }.count == 1, "\(answers.map(\.text))")
            #expect(answers.filter { ["INVALID_SESSION_INFO", "TOO_MANY_ATTEMPTS_TRY_LATER"].contains($0.errorCode ?? "") }.count == 19,
                    "\(answers.map(\.text))")

            let first = try await P.codeFor(h, PhoneSignInTests.bob)
            let second = try await P.codeFor(h, PhoneSignInTests.bob)
            async let one = P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: first.sessionInfo, code: first.code))
            async let two = P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: second.sessionInfo, code: second.code))
            let replies = try await [one, two]
            #expect(replies.allSatisfy { $0.status == 200 }, "\(replies.map(\.text))")
            let ids = Set(try replies.map { try $0.decode(SignInWithPhoneNumberResponse.self).localId })
            #expect(ids.count == 1)
            #expect(try await h.store.userCount() == 2)
        }
    }

    /// Issue 40, item 4: the 5th wrong code ends the session (TOO_MANY_ATTEMPTS_TRY_LATER, then the right code is
    /// INVALID_SESSION_INFO); 10 wrong codes for one number across its sessions stop every check of that number —
    /// even a new session's right code — for an hour; then it signs in.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func wrongCodesAreLimitedPerSessionAndPerNumber(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let first = try await P.codeFor(h, Self.ada)
            for offset in 1...4 {
                P.refused(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: first.sessionInfo, code: Self.wrong(first.code, offset))),
                          "INVALID_CODE")
            }
            P.refused(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: first.sessionInfo, code: Self.wrong(first.code, 5))),
                      "TOO_MANY_ATTEMPTS_TRY_LATER")
            P.refused(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: first.sessionInfo, code: first.code)), "INVALID_SESSION_INFO")
            // 5 wrong so far for the number; 4 more on a second session, 1 on a third: 10.
            let second = try await P.codeFor(h, Self.ada)
            for offset in 1...4 {
                P.refused(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: second.sessionInfo, code: Self.wrong(second.code, offset))),
                          "INVALID_CODE")
            }
            let third = try await P.codeFor(h, Self.ada)
            P.refused(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: third.sessionInfo, code: Self.wrong(third.code))), "INVALID_CODE")
            // The number is locked: the right code of a live session, and of a new one, are refused.
            P.refused(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: third.sessionInfo, code: third.code)),
                      "TOO_MANY_ATTEMPTS_TRY_LATER")
            let fourth = try await P.codeFor(h, Self.ada)
            P.refused(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: fourth.sessionInfo, code: fourth.code)),
                      "TOO_MANY_ATTEMPTS_TRY_LATER")
            // Another number is not affected.
            #expect(try await P.signIn(h, PhoneSignInTests.bob).isNewUser == true)
            h.clock.advance(by: 3601)
            #expect(try await P.signIn(h, Self.ada).isNewUser == true)
        }
    }

    /// Issue 40, item 4: a used sessionInfo is INVALID_SESSION_INFO (single use), an expired one SESSION_EXPIRED
    /// (5 minutes on the test clock), another tenant's INVALID_SESSION_INFO (and it still works in its own), a
    /// temporaryProof is no sessionInfo.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func replayExpiryAndAnotherTenantsSessionInfo(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await TenantTests.addTenant(h, "acme-aaaaa", settings: TenantSettings(allowPasswordSignup: true))
            let used = try await P.codeFor(h, Self.ada)
            #expect(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: used.sessionInfo, code: used.code)).status == 200)
            P.refused(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: used.sessionInfo, code: used.code)), "INVALID_SESSION_INFO")

            let tenants = try await P.codeFor(h, Self.ada, tenant: "acme-aaaaa")
            P.refused(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: tenants.sessionInfo, code: tenants.code)), "INVALID_SESSION_INFO")
            let project = try await P.codeFor(h, PhoneSignInTests.bob)
            P.refused(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: project.sessionInfo, code: project.code, tenantId: "acme-aaaaa")),
                      "INVALID_SESSION_INFO")
            let inTenant = try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: tenants.sessionInfo, code: tenants.code, tenantId: "acme-aaaaa"))
            #expect(inTenant.status == 200, "\(inTenant.text)")
            let tenantUser = try inTenant.decode(SignInWithPhoneNumberResponse.self)
            #expect(try await h.store.bound(toTenant: "acme-aaaaa").user(localId: try #require(tenantUser.localId)) != nil)
            #expect(try await h.store.user(localId: try #require(tenantUser.localId)) == nil)

            h.clock.advance(by: 301)
            P.refused(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: project.sessionInfo, code: project.code)), "SESSION_EXPIRED")
        }
    }

    /// Issue 40, item 4: malformed numbers (missing, no `+`, a leading 0, too long, NUL, other scripts' digits,
    /// letters) are INVALID_PHONE_NUMBER with what to do, and send nothing; malformed codes (other scripts' digits,
    /// 5 or 7 digits, letters, 10 000 characters) are INVALID_CODE without spending the session's guesses; malformed
    /// sessionInfo is INVALID_SESSION_INFO; NUL anywhere is INVALID_ARGUMENT.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func malformedNumbersCodesAndSessions(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let numbers: [String?] = [nil, "", "5555550100", "+05555550100", "+1" + String(repeating: "5", count: 100),
                                      "+１５５５５５５０１００", "+1555CALLNOW", "+1 555 555 0100 ext 7"]
            for number in numbers {
                P.refused(try await P.send(h, number), "INVALID_PHONE_NUMBER")
            }
            // NUL is refused in every field, before the service.
            P.refused(try await P.send(h, "+1555\u{0}5550100"), "INVALID_ARGUMENT", "NUL")
            #expect(try P.sink(h).messages.isEmpty)
            let (sessionInfo, code) = try await P.codeFor(h, Self.ada)
            let digits = Array("０１２３４５６７８９")
            let fullWidth = String(code.map { digits[Int(String($0))!] })
            for odd in [fullWidth, String(code.dropLast()), code + "1", "12345a",
                        String(repeating: "1", count: 10_000), " " + code] {
                P.refused(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: sessionInfo, code: odd)), "INVALID_CODE")
            }
            for odd in [String(repeating: "a", count: 10_000), "hps1.forged", "hpp1.x", sessionInfo + "x"] {
                P.refused(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: odd, code: code)), "INVALID_SESSION_INFO")
            }
            P.refused(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: sessionInfo, code: String(code.prefix(3)) + "\u{0}" + String(code.suffix(2)))),
                      "INVALID_ARGUMENT")
            P.refused(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: nil, code: code)), "MISSING_SESSION_INFO")
            P.refused(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: sessionInfo, code: nil)), "MISSING_CODE")
            // None of that spent a guess: the code still signs in.
            #expect(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: sessionInfo, code: code)).status == 200)
        }
    }

    // MARK: What may be sent

    /// Issue 40, item 4: the region policy refuses before anything is spent — Firebase's text, no SMS in the sink,
    /// nothing counted against the budget — for `allowByDefault.disallowedRegions` and for `allowlistOnly`.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aDisallowedRegionIsRefusedBeforeAnySend(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await P.configure(h) { $0.smsRegionConfig = SmsRegionConfig(allowByDefault: .init(disallowedRegions: ["GB"])) }
            let refused = try await P.send(h, "+44 7700 900123")
            P.refused(refused, "OPERATION_NOT_ALLOWED")
            #expect(refused.envelope?.error.message == "OPERATION_NOT_ALLOWED : SMS unable to be sent until this region enabled by the app developer.")
            #expect(try P.sink(h).messages.isEmpty)
            #expect(try await Self.budgetCount(h) == 0)
            _ = try await P.codeFor(h, "+33612345678")

            try await P.configure(h) { $0.smsRegionConfig = SmsRegionConfig(allowlistOnly: .init(allowedRegions: ["US"])) }
            P.refused(try await P.send(h, "+33612345678"), "OPERATION_NOT_ALLOWED", "region")
            #expect(try P.sink(h).messages.count == 1)
            _ = try await P.codeFor(h, "+12025550123")
            #expect(try await Self.budgetCount(h) == 2)
        }
    }

    /// Issue 40, item 4: the daily budget stops sends with QUOTA_EXCEEDED and its words once used up (nothing sent
    /// or stored); test numbers still work; the next UTC day sends again.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func theDailyBudgetStopsSends(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await P.configure(h) { config in
                config.sms = SmsSettings(dailyBudget: 2)
                config.testPhoneNumbers = ["+15555550199": "123456"]
            }
            _ = try await P.codeFor(h, Self.ada)
            _ = try await P.codeFor(h, PhoneSignInTests.bob)
            let refused = try await P.send(h, "+15555550122")
            P.refused(refused, "QUOTA_EXCEEDED", "the project's daily SMS budget (2) is used up; raise it (hearth project sms set --daily-budget) or wait until 00:00 UTC")
            #expect(try P.sink(h).messages.count == 2)
            // A test number is never counted.
            let test = try await P.send(h, "+15555550199")
            #expect(test.status == 200, "\(test.text)")
            h.clock.advance(by: 86_400)
            _ = try await P.codeFor(h, "+15555550122")
            #expect(try await Self.budgetCount(h) == 1)
        }
    }

    /// Issue 40, item 4: the budget holds under a parallel burst: with a budget of 3, 12 sends at once to different
    /// numbers get exactly 3 codes out, the others QUOTA_EXCEEDED.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func theBudgetHoldsUnderABurst(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await P.configure(h) { $0.sms = SmsSettings(dailyBudget: 3) }
            let codes = try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<12 {
                    group.addTask { try await P.send(h, "+1555555030\(index % 10)\(index / 10)").errorCode }
                }
                var codes: [String?] = []
                for try await code in group { codes.append(code) }
                return codes
            }
            #expect(codes.filter { $0 == nil }.count == 3, "\(codes)")
            #expect(codes.filter { $0 == "QUOTA_EXCEEDED" }.count == 9, "\(codes)")
            #expect(try P.sink(h).messages.count == 3)
        }
    }

    /// Issue 40, item 3: a production server with no gateway (no `sms.url`) and no dev sink refuses sends, saying
    /// what to set — after the cheap checks, before app verification, the limits and the budget are spent; a test
    /// number still works.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func noGatewayRefusesSendsButTestNumbersWork(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store, configure: { configuration in
            configuration.projectId = "prod-phone"
            configuration.apiKeys = ["test-key"]
            configuration.sms.devSink = false
        }) { h in
            try await P.configure(h) { config in
                config.phoneSignInEnabled = true
                config.testPhoneNumbers = ["+15555550199": "123456"]
            }
            P.refused(try await P.send(h, Self.ada), "OPERATION_NOT_ALLOWED", "no SMS gateway: set sms.url")
            #expect(try await Self.budgetCount(h) == 0)
            let test = try await P.send(h, "+15555550199")
            #expect(test.status == 200, "\(test.text)")
        }
    }

    /// Issue 40, item 4: a test number gets no SMS (the sink stays empty) and counts against nothing; its fixed code
    /// signs in, a wrong code is INVALID_CODE; it works even with a budget of 0.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func aTestNumberIsNeverSent(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            try await P.configure(h) { config in
                config.testPhoneNumbers = ["+15555550199": "654321"]
                config.sms = SmsSettings(dailyBudget: 0)
            }
            let sent = try await P.send(h, "+1 555-555-0199")
            #expect(sent.status == 200, "\(sent.text)")
            let sessionInfo = try #require(try sent.decode(SendVerificationCodeResponse.self).sessionInfo)
            #expect(try P.sink(h).messages.isEmpty)
            P.refused(try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: sessionInfo, code: "123456")), "INVALID_CODE")
            let signedIn = try await P.verify(h, SignInWithPhoneNumberRequest(sessionInfo: sessionInfo, code: "654321"))
            #expect(signedIn.status == 200, "\(signedIn.text)")
            #expect(try signedIn.decode(SignInWithPhoneNumberResponse.self).phoneNumber == "+15555550199")
            #expect(try await Self.budgetCount(h) == 0)
            P.refused(try await P.send(h, Self.ada), "QUOTA_EXCEEDED")
        }
    }

    /// Issue 40, item 4: with the rate limits on, 5 codes per number per hour, then TOO_MANY_ATTEMPTS_TRY_LATER
    /// for that number; 10 codes per client address per hour across numbers.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func sendsAreLimitedPerNumberAndPerAddress(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store, configure: { $0.rateLimits = RateLimitConfiguration() }) { h in
            for _ in 1...5 { _ = try await P.codeFor(h, Self.ada) }
            P.refused(try await P.send(h, Self.ada), "TOO_MANY_ATTEMPTS_TRY_LATER", "too many codes were sent to this number")
            // The address has made 6 requests; 4 more to other numbers pass, the 11th does not.
            for index in 0..<4 { _ = try await P.codeFor(h, "+1555555020\(index)") }
            P.refused(try await P.send(h, "+15555550299"), "TOO_MANY_ATTEMPTS_TRY_LATER", "too many codes were sent from this address")
            #expect(try P.sink(h).messages.count == 9)
            h.clock.advance(by: 7200)
            _ = try await P.codeFor(h, Self.ada)
        }
    }

    // MARK: App verification

    /// A production project (not `demo-*`, no `--dev`) whose SMS go to the dev sink, phone sign-in on.
    static func production(_ store: HearthHarness.StoreChoice, _ body: @Sendable @escaping (HearthHarness) async throws -> Void) async throws {
        try await HearthHarness.run(store: store, configure: { configuration in
            configuration.projectId = "prod-phone"
            configuration.apiKeys = ["test-key"]
            configuration.rateLimits = .off
            configuration.sms.devSink = true
        }) { h in
            try await P.configure(h) { $0.phoneSignInEnabled = true }
            try await body(h)
        }
    }

    /// Issue 40, item 4: a production project without a reCAPTCHA secret refuses every send, saying how to set one
    /// or to turn app verification off; turned off explicitly (`appVerificationDisabled`), sends go out.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func productionWithoutAppVerificationIsRefused(_ store: HearthHarness.StoreChoice) async throws {
        try await Self.production(store) { h in
            P.refused(try await P.send(h, Self.ada), "OPERATION_NOT_ALLOWED", "app verification is not configured")
            #expect(try P.sink(h).messages.isEmpty)
            #expect(try await Self.budgetCount(h) == 0)
            try await P.configure(h) { $0.sms = SmsSettings(appVerificationDisabled: true) }
            _ = try await P.codeFor(h, Self.ada)
        }
    }

    /// Issue 40, item 4: with a reCAPTCHA secret, the token is checked at the verify endpoint (a loopback stand-in
    /// that gets `secret`, `response`, `remoteip`): a good token sends; none is MISSING_RECAPTCHA_TOKEN; a refused
    /// one or a score under the minimum CAPTCHA_CHECK_FAILED; an endpoint that fails or cannot be reached 503 —
    /// and none of the refusals sends or counts anything.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func recaptchaIsVerifiedAtTheConfiguredEndpoint(_ store: HearthHarness.StoreChoice) async throws {
        try await Self.production(store) { h in
            try await RecaptchaStandIn.run { standIn in
                try await P.configure(h) { config in
                    config.sms = SmsSettings(recaptcha: .init(secretKey: "s3cret-recaptcha-key", verifyUrl: standIn.url, minScore: 0.5))
                }
                P.refused(try await P.send(h, Self.ada), "MISSING_RECAPTCHA_TOKEN")
                P.refused(try await P.send(h, Self.ada, fields: AppVerificationFields(recaptchaToken: "bad")), "CAPTCHA_CHECK_FAILED")
                P.refused(try await P.send(h, Self.ada, fields: AppVerificationFields(recaptchaToken: "low")), "CAPTCHA_CHECK_FAILED", "score")
                P.refused(try await P.send(h, Self.ada, fields: AppVerificationFields(recaptchaToken: "broken")), "UNAVAILABLE", status: 503)
                #expect(try P.sink(h).messages.isEmpty)
                #expect(try await Self.budgetCount(h) == 0)

                let good = try await P.send(h, Self.ada, fields: AppVerificationFields(recaptchaToken: "good"))
                #expect(good.status == 200, "\(good.text)")
                let enterprise = try await P.send(h, Self.ada, fields: AppVerificationFields(captchaResponse: "v2", clientType: "CLIENT_TYPE_WEB",
                                                                                              recaptchaVersion: "RECAPTCHA_ENTERPRISE"))
                #expect(enterprise.status == 200, "\(enterprise.text)")
                #expect(try P.sink(h).messages.count == 2)
                let last = try #require(standIn.requests.last)
                #expect(last["secret"] == "s3cret-recaptcha-key" && last["response"] == "v2" && last["remoteip"]?.isEmpty == false)
                #expect(standIn.requests.count == 5)

                try await P.configure(h) { config in
                    config.sms = SmsSettings(recaptcha: .init(secretKey: "s3cret-recaptcha-key", verifyUrl: "http://127.0.0.1:1/siteverify"))
                }
                P.refused(try await P.send(h, Self.ada, fields: AppVerificationFields(recaptchaToken: "good")), "UNAVAILABLE", status: 503)
                #expect(try P.sink(h).messages.count == 2)
            }
        }
    }
}

/// A stand-in of reCAPTCHA's site-verify endpoint on loopback: records each form it gets and answers by the token —
/// `good` (score 0.9), `v2` (no score), `low` (score 0.3), `bad` (refused), `broken` (500), anything else refused.
final class RecaptchaStandIn: Sendable {
    private let state = Mutex<(url: String, requests: [[String: String]])>(("", []))
    var url: String { state.withLock { $0.url } }
    /// The forms received, in order.
    var requests: [[String: String]] { state.withLock { $0.requests } }

    static func run(_ body: @Sendable (RecaptchaStandIn) async throws -> Void) async throws {
        let standIn = RecaptchaStandIn()
        let router = Router()
        router.post("/siteverify") { request, _ -> Response in
            let data = try await request.body.collect(upTo: 1 << 16)
            var form: [String: String] = [:]
            for pair in String(buffer: data).split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
                form[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            standIn.state.withLock { $0.requests.append(form) }
            let (status, body): (HTTPResponse.Status, String) = switch form["response"] {
            case "good": (.ok, #"{"success":true,"score":0.9,"action":"sendVerificationCode","hostname":"localhost"}"#)
            case "v2": (.ok, #"{"success":true,"hostname":"localhost"}"#)
            case "low": (.ok, #"{"success":true,"score":0.3}"#)
            case "broken": (.internalServerError, "oops")
            default: (.ok, #"{"success":false,"error-codes":["invalid-input-response"]}"#)
            }
            return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "RecaptchaStandIn"))
        try await app.test(.live) { client in
            guard let port = client.port else { throw HarnessError("the stand-in has no port") }
            standIn.state.withLock { $0.url = "http://127.0.0.1:\(port)/siteverify" }
            try await body(standIn)
        }
    }
}
