import Foundation
import HearthCore
import HearthOIDC
import HTTPTypes
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import Logging
import NIOCore
import Synchronization
import Testing

/// Issue 40, item 3: sending SMS — the Twilio and webhook senders, the store's SMS outbox with its retries, the dev
/// sink with `/__dev/sms` and the emulator's `verificationCodes`.
@Suite struct SmsPipelineTests {
    static let number = "+15555550142"

    static func sms(_ text: String = "123456 is your verification code for demo-hearth.", to number: String = number) -> OutgoingSms {
        OutgoingSms(to: number, text: text, kind: PhoneCodePurpose.signIn.rawValue, projectId: "demo-hearth")
    }

    /// Sends a code through the server's messenger, as the phone RPCs do.
    static func send(_ h: HearthHarness, code: String = "123456", to number: String = number, purpose: PhoneCodePurpose = .signIn,
                     lifetime: TimeInterval = PhoneVerificationRecord.codeLifetime, in scope: Scope? = nil) async throws -> String {
        let sessionInfo = PhoneVerificationRecord.newSessionInfo()
        try await h.server.accounts.sms.send(to: number, text: "\(code) is your verification code for \(h.projectId).", code: code,
                                             sessionInfo: sessionInfo, purpose: purpose, expiresAt: h.clock.now.addingTimeInterval(lifetime),
                                             in: scope ?? h.scope)
        return sessionInfo
    }

    // MARK: Twilio

    /// Issue 40, item 3: the Twilio sender's request is Twilio's Messages API call — the path with the account SID,
    /// HTTP Basic with the SID and the token, the form fields To, From and Body.
    @Test func twilioSenderPostsTheMessagesAPIRequest() async throws {
        try await SmsGatewayStandIn.run { gateway in
            let sender = try TwilioSmsSender(url: gateway.twilioURL(from: "+15555550000"))
            try await sender.deliver(Self.sms())
            let request = try #require(gateway.requests.first)
            #expect(request.method == "POST")
            #expect(request.path == "/2010-04-01/Accounts/\(SmsGatewayStandIn.accountSid)/Messages.json")
            let basic = Data("\(SmsGatewayStandIn.accountSid):\(SmsGatewayStandIn.authToken)".utf8).base64EncodedString()
            #expect(request.authorization == "Basic \(basic)")
            #expect(request.headers[.contentType] == "application/x-www-form-urlencoded")
            #expect(request.form == ["To": Self.number, "From": "+15555550000", "Body": "123456 is your verification code for demo-hearth."])
            #expect(!sender.summary.contains(SmsGatewayStandIn.authToken))

            let service = "MG" + String(repeating: "ab", count: 16)
            let viaService = try TwilioSmsSender(url: "twilio+http://\(SmsGatewayStandIn.accountSid):\(SmsGatewayStandIn.authToken)@\(gateway.baseURL.dropFirst(7))?messagingServiceSid=\(service)")
            try await viaService.deliver(Self.sms())
            #expect(gateway.requests.last?.form["MessagingServiceSid"] == service)
            #expect(gateway.requests.last?.form["From"] == nil)
        }
    }

