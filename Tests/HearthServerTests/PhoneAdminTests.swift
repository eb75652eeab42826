import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// Issue 40, item 5: phone sign-in and SMS through the admin API — the project config (`signIn.phoneNumber`,
/// `smsRegionConfig`, Hearth's `sms`, `mfa.enabledProviders: PHONE_SMS`) checked, saved, answered and audited; phone
/// second factors added by an administrator and imported; both stores.
@Suite struct PhoneAdminTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    static func configPath(_ h: HearthHarness) -> String { WirePaths.v2Project(h.projectId, "config") }

    static func patch(_ h: HearthHarness, _ mask: String, _ body: String) async throws -> HearthHarness.Reply {
        try await h.send(.patch, configPath(h) + "?updateMask=" + mask, body: body, headers: owner)
    }

    static func admin(_ h: HearthHarness, _ method: String, _ body: String) async throws -> HearthHarness.Reply {
        try await h.send(.post, "/identitytoolkit.googleapis.com/v1/projects/\(h.projectId)/accounts:\(method)", body: body, headers: owner)
    }

    /// Issue 40, item 5: the phone settings are set through update masks and read back — test numbers normalised to
    /// E.164, the region policy, the `sms` values with defaults filled in, PHONE_SMS; the reCAPTCHA secret is stored but
    /// never answered (`secretKeySet`), a GET body sent back keeps it, `""` clears it; the audit entry lists the paths
    /// and holds no secret; SMS as a second factor survives the TOTP form's change (`totp(…, phone:)`).
    @Test(arguments: HearthHarness.StoreChoice.available)
    func phoneSettingsAreSavedAnsweredAndAudited(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store, configure: { $0.blockingFunctions = BlockingFunctionSettings(development: true) }) { h in
            let secret = "rc-" + RandomID.token(byteCount: 12)
            let saved = try await Self.patch(h, "signIn.phoneNumber,smsRegionConfig,sms,mfa.state,mfa.enabledProviders", """
                {"signIn":{"phoneNumber":{"enabled":true,"testPhoneNumbers":{"+1 555-555-0100":"123456"}}},
                 "smsRegionConfig":{"allowlistOnly":{"allowedRegions":["us","CA"]}},
                 "sms":{"dailyBudget":"250","perNumberPerHour":3,"recaptcha":{"secretKey":"\(secret)","verifyUrl":"http://127.0.0.1:9/siteverify","minScore":0.7}},
                 "mfa":{"state":"ENABLED","enabledProviders":["PHONE_SMS"]}}
                """)
            #expect(saved.status == 200, "\(saved.text)")
            #expect(!saved.text.contains(secret), "the secret was answered")
            let shown = try saved.decode(AdminProjectConfig.self)
            #expect(shown.signIn?.phoneNumber == .init(enabled: true, testPhoneNumbers: ["+15555550100": "123456"]))
            #expect(shown.smsRegionConfig == SmsRegionConfig(allowlistOnly: .init(allowedRegions: ["US", "CA"])))
            #expect(shown.sms == SmsSettings(dailyBudget: 250, perNumberPerHour: 3, perAddressPerHour: 10, appVerificationDisabled: false,
                                             recaptcha: .init(secretKeySet: true, verifyUrl: "http://127.0.0.1:9/siteverify", minScore: 0.7)))
            #expect(shown.mfa?.enabledProviders == ["PHONE_SMS"])
            let stored = try #require(try await h.store.projectConfig(projectId: h.projectId))
            #expect(stored.sms?.recaptcha?.secretKey == secret && stored.isPhoneMFAEnabled && stored.testPhoneNumbers == ["+15555550100": "123456"])
            let entry = try #require(try await h.store.auditEntries(before: nil, limit: 5).first { $0.action == "config.update" })
            #expect(entry.detail == "signIn.phoneNumber.enabled,signIn.phoneNumber.testPhoneNumbers,smsRegionConfig,sms.dailyBudget,sms.perNumberPerHour,sms.perAddressPerHour,sms.appVerificationDisabled,sms.recaptcha.secretKey,sms.recaptcha.verifyUrl,sms.recaptcha.minScore,mfa.state,mfa.enabledProviders")
            #expect(!(entry.detail ?? "").contains(secret))

            // The GET body sent back whole (mask sms): the secret stays; then "" clears it.
            let fetched = try await h.send(.get, Self.configPath(h), headers: Self.owner)
            let smsBody = String(decoding: try JSONEncoder().encode(try fetched.decode(AdminProjectConfig.self).sms), as: UTF8.self)
            #expect(try await Self.patch(h, "sms", #"{"sms":\#(smsBody)}"#).status == 200)
            #expect(try await h.store.projectConfig(projectId: h.projectId)?.sms?.recaptcha?.secretKey == secret)
            #expect(try await Self.patch(h, "sms.recaptcha.secretKey", #"{"sms":{"recaptcha":{"secretKey":""}}}"#).status == 200)
            #expect(try await h.store.projectConfig(projectId: h.projectId)?.sms?.hasRecaptchaSecret == false)

            // The TOTP form's change keeps SMS as a second factor when asked to, and turning SMS off keeps TOTP.
            let admin = h.server.admin
            try await admin.updateProjectSettings(ProjectSettingChange.totp(enabled: true, adjacentIntervals: 2, phone: true),
                                                  by: .emulatorOwner, in: h.scope)
            var config = try await h.scope.config()
            #expect(config.totpEnabled && config.isPhoneMFAEnabled)
            try await admin.updateProjectSettings(ProjectSettingChange.phoneSecondFactor(false, current: config), by: .emulatorOwner, in: h.scope)
            config = try await h.scope.config()
            #expect(config.totpEnabled && !config.isPhoneMFAEnabled)
            try await admin.updateProjectSettings(ProjectSettingChange.totp(enabled: false, adjacentIntervals: 2, phone: false), by: .emulatorOwner, in: h.scope)
            try await admin.updateProjectSettings(ProjectSettingChange.phoneSecondFactor(true, current: try await h.scope.config()), by: .emulatorOwner, in: h.scope)
            config = try await h.scope.config()
            #expect(!config.totpEnabled && config.isPhoneMFAEnabled && config.mfa?.state == .enabled)
        }
    }

    /// Issue 40, item 5: wrong phone settings are refused with INVALID_CONFIG saying what to fix, and nothing is saved
    /// or audited: test numbers (not E.164, NUL (the server's guard: INVALID_ARGUMENT), Unicode digits, a 5-digit or lettered code, 11 numbers, one number
    /// written twice), regions (3 letters, unknown, both policies), the budget and limits out of range, the verify URL
    /// (http to a public host; http to loopback without --dev; user info), the score, an unknown MFA provider.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func wrongPhoneSettingsAreRefusedAndSaveNothing(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let before = try await h.store.projectConfig(projectId: h.projectId)
            let auditBefore = try await h.store.auditEntries(before: nil, limit: 100).count
            let eleven = (0..<11).map { #""+1555555\#(String(format: "%04d", $0))":"123456""# }.joined(separator: ",")
            let cases: [(String, String, String)] = [
                ("signIn.phoneNumber.testPhoneNumbers", #"{"signIn":{"phoneNumber":{"testPhoneNumbers":{"555-0100":"123456"}}}}"#, "is not a phone number"),
                ("signIn.phoneNumber.testPhoneNumbers", #"{"signIn":{"phoneNumber":{"testPhoneNumbers":{"+1555٥٥٥0100":"123456"}}}}"#, "is not a phone number"),
                ("signIn.phoneNumber.testPhoneNumbers", #"{"signIn":{"phoneNumber":{"testPhoneNumbers":{"+15555550100":"12345"}}}}"#, "must be 6 digits"),
                ("signIn.phoneNumber.testPhoneNumbers", #"{"signIn":{"phoneNumber":{"testPhoneNumbers":{"+15555550100":"12a456"}}}}"#, "must be 6 digits"),
                ("signIn.phoneNumber.testPhoneNumbers", #"{"signIn":{"phoneNumber":{"testPhoneNumbers":{\#(eleven)}}}}"#, "at most 10 numbers"),
                ("signIn.phoneNumber.testPhoneNumbers", #"{"signIn":{"phoneNumber":{"testPhoneNumbers":{"+15555550100":"123456","+1 555 555 0100":"654321"}}}}"#, "given twice"),
                ("signIn.phoneNumber.testPhoneNumbers", #"{"signIn":{"phoneNumber":{"testPhoneNumbers":["+15555550100"]}}}"#, "must be an object"),
                ("smsRegionConfig", #"{"smsRegionConfig":{"allowlistOnly":{"allowedRegions":["USA"]}}}"#, "USA is not a region code"),
                ("smsRegionConfig", #"{"smsRegionConfig":{"allowByDefault":{"disallowedRegions":["ZZ"]}}}"#, "ZZ is not a region code"),
                ("smsRegionConfig", #"{"smsRegionConfig":{"allowlistOnly":{"allowedRegions":["US"]},"allowByDefault":{}}}"#, "not both"),
                ("sms.dailyBudget", #"{"sms":{"dailyBudget":-1}}"#, "sms.dailyBudget must be between 0 and 10000000"),
                ("sms.dailyBudget", #"{"sms":{"dailyBudget":1.5}}"#, "must be a whole number"),
                ("sms.perNumberPerHour", #"{"sms":{"perNumberPerHour":0}}"#, "sms.perNumberPerHour must be between 1 and 1000"),
                ("sms.perAddressPerHour", #"{"sms":{"perAddressPerHour":100001}}"#, "sms.perAddressPerHour must be between 1 and 100000"),
                ("sms.recaptcha.verifyUrl", #"{"sms":{"recaptcha":{"verifyUrl":"http://recaptcha.example.com/siteverify"}}}"#, "must be https://"),
                ("sms.recaptcha.verifyUrl", #"{"sms":{"recaptcha":{"verifyUrl":"http://127.0.0.1:9/siteverify"}}}"#, "only for a loopback host when the server runs with --dev"),
                ("sms.recaptcha.verifyUrl", #"{"sms":{"recaptcha":{"verifyUrl":"https://user:pw@recaptcha.example.com/"}}}"#, "no user name"),
                ("sms.recaptcha.minScore", #"{"sms":{"recaptcha":{"minScore":1.5}}}"#, "between 0 and 1"),
                ("sms.recaptcha.secretKey", #"{"sms":{"recaptcha":{"secretKey":"two words"}}}"#, "one word"),
                ("mfa.enabledProviders", #"{"mfa":{"enabledProviders":["EMAIL_OTP"]}}"#, "takes PHONE_SMS only"),
            ]
            for (mask, body, words) in cases {
                let reply = try await Self.patch(h, mask, body)
                #expect(reply.status == 400 && reply.errorCode == "INVALID_CONFIG", "\(body): \(reply.text)")
                #expect(reply.text.contains(words), "\(body): \(reply.text)")
            }
            // A NUL anywhere in the body is refused before the settings are looked at (the server's NUL guard).
            let nul = try await Self.patch(h, "signIn.phoneNumber.testPhoneNumbers", #"{"signIn":{"phoneNumber":{"testPhoneNumbers":{"+1555\u00005550100":"123456"}}}}"#)
            #expect(nul.status == 400 && nul.errorCode == "INVALID_ARGUMENT" && nul.text.contains("NUL"), "\(nul.text)")
            #expect(try await h.store.projectConfig(projectId: h.projectId) == before)
            #expect(try await h.store.auditEntries(before: nil, limit: 100).count == auditBefore)
        }
    }

    /// Issue 40, item 5: SMS second factors through the admin user API — imported (`mfaInfo[].phoneInfo`, id, name and
    /// time kept; a TOTP factor still refused; a bad number refused per user), added by `accounts:update` without an id
    /// (the Node Admin SDK's body) beside the kept ones, a number twice → SECOND_FACTOR_EXISTS, more than five → the
    /// limit; the admin record and `accounts:lookup` answer the full number, a first-factor sign-in the masked one.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func phoneFactorsAreImportedAndAddedByAnAdministrator(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store) { h in
            let imported = try await Self.admin(h, "batchCreate", """
                {"users":[
                  {"localId":"imp1","email":"imp1@example.com","emailVerified":true,"rawPassword":"correct horse 1",
                   "mfaInfo":[{"mfaEnrollmentId":"f1","displayName":"Work","phoneInfo":"+1 202 555 0101","enrolledAt":"2026-01-02T03:04:05Z"}]},
                  {"localId":"imp2","mfaInfo":[{"mfaEnrollmentId":"t1","totpInfo":{}}]},
                  {"localId":"imp3","mfaInfo":[{"phoneInfo":"202-555-0101"}]}]}
                """)
            #expect(imported.status == 200, "\(imported.text)")
            let errors = (imported.json?["error"] as? [[String: Any]]) ?? []
            #expect(errors.map { $0["index"] as? Int } == [1, 2], "\(imported.text)")
            #expect((errors.last?["message"] as? String)?.hasPrefix("INVALID_PHONE_NUMBER") == true, "\(imported.text)")
            let user = try #require(try await h.store.user(localId: "imp1"))
            #expect(user.mfa.factors.map(\.enrollmentInfo) == [MFAEnrollmentInfo(mfaEnrollmentId: "f1", displayName: "Work",
                                                                                 enrolledAt: "2026-01-02T03:04:05.000Z", phoneInfo: "+12025550101")])
            #expect(try await h.store.user(localId: "imp2") == nil)
            #expect(try await h.store.user(localId: "imp3") == nil)

            // A first-factor sign-in answers the masked number.
            let signIn = try await h.send(.post, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
                                          body: #"{"email":"imp1@example.com","password":"correct horse 1","returnSecureToken":true}"#)
            let pending = try #require((signIn.json?["mfaInfo"] as? [[String: Any]])?.first, "\(signIn.text)")
            #expect(pending["phoneInfo"] as? String == "+*******0101")

            // Added by an administrator without an id, beside the kept one; renamed; twice refused; the limit.
            let added = try await Self.admin(h, "update", #"{"localId":"imp1","mfa":{"enrollments":[{"mfaEnrollmentId":"f1","displayName":"Office"},{"phoneInfo":"+442079460000","displayName":"London"}]}}"#)
            #expect(added.status == 200, "\(added.text)")
            var factors = try #require(try await h.store.user(localId: "imp1")).mfa.factors
            #expect(factors.map(\.phoneNumber) == ["+12025550101", "+442079460000"] && factors.map(\.displayName) == ["Office", "London"])
            #expect(!factors[1].enrollmentId.isEmpty && factors[1].kind == .phone)
            let looked = try await Self.admin(h, "lookup", #"{"localId":["imp1"]}"#)
            #expect(looked.text.contains(#""phoneInfo":"+442079460000""#), "\(looked.text)")
            let keep = factors.map { #"{"mfaEnrollmentId":"\#($0.enrollmentId)"}"# }.joined(separator: ",")
            let twice = try await Self.admin(h, "update", #"{"localId":"imp1","mfa":{"enrollments":[\#(keep),{"phoneInfo":"+1 (202) 555-0101"}]}}"#)
            #expect(twice.errorCode == "SECOND_FACTOR_EXISTS", "\(twice.text)")
            let many = (0..<4).map { #"{"phoneInfo":"+3312345678\#($0)"}"# }.joined(separator: ",")
            let tooMany = try await Self.admin(h, "update", #"{"localId":"imp1","mfa":{"enrollments":[\#(keep),\#(many)]}}"#)
            #expect(tooMany.errorCode == "SECOND_FACTOR_LIMIT_EXCEEDED", "\(tooMany.text)")
            let bad = try await Self.admin(h, "update", #"{"localId":"imp1","mfa":{"enrollments":[{"phoneInfo":"+1 202 CALL NOW"}]}}"#)
            #expect(bad.errorCode == "INVALID_PHONE_NUMBER", "\(bad.text)")
            let nul = try await Self.admin(h, "update", #"{"localId":"imp1","mfa":{"enrollments":[{"phoneInfo":"+1\u0000202"}]}}"#)
            #expect(nul.errorCode == "INVALID_ARGUMENT", "\(nul.text)")
            let noId = try await Self.admin(h, "update", #"{"localId":"imp1","mfa":{"enrollments":[{"displayName":"x"}]}}"#)
            #expect(noId.errorCode == "MISSING_MFA_ENROLLMENT_ID", "\(noId.text)")
            factors = try #require(try await h.store.user(localId: "imp1")).mfa.factors
            #expect(factors.count == 2, "refused updates changed nothing")
        }
    }
}
