import Foundation
import HearthCore
import HearthWire
import Testing

/// The phone RPCs' shapes as Firebase's SDKs send and read them, SMS factors in stored users, the project's phone
/// settings, and the `phone_number` claim.
@Suite struct PhoneWireTests {
    func object(_ value: some Encodable) throws -> [String: Any] {
        let data = try WireJSON.encoder.encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try WireJSON.decoder.decode(type, from: Data(json.utf8))
    }

    /// Issue 40, item 1: `sendVerificationCode` carries the app verification fields flat, as the SDKs send them.
    @Test func sendVerificationCodeCarriesTheAppVerificationFieldsFlat() throws {
        let ios = try decode(SendVerificationCodeRequest.self, #"""
            {"phoneNumber":"+15555550100","iosReceipt":"r","iosSecret":"s","recaptchaToken":"tok","tenantId":"acme-aaaaa",
             "captchaResponse":"ent","clientType":"CLIENT_TYPE_IOS","recaptchaVersion":"RECAPTCHA_ENTERPRISE",
             "playIntegrityToken":"pi","safetyNetToken":"sn","autoRetrievalInfo":{"appSignatureHash":"abc"}}
            """#)
        #expect(ios.phoneNumber == "+15555550100" && ios.tenantId == "acme-aaaaa")
        #expect(ios.appVerification == AppVerificationFields(recaptchaToken: "tok", captchaResponse: "ent", clientType: "CLIENT_TYPE_IOS",
                                                             recaptchaVersion: "RECAPTCHA_ENTERPRISE", iosReceipt: "r", iosSecret: "s",
                                                             safetyNetToken: "sn", playIntegrityToken: "pi",
                                                             autoRetrievalInfo: .init(appSignatureHash: "abc")))
        #expect(ios.appVerification.recaptchaResponse == "tok")
        #expect(AppVerificationFields(recaptchaToken: "", captchaResponse: "ent").recaptchaResponse == "ent")
        #expect(AppVerificationFields().recaptchaResponse == nil)
        let sent = try object(SendVerificationCodeRequest(phoneNumber: "+15555550100", appVerification: AppVerificationFields(recaptchaToken: "tok")))
        #expect(sent.keys.sorted() == ["phoneNumber", "recaptchaToken"])
        #expect(try decode(SendVerificationCodeRequest.self, "{}").phoneNumber == nil)
        #expect(SendVerificationCodeRequest.method.paths == ["/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode",
                                                             "/www.googleapis.com/identitytoolkit/v3/relyingparty/sendVerificationCode"])
        #expect(try object(SendVerificationCodeResponse(sessionInfo: "hps1.x")) as NSDictionary == ["sessionInfo": "hps1.x"])
    }

    /// Issue 40, item 1: `signInWithPhoneNumber` (v3 `verifyPhoneNumber`) reads codes, proofs, links and
    /// `operation`; a refused link answers only the number and the proof.
    @Test func signInWithPhoneNumberShapes() throws {
        let link = try decode(SignInWithPhoneNumberRequest.self,
                              #"{"sessionInfo":"s","code":"123456","idToken":"t","operation":"LINK","tenantId":"acme-aaaaa"}"#)
        #expect(link.sessionInfo == "s" && link.code == "123456" && link.idToken == "t" && link.tenantId == "acme-aaaaa")
        #expect(link.operation.flatMap(SignInWithPhoneNumberRequest.Operation.init(rawValue:)) == .link)
        let proof = try decode(SignInWithPhoneNumberRequest.self, #"{"temporaryProof":"p","phoneNumber":"+15555550100","operation":"REAUTH"}"#)
        #expect(proof.temporaryProof == "p" && proof.phoneNumber == "+15555550100" && proof.operation == "REAUTH")
        #expect(SignInWithPhoneNumberRequest.method.paths.last == "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPhoneNumber")
        let refused = try object(SignInWithPhoneNumberResponse(phoneNumber: "+15555550100", temporaryProof: "hpp1.x", temporaryProofExpiresIn: "300"))
        #expect(refused as NSDictionary == ["phoneNumber": "+15555550100", "temporaryProof": "hpp1.x", "temporaryProofExpiresIn": "300"])
        let signedIn = try object(SignInWithPhoneNumberResponse(tokens: SessionTokens(idToken: "i", refreshToken: "r", expiresIn: "3600"),
                                                                localId: "u", isNewUser: true, phoneNumber: "+15555550100"))
        #expect(signedIn as NSDictionary == ["idToken": "i", "refreshToken": "r", "expiresIn": "3600", "localId": "u", "isNewUser": true,
                                            "phoneNumber": "+15555550100"])
    }

    /// Issue 40, item 2: SMS factors' enrollment and sign-in shapes (Identity Toolkit v2).
    @Test func smsSecondFactorShapes() throws {
        let start = try decode(StartMFAEnrollmentRequest.self,
                               #"{"idToken":"t","phoneEnrollmentInfo":{"phoneNumber":"+15555550100","recaptchaToken":"tok"}}"#)
        #expect(start.phoneEnrollmentInfo?.phoneNumber == "+15555550100" && start.phoneEnrollmentInfo?.appVerification.recaptchaToken == "tok")
        #expect(start.totpEnrollmentInfo == nil)
        #expect(try object(StartMFAEnrollmentResponse(phoneSessionInfo: PhoneSessionInfo(sessionInfo: "s"))) as NSDictionary
                == ["phoneSessionInfo": ["sessionInfo": "s"]])
        let finalize = try decode(FinalizeMFAEnrollmentRequest.self,
                                  #"{"idToken":"t","displayName":"Work","phoneVerificationInfo":{"sessionInfo":"s","code":"123456"}}"#)
        #expect(finalize.phoneVerificationInfo == PhoneVerificationInfo(sessionInfo: "s", code: "123456"))
        let enrolled = try object(FinalizeMFAEnrollmentResponse(idToken: "i", refreshToken: "r", phoneAuthInfo: PhoneAuthInfo(phoneNumber: "+15555550100")))
        #expect(enrolled as NSDictionary == ["idToken": "i", "refreshToken": "r", "phoneAuthInfo": ["phoneNumber": "+15555550100"]])
        let signInStart = try decode(StartMFASignInRequest.self,
                                     #"{"mfaPendingCredential":"p","mfaEnrollmentId":"e","phoneSignInInfo":{"recaptchaToken":"tok"}}"#)
        #expect(signInStart.phoneSignInInfo?.appVerification.recaptchaToken == "tok" && signInStart.mfaEnrollmentId == "e")
        #expect(try object(StartMFASignInResponse(phoneResponseInfo: PhoneSessionInfo(sessionInfo: "s"))) as NSDictionary
                == ["phoneResponseInfo": ["sessionInfo": "s"]])
        // The Apple SDK sends the masked number with the code; it is read, not needed.
        let signInFinalize = try decode(FinalizeMFASignInRequest.self,
                                        #"{"mfaPendingCredential":"p","phoneVerificationInfo":{"sessionInfo":"s","code":"1","phoneNumber":"+*******0100"}}"#)
        #expect(signInFinalize.phoneVerificationInfo?.phoneNumber == "+*******0100")
        #expect(try object(FinalizeMFASignInResponse(idToken: "i", refreshToken: "r")) as NSDictionary == ["idToken": "i", "refreshToken": "r"])
        #expect(try decode(StartMFAEnrollmentResponse.self, #"{"phoneSessionInfo":{"sessionInfo":"s"}}"#).totpSessionInfo == nil)
    }

    /// Issue 40, item 2: stored factors — TOTP rows written before SMS factors read as TOTP and are written back
    /// byte-for-byte the same shape; SMS factors keep their number, answered in full in lookups and masked in
    /// sign-in answers.
    @Test func smsFactorsAreStoredBesideTOTP() throws {
        let old = #"{"factors":[{"enrollmentId":"e1","enrolledAt":0,"secret":"JBSWY3DPEHPK3PXP","algorithm":"SHA1","digits":6,"period":30}],"recoveryCodeHashes":[],"recoveryCodesUsed":0}"#
        let stored = try JSONDecoder().decode(UserMultiFactor.self, from: Data(old.utf8))
        #expect(stored.factors.first?.kind == .totp && stored.factors.first?.phoneNumber == nil)
        let totpJSON = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(stored.factors[0])) as? [String: Any])
        #expect(totpJSON["kind"] == nil && totpJSON["phoneNumber"] == nil && totpJSON["secret"] as? String == "JBSWY3DPEHPK3PXP")
        let at = Date(timeIntervalSince1970: 1_800_000_000.25)
        var mfa = stored
        mfa.factors.append(MultiFactorEnrollment(enrollmentId: "e2", displayName: "Work phone", enrolledAt: at, phoneNumber: "+15555550100"))
        let again = try JSONDecoder().decode(UserMultiFactor.self, from: JSONEncoder().encode(mfa))
        #expect(again == mfa)
        #expect(again.phoneFactors.map(\.enrollmentId) == ["e2"] && again.phoneFactor(number: "+15555550100")?.enrollmentId == "e2")
        #expect(again.phoneFactor(number: "+15555550101") == nil)
        let full = try object(again.enrollmentInfo[1])
        #expect(full as NSDictionary == ["mfaEnrollmentId": "e2", "displayName": "Work phone", "enrolledAt": "2027-01-15T08:00:00.250Z",
                                        "phoneInfo": "+15555550100"])
        #expect(again.maskedEnrollmentInfo[1].phoneInfo == "+*******0100" && again.maskedEnrollmentInfo[1].kind == .phone)
        #expect(again.maskedEnrollmentInfo[0] == again.enrollmentInfo[0] && again.enrollmentInfo[0].kind == .totp)
    }

    /// Issue 40, items 1, 4: the project's phone settings — off by default except for `demo-*` projects (also
    /// for configurations stored before they existed), and SMS MFA only with `PHONE_SMS` on an enabled `mfa`.
    @Test func projectPhoneSettings() throws {
        #expect(ProjectConfig(projectId: "demo-x").phoneSignInEnabled && !ProjectConfig(projectId: "prod-x").phoneSignInEnabled)
        let stored = try JSONDecoder().decode(ProjectConfig.self, from: Data(#"{"projectId":"prod-x"}"#.utf8))
        #expect(!stored.phoneSignInEnabled && stored.testPhoneNumbers.isEmpty && stored.sms == nil && stored.smsRegionConfig == nil)
        #expect(try JSONDecoder().decode(ProjectConfig.self, from: Data(#"{"projectId":"demo-x"}"#.utf8)).phoneSignInEnabled)
        var config = ProjectConfig(projectId: "prod-x")
        config.phoneSignInEnabled = true
        config.testPhoneNumbers = ["+15555550100": "123456"]
        config.smsRegionConfig = SmsRegionConfig(allowlistOnly: .init(allowedRegions: ["US"]))
        config.sms = SmsSettings(dailyBudget: 50, appVerificationDisabled: true, recaptcha: .init(secretKey: "sealed", minScore: 0.7))
        #expect(try JSONDecoder().decode(ProjectConfig.self, from: JSONEncoder().encode(config)) == config)
        #expect(config.testPhoneCode(for: "+15555550100") == "123456" && config.testPhoneCode(for: "+15555550101") == nil)
        #expect(config.smsSettings.effectiveDailyBudget == 50 && config.smsSettings.effectivePerNumberPerHour == 5)
        #expect(config.smsSettings.effectivePerAddressPerHour == 10 && config.smsSettings.effectiveMinScore == 0.7)
        #expect(config.smsSettings.effectiveVerifyUrl == "https://www.google.com/recaptcha/api/siteverify" && config.smsSettings.hasRecaptchaSecret)
        #expect(!config.isPhoneMFAEnabled)
        config.mfa = MultiFactorAuthConfig(state: .enabled, enabledProviders: ["PHONE_SMS"])
        #expect(config.isPhoneMFAEnabled && !config.totpEnabled)
        config.mfa = MultiFactorAuthConfig(state: .disabled, enabledProviders: ["PHONE_SMS"])
        #expect(!config.isPhoneMFAEnabled)
        let wire = try decode(AdminProjectConfig.self, #"""
            {"signIn":{"phoneNumber":{"enabled":true,"testPhoneNumbers":{"+15555550100":"123456"}}},
             "smsRegionConfig":{"allowByDefault":{"disallowedRegions":["RU"]}},
             "sms":{"dailyBudget":0,"recaptcha":{"secretKey":"s","verifyUrl":"https://v.example/verify"}}}
            """#)
        #expect(wire.signIn?.phoneNumber == .init(enabled: true, testPhoneNumbers: ["+15555550100": "123456"]))
        #expect(wire.smsRegionConfig?.allowByDefault?.disallowedRegions == ["RU"] && wire.sms?.effectiveDailyBudget == 0)
        #expect(wire.sms?.effectiveVerifyUrl == "https://v.example/verify")
    }

    /// Issue 40, item 1: ID tokens carry the user's number as `phone_number`; a custom claim cannot replace it.
    @Test func idTokensCarryThePhoneNumber() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var user = UserRecord(localId: "u1", createdAt: now, validSince: now, customClaims: ["phone_number": .string("+19999999999")])
        user.phoneNumber = "+15555550100"
        let claims = IDTokenClaims(projectId: "demo-x", user: user, signInProvider: "phone", authTime: now, issuedAt: now, lifetime: 3600)
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(claims)) as? [String: Any])
        #expect(json["phone_number"] as? String == "+15555550100")
        let firebase = try #require(json["firebase"] as? [String: Any])
        #expect(firebase["sign_in_provider"] as? String == "phone")
        #expect((firebase["identities"] as? [String: [String]])?["phone"] == ["+15555550100"])
        let decoded = try JSONDecoder().decode(IDTokenClaims.self, from: JSONEncoder().encode(claims))
        #expect(decoded.phoneNumber == "+15555550100" && decoded.custom["phone_number"] == nil)
        let none = IDTokenClaims(projectId: "demo-x", user: UserRecord(localId: "u2", createdAt: now, validSince: now), signInProvider: "password",
                                 authTime: now, issuedAt: now, lifetime: 3600)
        #expect((try JSONSerialization.jsonObject(with: JSONEncoder().encode(none)) as? [String: Any])?["phone_number"] == nil)
    }
}
