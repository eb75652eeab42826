import Foundation
import HearthWire
import Testing

@Suite struct MultiFactorWireTests {
    func object(_ value: some Encodable) throws -> [String: Any] {
        let data = try WireJSON.encoder.encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try WireJSON.decoder.decode(type, from: Data(json.utf8))
    }

    @Test func paths() {
        #expect(WirePaths.mfaEnrollmentStart == "/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:start")
        #expect(WirePaths.mfaEnrollmentFinalize == "/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:finalize")
        #expect(WirePaths.mfaEnrollmentWithdraw == "/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:withdraw")
        #expect(WirePaths.mfaSignInStart == "/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:start")
        #expect(WirePaths.mfaSignInFinalize == "/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:finalize")
    }

    @Test func startEnrollmentAsFirebaseSendsIt() throws {
        // What the JS and iOS SDKs send: `totpEnrollmentInfo: {}`.
        let request = try decode(StartMFAEnrollmentRequest.self, #"{"idToken":"t","totpEnrollmentInfo":{}}"#)
        #expect(request.idToken == "t")
        #expect(request.totpEnrollmentInfo == EmptyWireObject())
        #expect(request.phoneEnrollmentInfo == nil)
        let phone = try decode(StartMFAEnrollmentRequest.self, #"{"idToken":"t","phoneEnrollmentInfo":{"phoneNumber":"+1555"}}"#)
        #expect(phone.totpEnrollmentInfo == nil && phone.phoneEnrollmentInfo != nil)
        let encoded = try object(StartMFAEnrollmentRequest(idToken: "t"))
        #expect((encoded["totpEnrollmentInfo"] as? [String: Any])?.isEmpty == true)
    }

    @Test func startEnrollmentAnswer() throws {
        let response = StartMFAEnrollmentResponse(totpSessionInfo: TOTPSessionInfo(
            sharedSecretKey: "JBSWY3DPEHPK3PXP", verificationCodeLength: 6, hashingAlgorithm: "SHA1", periodSec: 30,
            sessionInfo: "s1", finalizeEnrollmentTime: "2026-11-24T06:10:00Z"))
        let info = try #require(try object(response)["totpSessionInfo"] as? [String: Any])
        #expect(Set(info.keys) == ["sharedSecretKey", "verificationCodeLength", "hashingAlgorithm", "periodSec",
                                   "sessionInfo", "finalizeEnrollmentTime"])
        #expect(info["verificationCodeLength"] as? Int == 6)
        #expect(info["periodSec"] as? Int == 30)
        #expect(info["hashingAlgorithm"] as? String == "SHA1")
    }

