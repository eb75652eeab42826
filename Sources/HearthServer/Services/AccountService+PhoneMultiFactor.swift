import Foundation
import HearthCore
import HearthStore
import HearthWire

/// SMS second factors (Firebase's phone MFA): `mfaEnrollment:start` with `phoneEnrollmentInfo` sends a code to the
/// number being enrolled, `mfaEnrollment:finalize` with `phoneVerificationInfo` enrolls it; `mfaSignIn:start` with
/// `phoneSignInInfo` sends a code to an enrolled number for a pending sign-in, `mfaSignIn:finalize` with
/// `phoneVerificationInfo` completes it.
///
/// The codes are ``PhoneVerificationRecord``s made and checked by ``sendPhoneCode(_:purpose:appVerification:localId:binding:user:clientAddress:in:)``
/// and ``checkPhoneCode(sessionInfo:code:purpose:clientAddress:in:)`` with every defence of phone sign-in (region
/// policy, app verification, per-number and per-address limits, the daily budget, `beforeSendSms`, 5 wrong codes per
/// code and 10 per number an hour). An enrollment code is bound to the user (`localId`), a sign-in code to the pending
/// credential it completes (`binding`): another user's or another pending sign-in's `sessionInfo` is refused.
extension AccountService {
    /// Firebase's words when the project's `mfa` does not list `PHONE_SMS` (state `ENABLED` or `MANDATORY`).
    static let phoneMFANotEnabled = HearthAPIError(
        .operationNotAllowed, "SMS based MFA not enabled: add PHONE_SMS to the project's mfa.enabledProviders (with mfa.state ENABLED)")

    /// First factors Firebase does not let enroll a second factor: anonymous, phone, custom tokens (as its emulator's
    /// `MFA_INELIGIBLE_PROVIDER`).
    static func checkSecondFactorEligible(_ claims: IDTokenClaims) throws {
        let provider = claims.firebase.signInProvider
        if ["anonymous", "phone", "custom"].contains(provider) {
            throw HearthAPIError(.unsupportedFirstFactor, "MFA is not available for the given first factor (\(provider)): sign in with a password, an email link or a provider first")
        }
    }

    // MARK: Enrollment

    /// `mfaEnrollment:start` with `phoneEnrollmentInfo`: sends a code to the number (not enrolled yet) and answers
    /// `phoneSessionInfo.sessionInfo`.
    func startPhoneEnrollment(_ request: StartMFAEnrollmentRequest, _ info: PhoneEnrollmentInfo, clientAddress: String,
                              in scope: Scope) async throws -> StartMFAEnrollmentResponse {
        let project = try await scope.config()
        guard project.isPhoneMFAEnabled else { throw Self.phoneMFANotEnabled }
        let (claims, user) = try await authenticate(idToken: request.idToken, in: scope)
        try Self.checkSecondFactorEligible(claims)
        try checkCanEnroll(user)
        try requireRecentLogin(claims)
        let number = try Self.parsePhoneNumber(info.phoneNumber)
        guard user.mfa.phoneFactor(number: number) == nil else {
            throw HearthAPIError(.secondFactorExists, "Phone number already enrolled as second factor for this account.")
        }
        let sessionInfo = try await sendPhoneCode(number, purpose: .mfaEnrollment, appVerification: info.appVerification,
                                                  localId: user.localId, binding: nil, user: user, clientAddress: clientAddress, in: scope)
        return StartMFAEnrollmentResponse(phoneSessionInfo: PhoneSessionInfo(sessionInfo: sessionInfo))
    }

