import Foundation
import Testing

/// Issue 40, item 3: the `sms.url` and `sms.webhook.secret` settings of the real `hearth serve`.
@Suite struct SmsSettingsCLITests {
    static let sid = "AC0123456789abcdef0123456789abcdef"
    static let token = "tw-token-do-not-print-77"

    /// Issue 40, item 3: a wrong `sms.url` stops `serve` with words naming the setting and the problem, never the token
    /// or the webhook secret; the secret without a URL is refused too.
    @Test func wrongSmsSettingsAreRefusedWithoutRepeatingSecrets() throws {
        let directory = CLI.temporaryDirectory()
        let remote = try CLI.run(["serve", "--sms-url", "twilio+http://\(Self.sid):\(Self.token)@sms.example.com?from=%2B15555550000"], in: directory)
        #expect(remote.status != 0 && remote.stderr.contains("--sms-url") && remote.stderr.contains("stand-in on this machine only"), "\(remote.output)")
        #expect(!remote.output.contains(Self.token))
        let noSender = try CLI.run(["serve"], environment: ["HEARTH_SMS_URL": "twilio://\(Self.sid):\(Self.token)@api.twilio.com"], in: directory)
        #expect(noSender.status != 0 && noSender.stderr.contains("HEARTH_SMS_URL") && noSender.stderr.contains("needs one sender"), "\(noSender.output)")
        #expect(!noSender.output.contains(Self.token))
        let secret = "webhook-secret-do-not-print"
        let alone = try CLI.run(["serve"], environment: ["HEARTH_SMS_WEBHOOK_SECRET": secret], in: directory)
        #expect(alone.status != 0 && alone.stderr.contains("HEARTH_SMS_WEBHOOK_SECRET applies to an SMS gateway"), "\(alone.output)")
        let withTwilio = try CLI.run(["serve"], environment: ["HEARTH_SMS_URL": "twilio://\(Self.sid):\(Self.token)@api.twilio.com?from=%2B15555550000",
                                                              "HEARTH_SMS_WEBHOOK_SECRET": secret], in: directory)
        #expect(withTwilio.status != 0 && withTwilio.stderr.contains("applies to a webhook URL"), "\(withTwilio.output)")
        for result in [alone, withTwilio] { #expect(!result.output.contains(secret)) }
        #expect(!FileManager.default.fileExists(atPath: directory + "/.hearth"), "a refused start created the data directory")
    }

    /// Issue 40, item 3: the banner says where text messages go — the Twilio account (without the token), the dev sink
    /// of a demo project, or that a production project cannot send.
    @Test func theBannerSaysWhereTextMessagesGo() throws {
        let twilio = try RunningServer.start(["--project-id", "acme-sms", "--api-key", "k1", "--no-console-link"],
                                             environment: ["HEARTH_SMS_URL": "twilio://\(Self.sid):\(Self.token)@api.twilio.com?from=%2B15555550000"])
        twilio.stop()
        #expect(twilio.banner.contains("SMS:           Twilio api.twilio.com account AC0123…cdef, from +15555550000"), "\(twilio.banner)")
        #expect(!twilio.banner.contains(Self.token) && !twilio.log.contains(Self.token))
        let none = try RunningServer.start(["--project-id", "acme-sms", "--api-key", "k1", "--no-console-link"])
        none.stop()
        #expect(none.banner.contains("SMS:           NOT CONFIGURED"), "\(none.banner)")
        let demo = try RunningServer.start(["--no-console-link"])
        demo.stop()
        #expect(demo.banner.contains("SMS:           the dev SMS sink (http://127.0.0.1:"), "\(demo.banner)")
        #expect(demo.banner.contains("/__dev/sms) only"), "\(demo.banner)")
    }
}