    @Test func finalizeEnrollmentAndWithdraw() throws {
        let finalize = try decode(FinalizeMFAEnrollmentRequest.self,
                                  #"{"idToken":"t","displayName":"Phone app","totpVerificationInfo":{"sessionInfo":"s1","verificationCode":"123456"}}"#)
        #expect(finalize.displayName == "Phone app")
        #expect(finalize.totpVerificationInfo == TOTPEnrollmentVerificationInfo(sessionInfo: "s1", verificationCode: "123456"))
        let answer = try object(FinalizeMFAEnrollmentResponse(idToken: "i", refreshToken: "r"))
        #expect(answer["idToken"] as? String == "i" && answer["refreshToken"] as? String == "r")
        #expect((answer["totpAuthInfo"] as? [String: Any])?.isEmpty == true)
        let withdraw = try decode(WithdrawMFARequest.self, #"{"idToken":"t","mfaEnrollmentId":"e1"}"#)
        #expect(withdraw == WithdrawMFARequest(idToken: "t", mfaEnrollmentId: "e1"))
    }

    @Test func finalizeSignInWithATOTPCodeOrARecoveryCode() throws {
        // The JS SDK's body for TOTP: the enrollment id beside the verification info.
        let totp = try decode(FinalizeMFASignInRequest.self,
                              #"{"mfaPendingCredential":"p","mfaEnrollmentId":"e1","totpVerificationInfo":{"verificationCode":"123456"}}"#)
        #expect(totp == FinalizeMFASignInRequest(mfaPendingCredential: "p", mfaEnrollmentId: "e1", verificationCode: "123456"))
        #expect(totp.recoveryCodeVerificationInfo == nil)
        // Hearth's extension member of the union.
        let recovery = try decode(FinalizeMFASignInRequest.self,
                                  #"{"mfaPendingCredential":"p","recoveryCodeVerificationInfo":{"recoveryCode":"k7m2p-x9qr4"}}"#)
        #expect(recovery == FinalizeMFASignInRequest(mfaPendingCredential: "p", recoveryCode: "k7m2p-x9qr4"))
        #expect(recovery.totpVerificationInfo == nil && recovery.mfaEnrollmentId == nil)
        let encoded = try object(FinalizeMFASignInRequest(mfaPendingCredential: "p", recoveryCode: "x"))
        #expect(Set(encoded.keys) == ["mfaPendingCredential", "recoveryCodeVerificationInfo"])
    }

    @Test func enrolledFactorsAsUserRecordsCarryThem() throws {
        let info = MFAEnrollmentInfo(mfaEnrollmentId: "e1", displayName: "Phone app", enrolledAt: "2026-11-24T06:00:00.123Z")
        let encoded = try object(info)
        #expect(Set(encoded.keys) == ["mfaEnrollmentId", "displayName", "enrolledAt", "totpInfo"])
        #expect((encoded["totpInfo"] as? [String: Any])?.isEmpty == true)
        #expect(info.kind == .totp)
        let phone = try decode(MFAEnrollmentInfo.self, #"{"mfaEnrollmentId":"e2","phoneInfo":"+*******1234"}"#)
        #expect(phone.kind == .phone)
        #expect(try decode(MFAEnrollmentInfo.self, #"{"mfaEnrollmentId":"e3"}"#).kind == nil)
        let pending = try object(MFAPendingSignIn(mfaPendingCredential: "p", mfaInfo: [info]))
        #expect(pending["mfaPendingCredential"] as? String == "p")
        #expect((pending["mfaInfo"] as? [[String: Any]])?.first?["mfaEnrollmentId"] as? String == "e1")
    }

    @Test func projectConfigAsTheNodeAdminSDKSendsIt() throws {
        // `updateProjectConfig({multiFactorConfig: {state: 'ENABLED', providerConfigs: [{state: 'ENABLED',
        // totpProviderConfig: {adjacentIntervals: 5}}]}})` puts this under `mfa`.
        let json = #"{"state":"ENABLED","providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":5}}]}"#
        let config = try decode(MultiFactorAuthConfig.self, json)
        #expect(config.state == .enabled)
        #expect(config.totp?.totpProviderConfig?.adjacentIntervals == 5)
        #expect(config.isTOTPEnabled)
        var off = config
        off.providerConfigs?[0].state = .disabled
        #expect(!off.isTOTPEnabled)
        #expect(!MultiFactorAuthConfig(state: .disabled, providerConfigs: config.providerConfigs).isTOTPEnabled)
        #expect(MultiFactorAuthConfig(state: .mandatory, providerConfigs: config.providerConfigs).isTOTPEnabled)
        #expect(!MultiFactorAuthConfig(state: .enabled, enabledProviders: ["PHONE_SMS"]).isTOTPEnabled)
        #expect((try? decode(MultiFactorAuthConfig.self, #"{"state":"SOMETIMES"}"#)) == nil)
        let round = try decode(MultiFactorAuthConfig.self, String(decoding: try WireJSON.encoder.encode(config), as: UTF8.self))
        #expect(round == config)
    }

    @Test func errorStringsAsFirebaseSpellsThem() {
        let expected: [ServerErrorCode: String] = [
            .missingMfaPendingCredential: "MISSING_MFA_PENDING_CREDENTIAL", .invalidMfaPendingCredential: "INVALID_MFA_PENDING_CREDENTIAL",
            .missingMfaEnrollmentId: "MISSING_MFA_ENROLLMENT_ID", .mfaEnrollmentNotFound: "MFA_ENROLLMENT_NOT_FOUND",
            .unverifiedEmail: "UNVERIFIED_EMAIL", .secondFactorExists: "SECOND_FACTOR_EXISTS",
            .secondFactorLimitExceeded: "SECOND_FACTOR_LIMIT_EXCEEDED", .unsupportedFirstFactor: "UNSUPPORTED_FIRST_FACTOR",
            .invalidCode: "INVALID_CODE", .missingCode: "MISSING_CODE", .invalidSessionInfo: "INVALID_SESSION_INFO",
            .missingSessionInfo: "MISSING_SESSION_INFO", .sessionExpired: "SESSION_EXPIRED",
        ]
        for (code, text) in expected {
            #expect(code.rawValue == text)
            #expect(code.httpStatus == 400, "\(text)")
            #expect(code.reason == "invalid", "\(text)")
            #expect(code.status == nil, "\(text)")
        }
        #expect(Set(ServerErrorCode.allCases.map(\.rawValue)).count == ServerErrorCode.allCases.count)
    }
}