    /// `mfaEnrollment:finalize` with `phoneVerificationInfo`: the code sent by `startPhoneEnrollment` enrolls its
    /// number. The user's other sessions end (as for TOTP); the caller continues with the answer's tokens, which
    /// carry the new factor.
    func finalizePhoneEnrollment(_ request: FinalizeMFAEnrollmentRequest, _ info: PhoneVerificationInfo, clientAddress: String,
                                 mailer: Mailer?, in scope: Scope) async throws -> FinalizeMFAEnrollmentResponse {
        let project = try await scope.config()
        guard project.isPhoneMFAEnabled else { throw Self.phoneMFANotEnabled }
        if let name = request.displayName, name.count > 256 || !StoreError.storable(name) {
            throw HearthAPIError(.invalidDisplayName, "a factor's display name is at most 256 characters")
        }
        let (claims, user) = try await authenticate(idToken: request.idToken, in: scope)
        try Self.checkSecondFactorEligible(claims)
        try requireRecentLogin(claims)
        // The code was sent for this user's enrollment: another user's (even with its right code) is refused, before
        // it is checked (so it is not spent) and after (a record replaced meanwhile cannot slip through).
        let foreign = HearthAPIError(.invalidSessionInfo, "this sessionInfo was sent for another account's enrollment: start it again with mfaEnrollment:start")
        try await refuseForeignCode(info.sessionInfo, localId: user.localId, binding: nil, error: foreign, in: scope)
        let record = try await checkPhoneCode(sessionInfo: info.sessionInfo, code: info.code, purpose: .mfaEnrollment,
                                              clientAddress: clientAddress, in: scope)
        guard record.localId == user.localId else { throw foreign }
        let number = record.phoneNumber
        let moment = now
        let enrollmentId = RandomID.token(byteCount: 16)
        let displayName = request.displayName.flatMap { $0.isEmpty ? nil : $0 }
        let recoveryCodes = request.generateRecoveryCodes == true ? RecoveryCodes.generate() : nil
        let updated = try await modifyUser(localId: user.localId, revokingSessions: true, in: scope) { user in
            try checkCanEnroll(user)
            // Checked again on the fresh record: two finalizations of two codes for one number enroll it once.
            guard user.mfa.phoneFactor(number: number) == nil else {
                throw HearthAPIError(.secondFactorExists, "Phone number already enrolled as second factor for this account.")
            }
            user.mfa.factors.append(MultiFactorEnrollment(enrollmentId: enrollmentId, displayName: displayName, enrolledAt: moment, phoneNumber: number))
            if let recoveryCodes {
                user.mfa.recoveryCodeHashes = recoveryCodes.compactMap(RecoveryCodes.hash)
                user.mfa.recoveryCodesUsed = 0
            }
            user.validSince = max(user.validSince, Date(timeIntervalSince1970: Double(claims.authTime)))
        }
        try await auditUser(updated.localId, "mfa.enroll",
                            detail: "phone \(enrollmentId) \(PhoneNumber.masked(number))\(recoveryCodes == nil ? "" : ", recovery codes")", in: scope)
        await mailer?.sendFactorAdded(to: updated, factor: displayName ?? "an SMS code to \(PhoneNumber.masked(number))",
                                      asks: "a code sent to that phone", at: moment, config: project)
        let end = try await finishSignIn(updated, provider: claims.firebase.signInProvider, .continuing(
            claims, sessionClaims: IDTokenClaims.secondFactorSessionClaims(kind: MultiFactorKind.phone.rawValue, enrollmentId: enrollmentId)), in: scope)
        return FinalizeMFAEnrollmentResponse(idToken: end.tokens?.idToken, refreshToken: end.tokens?.refreshToken,
                                             phoneAuthInfo: PhoneAuthInfo(phoneNumber: number), recoveryCodes: recoveryCodes)
    }

    /// Throws `error` when `sessionInfo` names a stored code of another user (or, with `binding`, of another pending
    /// sign-in); returns for anything else, which ``checkPhoneCode(sessionInfo:code:purpose:clientAddress:in:)`` judges.
    private func refuseForeignCode(_ sessionInfo: String?, localId: String, binding: String?, error: HearthAPIError, in scope: Scope) async throws {
        guard let sessionInfo, !sessionInfo.isEmpty, sessionInfo.utf8.count <= Self.maxPhoneSessionLength,
              let record = try await scope.store.phoneVerification(idHash: RefreshTokenRecord.hash(sessionInfo)) else { return }
        if record.localId != localId || (binding != nil && record.binding != binding) { throw error }
    }