    /// Issue 40, item 3: 429 and 5xx are temporary, other refusals permanent with Twilio's code and message (the
    /// number in Twilio's message is cut to its last two digits), a refused connection temporary.
    @Test func twilioFailuresAreTemporaryOrPermanent() async throws {
        try await SmsGatewayStandIn.run { gateway in
            let sender = try TwilioSmsSender(url: gateway.twilioURL())
            gateway.reply(.init(503, #"{"code":20503,"message":"Service unavailable"}"#))
            gateway.reply(.init(429, #"{"code":20429,"message":"Too many requests"}"#))
            gateway.reply(.init(400, #"{"code":21211,"message":"Invalid 'To' Phone Number: +15555550142","status":400}"#))
            var failures: [SmsSendError] = []
            for _ in 0..<3 {
                do {
                    try await sender.deliver(Self.sms())
                } catch let error as SmsSendError {
                    failures.append(error)
                }
            }
            #expect(failures.map(\.transient) == [true, true, false])
            #expect(failures[2].description.contains("code 21211"))
            #expect(failures[2].description.contains("…42") && !failures[2].description.contains("5555550142"), "\(failures[2])")
        }
        // Nothing listens on the port any more: temporary.
        let closed = try TwilioSmsSender(url: "twilio+http://\(SmsGatewayStandIn.accountSid):\(SmsGatewayStandIn.authToken)@127.0.0.1:9?from=%2B15555550000",
                                         http: UpstreamHTTP(timeout: .seconds(3)))
        await #expect(throws: SmsSendError.self) { try await closed.deliver(Self.sms()) }
        do {
            try await closed.deliver(Self.sms())
        } catch let error as SmsSendError {
            #expect(error.transient)
            #expect(!error.description.contains(SmsGatewayStandIn.authToken))
        }
    }

    /// Issue 40, item 3: a wrong `sms.url` is refused with words naming the part, never repeating the token; plain
    /// http reaches this machine only.
    @Test(arguments: [
        ("twilio+http://AC0123456789abcdef0123456789abcdef:tok-secret-1@api.twilio.com?from=%2B15555550000", "stand-in on this machine only"),
        ("twilio://AC12:tok-secret-1@api.twilio.com?from=%2B15555550000", "Account SID"),
        ("twilio://AC0123456789abcdef0123456789abcdef@api.twilio.com?from=%2B15555550000", "lacks the auth token"),
        ("twilio://AC0123456789abcdef0123456789abcdef:tok-secret-1@api.twilio.com", "needs one sender"),
        ("twilio://AC0123456789abcdef0123456789abcdef:tok-secret-1@api.twilio.com?from=%2B1555&messagingServiceSid=MG0123456789abcdef0123456789abcdef", "needs one sender"),
        ("twilio://AC0123456789abcdef0123456789abcdef:tok-secret-1@api.twilio.com?from=12%3B45", "from must be"),
        ("twilio://AC0123456789abcdef0123456789abcdef:tok-secret-1@api.twilio.com?messagingServiceSid=XY1", "MG followed by"),
        ("twilio://AC0123456789abcdef0123456789abcdef:tok-secret-1@api.twilio.com?from=%2B15555550000&region=ie1", "unknown parameter region"),
        ("twilio://AC0123456789abcdef0123456789abcdef:tok-secret-1@api.twilio.com/v1?from=%2B15555550000", "takes no path"),
        ("http://hooks.example.com/sms", "must be https://"),
        ("https://user:tok-secret-1@hooks.example.com/sms", "must not hold credentials"),
        ("smtp://hooks.example.com", "must be twilio://"),
    ])
    func wrongGatewayURLsAreRefusedInWords(_ url: String, _ words: String) throws {
        #expect {
            _ = try SmsConfiguration.sender(url: url, webhookSecret: nil)
        } throws: { error in
            let text = (error as? SmsConfigurationError)?.description ?? ""
            return text.contains(words) && !text.contains("tok-secret-1")
        }
    }

    // MARK: The webhook

    /// Issue 40, item 3: the webhook gets the message as JSON with `X-Hearth-Signature`, which verifies with the
    /// secret and fails for another body, another secret or an old timestamp; without a secret the call is unsigned.
    @Test func webhookCallsAreSignedAndVerify() async throws {
        try await SmsGatewayStandIn.run { gateway in
            let secret = "whsec-0123456789abcdef"
            let signed = try WebhookSmsSender(url: gateway.webhookURL, secret: secret)
            var sms = Self.sms()
            sms.tenantId = "acme-aaaaa"
            try await signed.deliver(sms)
            let request = try #require(gateway.requests.first)
            #expect(request.path == "/sms" && request.headers[.contentType] == "application/json")
            let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: String])
            #expect(json == ["to": Self.number, "text": sms.text, "kind": "sign_in", "projectId": "demo-hearth", "tenantId": "acme-aaaaa"])
            let header = try #require(request.headers[.init(WebhookSignature.headerName)!])
            #expect(header.hasPrefix("t=") && header.contains(",v1="))
            #expect(WebhookSignature.verify(header: header, body: request.body, secret: secret, now: Date()))
            #expect(!WebhookSignature.verify(header: header, body: request.body + Data(" ".utf8), secret: secret, now: Date()))
            #expect(!WebhookSignature.verify(header: header, body: request.body, secret: secret + "x", now: Date()))
            #expect(!WebhookSignature.verify(header: header, body: request.body, secret: secret, now: Date().addingTimeInterval(600)))
            #expect(!signed.summary.contains(secret))

            let unsigned = try WebhookSmsSender(url: gateway.webhookURL, secret: nil)
            gateway.reply(.init(500))
            gateway.reply(.init(404))
            await #expect(throws: SmsSendError.self) { try await unsigned.deliver(Self.sms()) }
            do { try await unsigned.deliver(Self.sms()) } catch let error as SmsSendError { #expect(!error.transient) }
            #expect(gateway.requests.count == 3)
            #expect(gateway.requests.last?.headers[.init(WebhookSignature.headerName)!] == nil)
        }
        #expect(throws: SmsConfigurationError.self) { try WebhookSmsSender(url: "https://hooks.example.com/sms", secret: "short") }
    }

    // MARK: The outbox

    /// Issue 40, item 3: messages leave through the store's outbox off the request path — a temporary failure is
    /// retried after the backoff and delivered; the queued message is sealed at rest (the code is not in the store).
    @Test(arguments: HearthHarness.StoreChoice.available)
    func temporaryFailuresAreRetriedThenDelivered(_ store: HearthHarness.StoreChoice) async throws {
        let sender = RecordingSmsSender(failures: [SmsSendError(transient: true, "connection refused"), SmsSendError(transient: true, "HTTP 503")])
        let keys = ProviderTokenKeys.generate(id: "k1")
        try await HearthHarness.run(store: store, configure: { configuration in
            configuration.sms.sender = sender
            configuration.sms.devSink = false
            HearthHarness.vault(keys)(&configuration)
        }) { h in
            _ = try await Self.send(h, code: "481516")
            // At rest: sealed with the vault key, the code and the number nowhere in the row.
            let stored = try #require(try await h.store.claimDueSms(now: h.clock.now, leaseUntil: h.clock.now, limit: 10).first)
            #expect(ProviderTokenKeys.sealingKeyId(stored.body) == "k1")
            #expect(!stored.body.contains("481516") && !stored.body.contains("5555550142"))
            let outbox = try #require(h.server.smsOutboxService)
            #expect(await outbox.deliverDue() == 0)
            // Not due again before the backoff.
            #expect(await outbox.deliverDue() == 0)
            h.clock.advance(by: 31)
            #expect(await outbox.deliverDue() == 0)
            h.clock.advance(by: 61)
            #expect(await outbox.deliverDue() == 1)
            #expect(sender.delivered.map(\.text) == ["481516 is your verification code for demo-hearth."])
            #expect(sender.delivered.first?.to == Self.number)
            #expect(h.server.configuration.metrics.counterValue(.sms, ["outbox", "retry"]) == 2)
            #expect(h.server.configuration.metrics.counterValue(.sms, ["outbox", "sent"]) == 1)
            #expect(h.server.configuration.metrics.counterValue(.sms, ["sign_in", "queued"]) == 1)
            h.clock.advance(by: 3600)
            #expect(await outbox.deliverDue() == 0)
            #expect(sender.delivered.count == 1)
        }
    }

    /// Issue 40, item 3: a permanent refusal gives the message up at once; a message whose code expired before the
    /// gateway took it is dropped unsent.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func permanentRefusalsAndExpiredCodesLeaveTheOutbox(_ store: HearthHarness.StoreChoice) async throws {
        let sender = RecordingSmsSender(failures: [SmsSendError(transient: false, "Twilio answered HTTP 400 (code 21211)")])
        try await HearthHarness.run(store: store, configure: { $0.sms.sender = sender; $0.sms.devSink = false }) { h in
            let outbox = try #require(h.server.smsOutboxService)
            _ = try await Self.send(h)
            #expect(await outbox.deliverDue() == 0)
            h.clock.advance(by: 3600)
            #expect(await outbox.deliverDue() == 0)
            #expect(h.server.configuration.metrics.counterValue(.sms, ["outbox", "failed"]) == 1)

            _ = try await Self.send(h, code: "222222")
            h.clock.advance(by: PhoneVerificationRecord.codeLifetime + 1)
            #expect(await outbox.deliverDue() == 0)
            #expect(sender.delivered.isEmpty)
            #expect(h.server.configuration.metrics.counterValue(.sms, ["outbox", "expired"]) == 1)
            #expect(try await h.store.claimDueSms(now: h.clock.now, leaseUntil: h.clock.now, limit: 10).isEmpty)
        }
    }

    /// Issue 40, item 3: the whole path through Twilio's wire: a code sent by the server reaches the stand-in, and no
    /// log line carries the token, the code or the number (only its last two digits).
    @Test func aQueuedCodeReachesTwilioAndNoSecretIsLogged() async throws {
        let lines = Mutex<[String]>([])
        var traced = Logger(label: "hearth") { label in
            HearthLogHandler(label: label, format: .json, level: .trace) { line in lines.withLock { $0.append(line) } }
        }
        traced.logLevel = .trace
        let logger = traced
        try await SmsGatewayStandIn.run { gateway in
            let sender = try TwilioSmsSender(url: gateway.twilioURL())
            gateway.reply(.init(500, #"{"code":20500,"message":"Internal error for +15555550142"}"#))
            try await HearthHarness.run(configure: { $0.sms.sender = sender; $0.sms.devSink = false }, logger: logger) { h in
                _ = try await Self.send(h, code: "907133")
                let outbox = try #require(h.server.smsOutboxService)
                #expect(await outbox.deliverDue() == 0)
                h.clock.advance(by: 31)
                #expect(await outbox.deliverDue() == 1)
                #expect(gateway.requests.count == 2)
                #expect(gateway.requests.last?.form["Body"] == "907133 is your verification code for demo-hearth.")
            }
        }
        let all = lines.withLock { $0 }.joined(separator: "\n")
        #expect(all.contains("SMS delivered") && all.contains("will retry"), "\(all)")
        for secret in [SmsGatewayStandIn.authToken, "907133", "5555550142"] {
            #expect(!all.contains(secret), "a log line carries \(secret.prefix(4))…")
        }
    }

    /// Issue 40, item 3: a production project on a server without a gateway and without the dev sink refuses to send,
    /// saying what to set; nothing is queued.
    @Test func withoutAGatewayAProductionServerRefuses() async throws {
        try await HearthHarness.run(configure: { $0.projectId = "acme-prod"; $0.apiKeys = ["k"]; $0.sms.devSink = false }) { h in
            #expect(!h.server.accounts.sms.canSend)
            #expect(h.server.smsOutboxService == nil)
            await #expect {
                _ = try await Self.send(h)
            } throws: { error in
                let api = error as? HearthAPIError
                return api?.code == .operationNotAllowed && api?.description.contains("set sms.url") == true
            }
            #expect(h.devSms == nil)
        }
    }

    // MARK: The dev sink

    /// Issue 40, item 3: the emulator's `verificationCodes` lists the dev sink's codes in Firebase's shape (with the
    /// emulator credential only), and `DELETE` empties it.
    @Test func emulatorVerificationCodesListAndClear() async throws {
        try await HearthHarness.run { h in
            let first = try await Self.send(h, code: "111111")
            let second = try await Self.send(h, code: "222222", to: "+447700900123", purpose: .mfaSignIn)
            let path = WirePaths.emulatorVerificationCodes.replacingOccurrences(of: "{project}", with: h.projectId)
            let owner: HTTPFields = [.authorization: "Bearer owner"]
            let reply = try await h.send(.get, path, headers: owner)
            #expect(reply.status == 200)
            let listed = try reply.decode(EmulatorVerificationCodesResponse.self)
            #expect(listed.verificationCodes == [EmulatorVerificationCode(phoneNumber: Self.number, sessionInfo: first, code: "111111"),
                                                 EmulatorVerificationCode(phoneNumber: "+447700900123", sessionInfo: second, code: "222222")])
            #expect(Set((reply.json?["verificationCodes"] as? [[String: Any]])?.first?.keys ?? [:].keys) == ["phoneNumber", "sessionInfo", "code"])
            // A browser page (an Origin) is not a program on this machine: refused, as the emulator's other endpoints.
            let fromPage = try await h.send(.get, path, headers: [.origin: "https://evil.example"])
            #expect(fromPage.status == 404 && fromPage.verificationCodes == nil)
            #expect(try await h.send(.delete, path, headers: owner).status == 200)
            #expect(try await h.send(.get, path, headers: owner).decode(EmulatorVerificationCodesResponse.self).verificationCodes.isEmpty)
            #expect(h.devSms?.messages.isEmpty == true)
        }
    }

    /// Issue 40, item 3: `/__dev/sms` lists the messages newest first with every value escaped, and its "Clear" form
    /// needs the page's token.
    @Test func devSmsPageListsEscapesAndClears() async throws {
        try await HearthHarness.run { h in
            let evil = "<script>alert('x')</script>"
            let sessionInfo = PhoneVerificationRecord.newSessionInfo()
            try await h.server.accounts.sms.send(to: Self.number, text: "314159 for " + evil, code: "314159", sessionInfo: sessionInfo,
                                                 purpose: .mfaEnrollment, expiresAt: h.clock.now.addingTimeInterval(300), in: h.scope)
            _ = try await Self.send(h, code: "271828")
            let page = try await h.send(.get, WirePaths.devSms)
            #expect(page.status == 200)
            #expect(page.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            #expect(page.text.contains("314159") && page.text.contains(sessionInfo) && page.text.contains("mfa_enrollment"))
            #expect(page.text.contains("&lt;script&gt;") && !page.text.contains(evil))
            let newest = try #require(page.text.range(of: "271828")), older = try #require(page.text.range(of: "314159"))
            #expect(newest.lowerBound < older.lowerBound)

            let token = try #require(ActionPagesTests.hidden("token", in: page.text))
            let cookie = try #require(ConsoleTests.cookieValue(page, "hearth_dev_sms"))
            let forged = try await h.send(.post, WirePaths.devSms, body: "token=other", contentType: "application/x-www-form-urlencoded",
                                          headers: [.cookie: "hearth_dev_sms=\(cookie)"])
            #expect(forged.status == 403)
            #expect(h.devSms?.messages.count == 2)
            let cleared = try await h.send(.post, WirePaths.devSms, body: "token=\(token)", contentType: "application/x-www-form-urlencoded",
                                           headers: [.cookie: "hearth_dev_sms=\(cookie)"])
            #expect(cleared.status == 303)
            #expect(h.devSms?.messages.isEmpty == true)
            #expect(try await h.send(.get, WirePaths.devSms).text.contains("No text messages yet."))
        }
        // Without the sink (a production project), no page.
        try await HearthHarness.run(configure: { $0.projectId = "acme-prod"; $0.apiKeys = ["k"]; $0.sms.devSink = false }) { h in
            let page = try await h.send(.get, WirePaths.devSms)
            #expect(page.status == 404)
        }
    }

    /// Issue 40, item 3: the sink keeps the last 200 messages, each with its tenant.
    @Test func theSinkKeepsTheLast200() async throws {
        try await HearthHarness.run { h in
            for index in 0..<205 { _ = try await Self.send(h, code: String(format: "%06d", index)) }
            let messages = try #require(h.devSms?.messages)
            #expect(messages.count == 200)
            #expect(messages.first?.code == "000005" && messages.last?.code == "000204")
            #expect(h.devSms?.latest(to: Self.number)?.code == "000204")
            #expect(messages.allSatisfy { $0.tenantId == nil && $0.purpose == .signIn })
        }
    }
}

extension HearthHarness.Reply {
    /// The listed codes, when the answer is a `verificationCodes` list.
    var verificationCodes: [EmulatorVerificationCode]? { try? decode(EmulatorVerificationCodesResponse.self).verificationCodes }
}

/// Issue 40, item 3: the emulator endpoints of a production project do not exist (no `--emulator-admin`).
@Suite struct SmsEmulatorEndpointTests {
    @Test func aProductionProjectHasNoVerificationCodesEndpoint() async throws {
        try await HearthHarness.run(configure: { $0.projectId = "acme-prod"; $0.apiKeys = ["k"] }) { h in
            let path = WirePaths.emulatorVerificationCodes.replacingOccurrences(of: "{project}", with: h.projectId)
            for method in [HTTPRequest.Method.get, .delete] {
                let reply = try await h.send(method, path, headers: [.authorization: "Bearer owner"])
                #expect(reply.status == 404 && reply.text.contains("emulator endpoints exist only"))
            }
        }
    }
}