    // MARK: Sign-in

    /// `mfaSignIn:start` with `phoneSignInInfo`: sends a code to the enrolled number of `mfaEnrollmentId` (the number
    /// the client sends, masked by the iOS SDK, is not used) for the pending sign-in; answers
    /// `phoneResponseInfo.sessionInfo`.
    func startPhoneSecondFactor(_ request: StartMFASignInRequest, _ info: PhoneSignInInfo, credential: String, clientAddress: String,
                                in scope: Scope) async throws -> StartMFASignInResponse {
        let project = try await scope.config()
        guard project.isPhoneMFAEnabled else { throw Self.phoneMFANotEnabled }
        guard let enrollmentId = request.mfaEnrollmentId, !enrollmentId.isEmpty else { throw HearthAPIError(.missingMfaEnrollmentId) }
        let (user, session) = try await pendingSignIn(credential, in: scope)
        guard let factor = user.mfa.factors.first(where: { $0.enrollmentId == enrollmentId }) else {
            throw HearthAPIError(.mfaEnrollmentNotFound, "the user has no second factor \(enrollmentId.prefix(64))")
        }
        guard factor.kind == .phone, let number = factor.phoneNumber else {
            throw HearthAPIError(.invalidArgument, "second factor \(enrollmentId.prefix(64)) is not an SMS factor: complete a TOTP factor with mfaSignIn:finalize")
        }
        let sessionInfo = try await sendPhoneCode(number, purpose: .mfaSignIn, appVerification: info.appVerification,
                                                  localId: user.localId, binding: session.idHash, user: user, clientAddress: clientAddress, in: scope)
        return StartMFASignInResponse(phoneResponseInfo: PhoneSessionInfo(sessionInfo: sessionInfo))
    }

    /// `mfaSignIn:finalize` with `phoneVerificationInfo`: the code sent for this pending sign-in completes it. The
    /// factor is the enrolled one of the code's number (Firebase's SDKs send no `mfaEnrollmentId` here).
    func finishPhoneSecondFactor(_ info: PhoneVerificationInfo, credential: String, clientAddress: String,
                                 in scope: Scope) async throws -> FinalizeMFASignInResponse {
        let project = try await scope.config()
        guard project.isPhoneMFAEnabled else { throw Self.phoneMFANotEnabled }
        guard info.code?.isEmpty == false else { throw HearthAPIError(.missingCode) }
        guard info.sessionInfo?.isEmpty == false else { throw HearthAPIError(.missingSessionInfo) }
        let (user, session) = try await pendingSignIn(credential, in: scope)
        // The code completes the pending sign-in it was sent for, and no other (another browser's, another user's):
        // refused before it is checked (not spent) and after.
        let foreign = HearthAPIError(.invalidSessionInfo, "this sessionInfo was sent for another sign-in: ask for a code with mfaSignIn:start for this mfaPendingCredential")
        try await refuseForeignCode(info.sessionInfo, localId: user.localId, binding: session.idHash, error: foreign, in: scope)
        let record = try await checkPhoneCode(sessionInfo: info.sessionInfo, code: info.code, purpose: .mfaSignIn,
                                              clientAddress: clientAddress, in: scope)
        guard record.binding == session.idHash, record.localId == user.localId else { throw foreign }
        guard let factor = user.mfa.phoneFactor(number: record.phoneNumber) else {
            throw HearthAPIError(.mfaEnrollmentNotFound, "the SMS factor of this code was removed meanwhile: sign in again")
        }
        guard try await scope.store.deleteMultiFactorSession(idHash: session.idHash) else {
            throw HearthAPIError(.invalidMfaPendingCredential, "this sign-in was completed already: sign in again")
        }
        var answer = try await finishSecondFactor(user, session, .phone, factorId: factor.enrollmentId, in: scope)
        answer.phoneAuthInfo = PhoneAuthInfo(phoneNumber: record.phoneNumber)
        return answer
    }
}
