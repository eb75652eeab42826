import Foundation
import HearthCore
import HearthStore
import HearthWire
import Logging

/// TOTP second factors (Firebase's v2 `mfaEnrollment:*` and `mfaSignIn:*`) and Hearth's recovery codes; the SMS
/// branches are in AccountService+PhoneMultiFactor.swift.
///
/// Factors live in the user's record (``UserRecord/mfa``), so enrolling, withdrawing, using a code's time step and
/// using a recovery code are each one version-checked write of the user: of two replicas accepting the same code,
/// one write wins and the other re-reads and refuses. Enrollments and sign-ins waiting for a code are
/// ``MultiFactorSessionRecord``s stored by the hash of the opaque string the client holds, deleted by the step that completes them.
extension AccountService {
    /// How long an enrollment started with `mfaEnrollment:start` may be finalized.
    static let mfaEnrollmentLifetime: TimeInterval = 600
    /// How long a first factor waits for its second (`mfaPendingCredential`).
    static let mfaPendingLifetime: TimeInterval = 300
    /// The longest opaque session string accepted (ours are ~50 characters).
    static let maxMultiFactorSessionLength = 256

    /// Wrong second-factor codes per user (and per client address) in the password throttle's window.
    var mfaThrottle: LoginThrottle {
        LoginThrottle(configuration: ThrottleConfiguration(maxFailuresPerAccount: 5, maxFailuresPerAddress: configuration.throttle.maxFailuresPerAddress,
                                                           window: configuration.throttle.window),
                      clock: configuration.clock, store: store, scope: "mfa")
    }

    // MARK: Enrollment

    /// `accounts/mfaEnrollment:start` with `totpEnrollmentInfo`: a new secret for the signed-in user; with
    /// `phoneEnrollmentInfo`: a code sent to the number to enroll.
    public func startMFAEnrollment(_ request: StartMFAEnrollmentRequest, clientAddress: String, in scope: Scope) async throws -> StartMFAEnrollmentResponse {
        if let phone = request.phoneEnrollmentInfo {
            return try await startPhoneEnrollment(request, phone, clientAddress: clientAddress, in: scope)
        }
        guard request.totpEnrollmentInfo != nil else {
            throw HearthAPIError(.invalidArgument, "totpEnrollmentInfo (a TOTP factor) or phoneEnrollmentInfo (an SMS factor) is required")
        }
        let (claims, user) = try await authenticate(idToken: request.idToken, in: scope)
        let project = try await scope.config()
        guard project.totpEnabled else {
            throw HearthAPIError(.operationNotAllowed, "TOTP second factors are not enabled for this project (mfa.providerConfigs in the project config)")
        }
        try checkCanEnroll(user)
        try requireRecentLogin(claims)
        let moment = now
        let secret = Base32.encode(TOTP.generateSecret())
        let token = "hme1." + RandomID.token(byteCount: 32)
        let expiresAt = moment.addingTimeInterval(Self.mfaEnrollmentLifetime)
        try await scope.store.insertMultiFactorSession(MultiFactorSessionRecord(
            idHash: RefreshTokenRecord.hash(token), kind: .enrollment, localId: user.localId,
            payload: .init(secret: try sealTOTPSecret(secret, context: Self.enrollmentSealingContext(localId: user.localId))),
            createdAt: moment, expiresAt: expiresAt))
        return StartMFAEnrollmentResponse(totpSessionInfo: TOTPSessionInfo(
            sharedSecretKey: secret, verificationCodeLength: TOTP.defaultDigits, hashingAlgorithm: TOTP.Algorithm.sha1.rawValue,
            periodSec: TOTP.defaultPeriod, sessionInfo: token, finalizeEnrollmentTime: expiresAt.formatted(.iso8601)))
    }

    /// `accounts/mfaEnrollment:finalize` with `totpVerificationInfo`: the first code from the app enrolls the factor;
    /// with `phoneVerificationInfo`: the code sent to the number enrolls it.
    /// `mailer`: tells the user a factor was added (best effort; nil: no notice).
    public func finalizeMFAEnrollment(_ request: FinalizeMFAEnrollmentRequest, clientAddress: String,
                                      mailer: Mailer? = nil, in scope: Scope) async throws -> FinalizeMFAEnrollmentResponse {
        if let phone = request.phoneVerificationInfo {
            return try await finalizePhoneEnrollment(request, phone, clientAddress: clientAddress, mailer: mailer, in: scope)
        }
        guard let info = request.totpVerificationInfo else {
            throw HearthAPIError(.invalidArgument, "totpVerificationInfo (sessionInfo and verificationCode) or phoneVerificationInfo (sessionInfo and code) is required")
        }
        guard let sessionInfo = info.sessionInfo, !sessionInfo.isEmpty else { throw HearthAPIError(.missingSessionInfo) }
        guard let code = info.verificationCode, !code.isEmpty else { throw HearthAPIError(.missingCode) }
        if let name = request.displayName, name.count > 256 || !StoreError.storable(name) {
            throw HearthAPIError(.invalidDisplayName, "a factor's display name is at most 256 characters")
        }
        let (claims, user) = try await authenticate(idToken: request.idToken, in: scope)
        try requireRecentLogin(claims)
        guard sessionInfo.utf8.count <= Self.maxMultiFactorSessionLength,
              let session = try await scope.store.mfaSession(idHash: RefreshTokenRecord.hash(sessionInfo)),
              session.kind == .enrollment, session.localId == user.localId, let sealed = session.payload.secret
        else { throw HearthAPIError(.invalidSessionInfo, "unknown sessionInfo: start the enrollment again with mfaEnrollment:start") }
        guard session.expiresAt > now else { throw HearthAPIError(.sessionExpired, "the enrollment expired; start it again with mfaEnrollment:start") }
        let secret = try openTOTPSecret(sealed, context: Self.enrollmentSealingContext(localId: user.localId))
        let project = try await scope.config()
        guard let generator = TOTP(secret: secret) else { throw HearthAPIError(.invalidSessionInfo) }
        let step = try await checkCode(code, generator: generator, after: nil, adjacentIntervals: project.totpAdjacentIntervals,
                                       localId: user.localId, clientAddress: clientAddress, tenant: scope.tenantId ?? "")
        guard try await scope.store.deleteMultiFactorSession(idHash: session.idHash) else {
            throw HearthAPIError(.invalidSessionInfo, "this enrollment was finalized already")
        }
        let moment = now
        let enrollmentId = RandomID.token(byteCount: 16)
        let recoveryCodes = request.generateRecoveryCodes == true ? RecoveryCodes.generate() : nil
        // A new factor ends the user's other sessions (as withdrawing one does): a session that a thief holds must
        // not outlive the owner's move to two-step sign-in. The caller goes on with the tokens answered below.
        let updated = try await modifyUser(localId: user.localId, revokingSessions: true, in: scope) { user in
            try checkCanEnroll(user)
            user.mfa.factors.append(MultiFactorEnrollment(
                enrollmentId: enrollmentId, displayName: request.displayName.flatMap { $0.isEmpty ? nil : $0 }, enrolledAt: moment,
                secret: try sealTOTPSecret(Base32.encode(secret), context: MultiFactorEnrollment.sealingContext(enrollmentId: enrollmentId)),
                lastUsedStep: step))
            if let recoveryCodes {
                user.mfa.recoveryCodeHashes = recoveryCodes.compactMap(RecoveryCodes.hash)
                user.mfa.recoveryCodesUsed = 0
            }
            user.validSince = max(user.validSince, Date(timeIntervalSince1970: Double(claims.authTime)))
        }
        try await auditUser(updated.localId, "mfa.enroll", detail: "totp \(enrollmentId)\(recoveryCodes == nil ? "" : ", recovery codes")", in: scope)
        await mailer?.sendFactorAdded(to: updated, factor: request.displayName.flatMap { $0.isEmpty ? nil : $0 } ?? "an authenticator app",
                                      asks: "its code", at: moment, config: project)
        let end = try await finishSignIn(updated, provider: claims.firebase.signInProvider, .continuing(
            claims, sessionClaims: IDTokenClaims.secondFactorSessionClaims(kind: MultiFactorKind.totp.rawValue, enrollmentId: enrollmentId)), in: scope)
        return FinalizeMFAEnrollmentResponse(idToken: end.tokens?.idToken, refreshToken: end.tokens?.refreshToken, recoveryCodes: recoveryCodes)
    }

    /// Refuses an enrollment Firebase would: unverified email, the factor limit.
    func checkCanEnroll(_ user: UserRecord) throws {
        guard user.email != nil, user.emailVerified else {
            throw HearthAPIError(.unverifiedEmail, "verify the account's email address before enrolling a second factor")
        }
        guard user.mfa.factors.count < UserMultiFactor.maximumFactors else {
            throw HearthAPIError(.secondFactorLimitExceeded, "a user may enroll at most \(UserMultiFactor.maximumFactors) second factors")
        }
    }

    /// `accounts/mfaEnrollment:withdraw`: removes a factor; the user's other sessions end, the caller gets new tokens.
    public func withdrawMFA(_ request: WithdrawMFARequest, in scope: Scope) async throws -> WithdrawMFAResponse {
        let (claims, user) = try await authenticate(idToken: request.idToken, in: scope)
        guard let enrollmentId = request.mfaEnrollmentId, !enrollmentId.isEmpty else { throw HearthAPIError(.missingMfaEnrollmentId) }
        guard user.mfa.factors.contains(where: { $0.enrollmentId == enrollmentId }) else { throw HearthAPIError(.mfaEnrollmentNotFound) }
        try requireRecentLogin(claims)
        let kind = user.mfa.factors.first(where: { $0.enrollmentId == enrollmentId })?.kind ?? .totp
        let updated = try await modifyUser(localId: user.localId, revokingSessions: true, in: scope) { user in
            guard user.mfa.factors.contains(where: { $0.enrollmentId == enrollmentId }) else { throw HearthAPIError(.mfaEnrollmentNotFound) }
            Self.removeFactors(Set([enrollmentId]), from: &user)
            // Every refresh token is revoked (revokingSessions) and ID tokens of sessions begun before the caller's
            // sign-in stop verifying; the caller goes on with the tokens answered below.
            user.validSince = max(user.validSince, Date(timeIntervalSince1970: Double(claims.authTime)))
        }
        try await scope.store.deleteMultiFactorSessions(localId: updated.localId)
        try await auditUser(updated.localId, "mfa.withdraw", detail: "\(kind.rawValue) \(enrollmentId)", in: scope)
        // The caller's session goes on without the withdrawn factor (its claims would name a factor that is gone).
        var sessionClaims: [String: JSONValue] = [:]
        if let remaining = updated.mfa.factors.first(where: { $0.enrollmentId == claims.firebase.secondFactorIdentifier }) {
            sessionClaims = IDTokenClaims.secondFactorSessionClaims(kind: remaining.kind.rawValue, enrollmentId: remaining.enrollmentId)
        }
        let end = try await finishSignIn(updated, provider: claims.firebase.signInProvider, .continuing(claims, sessionClaims: sessionClaims), in: scope)
        return WithdrawMFAResponse(idToken: end.tokens?.idToken, refreshToken: end.tokens?.refreshToken)
    }

    /// Removes factors (all when `ids` is nil); without factors left, the recovery codes go too. Returns the
    /// factors removed.
    @discardableResult
    static func removeFactors(_ ids: Set<String>?, from user: inout UserRecord) -> [MultiFactorEnrollment] {
        let removed = user.mfa.factors.filter { ids?.contains($0.enrollmentId) ?? true }
        user.mfa.factors.removeAll { ids?.contains($0.enrollmentId) ?? true }
        if user.mfa.factors.isEmpty { user.mfa = UserMultiFactor() }
        return removed
    }

    /// Hearth's `accounts/mfaRecoveryCodes:generate`: a new set of recovery codes; the old set stops working.
    public func generateRecoveryCodes(_ request: GenerateRecoveryCodesRequest, in scope: Scope) async throws -> GenerateRecoveryCodesResponse {
        let (claims, user) = try await authenticate(idToken: request.idToken, in: scope)
        guard !user.mfa.factors.isEmpty else {
            throw HearthAPIError(.mfaEnrollmentNotFound, "recovery codes stand in for a second factor: enroll a TOTP factor first")
        }
        try requireRecentLogin(claims)
        let codes = RecoveryCodes.generate()
        let updated = try await modifyUser(localId: user.localId, in: scope) { user in
            guard !user.mfa.factors.isEmpty else { throw HearthAPIError(.mfaEnrollmentNotFound) }
            user.mfa.recoveryCodeHashes = codes.compactMap(RecoveryCodes.hash)
            user.mfa.recoveryCodesUsed = 0
        }
        try await auditUser(updated.localId, "mfa.recovery_codes", detail: "\(codes.count) new codes", in: scope)
        return GenerateRecoveryCodesResponse(recoveryCodes: codes)
    }

    // MARK: Sign-in

    /// `accounts/mfaSignIn:start`: a code sent to an SMS factor (`phoneSignInInfo` + `mfaEnrollmentId`), or
    /// Hearth's passkey challenge (`passkeySignInInfo`); TOTP goes straight to finalize.
    public func startMFASignIn(_ request: StartMFASignInRequest, clientAddress: String, in scope: Scope) async throws -> StartMFASignInResponse {
        guard let credential = request.mfaPendingCredential, !credential.isEmpty else { throw HearthAPIError(.missingMfaPendingCredential) }
        if request.passkeySignInInfo != nil {
            let (_, session) = try await pendingSignIn(credential, in: scope)
            return try await startPasskeySecondFactor(session, in: scope)
        }
        if let phone = request.phoneSignInInfo {
            return try await startPhoneSecondFactor(request, phone, credential: credential, clientAddress: clientAddress, in: scope)
        }
        guard request.mfaEnrollmentId?.isEmpty == false else { throw HearthAPIError(.missingMfaEnrollmentId) }
        throw HearthAPIError(.invalidArgument, "mfaSignIn:start sends a code to an SMS factor (phoneSignInInfo) or a passkey challenge (passkeySignInInfo); complete a TOTP factor with mfaSignIn:finalize")
    }

    /// The user and session of a pending sign-in: `INVALID_MFA_PENDING_CREDENTIAL` when unknown, used, expired,
    /// another tenant's (or the project's, in a tenant) or overtaken by a change of the account (`validSince` moved).
    func pendingSignIn(_ credential: String, in scope: Scope) async throws -> (UserRecord, MultiFactorSessionRecord) {
        guard credential.utf8.count <= Self.maxMultiFactorSessionLength,
              let session = try await scope.store.mfaSession(idHash: RefreshTokenRecord.hash(credential)), session.kind == .signIn
        else { throw HearthAPIError(.invalidMfaPendingCredential, "unknown or used mfaPendingCredential: sign in again") }
        guard session.expiresAt > now else { throw HearthAPIError(.invalidMfaPendingCredential, "the pending sign-in expired: sign in again") }
        // A pending sign-in is finished in the scope its first factor was in: the scope's store does not see another
        // tenant's (or the project's) user, so the credential is unknown here — never USER_NOT_FOUND, which the SDKs
        // read as a deleted account.
        guard let user = try await scope.store.user(localId: session.localId) else {
            throw HearthAPIError(.invalidMfaPendingCredential, "unknown mfaPendingCredential for \(Scope.describe(scope.tenantId)): finish the sign-in with the tenantId its first factor was sent with, or sign in again")
        }
        if user.disabled { throw HearthAPIError(.userDisabled) }
        // The account's sessions were revoked (a password change, an administrator) after the first factor. The
        // revocation deleted the pending sign-in too; this exact comparison also covers one that raced it.
        guard session.createdAt >= user.validSince else {
            throw HearthAPIError(.invalidMfaPendingCredential, "the account changed since the first factor: sign in again")
        }
        return (user, session)
    }

    /// `accounts/mfaSignIn:finalize`: a TOTP code (or one of Hearth's recovery codes), an SMS code or a passkey
    /// completes the pending sign-in.
    public func finalizeMFASignIn(_ request: FinalizeMFASignInRequest, clientAddress: String, in scope: Scope) async throws -> FinalizeMFASignInResponse {
        guard let credential = request.mfaPendingCredential, !credential.isEmpty else { throw HearthAPIError(.missingMfaPendingCredential) }
        if let phone = request.phoneVerificationInfo {
            return try await finishPhoneSecondFactor(phone, credential: credential, clientAddress: clientAddress, in: scope)
        }
        let recoveryCode = request.recoveryCodeVerificationInfo.map { $0.recoveryCode ?? "" }
        if let passkey = request.passkeyVerificationInfo {
            let (user, session) = try await pendingSignIn(credential, in: scope)
            let credentialId = try await usePasskeySecondFactor(passkey, user: user, session: session, in: scope)
            return try await finishSecondFactor(user, session, .passkey, factorId: credentialId, in: scope)
        }
        if recoveryCode == nil {
            guard request.mfaEnrollmentId?.isEmpty == false else { throw HearthAPIError(.missingMfaEnrollmentId) }
            guard request.totpVerificationInfo?.verificationCode?.isEmpty == false else { throw HearthAPIError(.missingCode) }
        } else if recoveryCode?.isEmpty == true {
            throw HearthAPIError(.missingCode, "recoveryCodeVerificationInfo.recoveryCode is empty")
        }
        let (user, session) = try await pendingSignIn(credential, in: scope)
        let factorId: String
        if let recoveryCode {
            factorId = try await useRecoveryCode(recoveryCode, user: user, session: session, clientAddress: clientAddress, in: scope)
        } else {
            factorId = try await useTOTPCode(request.totpVerificationInfo?.verificationCode ?? "", enrollmentId: request.mfaEnrollmentId ?? "",
                                             user: user, session: session, clientAddress: clientAddress, in: scope)
        }
        return try await finishSecondFactor(user, session, .totp, factorId: factorId, in: scope)
    }

    /// The pending sign-in's second factor passed: the sign-in ends with the first factor's provider and profile.
    func finishSecondFactor(_ user: UserRecord, _ session: MultiFactorSessionRecord, _ kind: MultiFactorKind, factorId: String,
                                    in scope: Scope) async throws -> FinalizeMFASignInResponse {
        let end = try await finishSignIn(user, provider: session.payload.signInProvider ?? "password",
                                         .secondFactor(identity: session.payload.identity, kind: kind, factorId: factorId), in: scope)
        return FinalizeMFASignInResponse(idToken: end.tokens?.idToken, refreshToken: end.tokens?.refreshToken)
    }

    /// Checks a TOTP code of `enrollmentId`, then completes the pending sign-in once and records the code's step.
    private func useTOTPCode(_ code: String, enrollmentId: String, user: UserRecord, session: MultiFactorSessionRecord, clientAddress: String, in scope: Scope) async throws -> String {
        guard let factor = user.mfa.factors.first(where: { $0.enrollmentId == enrollmentId }) else {
            throw HearthAPIError(.mfaEnrollmentNotFound, "the user has no second factor \(enrollmentId.prefix(64))")
        }
        guard factor.kind == .totp else {
            throw HearthAPIError(.invalidArgument, "second factor \(enrollmentId.prefix(64)) is an SMS factor: ask for its code with mfaSignIn:start (phoneSignInInfo), then finalize with phoneVerificationInfo")
        }
        let generator = try generator(for: factor)
        let project = try await scope.config()
        let step = try await checkCode(code, generator: generator, after: factor.lastUsedStep, adjacentIntervals: project.totpAdjacentIntervals,
                                       localId: user.localId, clientAddress: clientAddress, tenant: scope.tenantId ?? "")
        guard try await scope.store.deleteMultiFactorSession(idHash: session.idHash) else {
            throw HearthAPIError(.invalidMfaPendingCredential, "this sign-in was completed already: sign in again")
        }
        try await modifyUser(localId: user.localId, in: scope) { user in
            guard let index = user.mfa.factors.firstIndex(where: { $0.enrollmentId == enrollmentId }) else { throw HearthAPIError(.mfaEnrollmentNotFound) }
            // Another replica accepted a code of this step (or a later one) meanwhile: this one is a replay.
            if let last = user.mfa.factors[index].lastUsedStep, last >= step { throw HearthAPIError(.invalidCode, Self.usedCodeMessage) }
            user.mfa.factors[index].lastUsedStep = step
        }
        return enrollmentId
    }

    /// Checks a recovery code, then completes the pending sign-in once and spends the code.
    private func useRecoveryCode(_ code: String, user: UserRecord, session: MultiFactorSessionRecord, clientAddress: String, in scope: Scope) async throws -> String {
        guard let first = user.mfa.factors.first else { throw HearthAPIError(.mfaEnrollmentNotFound) }
        guard let reservation = try await mfaThrottle.reserve(account: user.localId, address: clientAddress) else { throw Self.tooManyCodes }
        guard RecoveryCodes.match(code, against: user.mfa.recoveryCodeHashes) != nil else {
            metrics.count(.signIns, ["second_factor", "wrong_code", scope.tenantId ?? ""])
            throw HearthAPIError(.invalidCode, "the recovery code is wrong or was used already")
        }
        guard try await scope.store.deleteMultiFactorSession(idHash: session.idHash) else {
            throw HearthAPIError(.invalidMfaPendingCredential, "this sign-in was completed already: sign in again")
        }
        let updated = try await modifyUser(localId: user.localId, in: scope) { user in
            // Matched again on the fresh record: a code spent meanwhile by another sign-in is gone from it.
            guard let index = RecoveryCodes.match(code, against: user.mfa.recoveryCodeHashes) else {
                throw HearthAPIError(.invalidCode, "the recovery code is wrong or was used already")
            }
            user.mfa.recoveryCodeHashes.remove(at: index)
            user.mfa.recoveryCodesUsed += 1
        }
        try await mfaThrottle.succeeded(reservation)
        try await auditUser(user.localId, "mfa.recovery_code_used", detail: "\(updated.mfa.recoveryCodeHashes.count) codes left", in: scope)
        logger.notice("recovery code used", metadata: ["uid": "\(user.localId)", "left": "\(updated.mfa.recoveryCodeHashes.count)"])
        metrics.count(.signIns, ["second_factor", "recovery_code", scope.tenantId ?? ""])
        return first.enrollmentId
    }

    static let usedCodeMessage = "this code was used already; wait for the app to show the next one"
    static let tooManyCodes = HearthAPIError(.tooManyAttempts, "too many wrong second-factor codes; try again later")

    /// Counts the attempt (atomically, before the check), checks the code: its step, or `INVALID_CODE` (counted in
    /// `tenant`'s sign-in metrics).
    private func checkCode(_ code: String, generator: TOTP, after lastStep: Int64?, adjacentIntervals: Int,
                           localId: String, clientAddress: String, tenant: String) async throws -> Int64 {
        guard let reservation = try await mfaThrottle.reserve(account: localId, address: clientAddress) else {
            logger.notice("second-factor attempts throttled", metadata: ["uid": "\(localId)"])
            throw Self.tooManyCodes
        }
        let moment = now
        guard let step = generator.verify(code, at: moment, adjacentIntervals: adjacentIntervals, after: lastStep) else {
            metrics.count(.signIns, ["second_factor", "wrong_code", tenant])
            // A code that matches a step already used is a replay: say so (the person typed a code twice).
            if lastStep != nil, generator.verify(code, at: moment, adjacentIntervals: adjacentIntervals, after: nil) != nil {
                throw HearthAPIError(.invalidCode, Self.usedCodeMessage)
            }
            throw HearthAPIError(.invalidCode, "the code is wrong; check the authenticator app's clock, and type the code it shows now")
        }
        try await mfaThrottle.succeeded(reservation)
        return step
    }

    // MARK: Secrets at rest

    static func enrollmentSealingContext(localId: String) -> String { "hearth.totp-enrollment.v1\u{0}\(localId)" }

    /// Seals a base32 secret with the vault keys when the server has them (else stores it as it is).
    func sealTOTPSecret(_ base32: String, context: String) throws -> String {
        guard let keys = configuration.secondFactorSealingKeys else { return base32 }
        return try keys.sealSecret(base32, context: context)
    }

    /// The secret's bytes; a secret sealed with a key this server lacks cannot be used.
    func openTOTPSecret(_ stored: String, context: String) throws -> Data {
        var base32 = stored
        if ProviderTokenKeys.isSealedSecret(stored) {
            let opened = [configuration.providerTokenKeys, configuration.localSecretKeys].lazy.compactMap { $0 }
                .compactMap { try? $0.openSecret(stored, context: context) }.first
            guard let opened else {
                logger.error("a TOTP secret is sealed with a vault key this server does not have")
                throw HearthAPIError(.internalError, "this second factor's secret is sealed with a key this server does not have (add the key to the vault keys file: docs/mfa.md)",
                                     httpStatus: 503)
            }
            base32 = opened
        }
        guard let secret = Base32.decode(base32), !secret.isEmpty else { throw HearthAPIError(.internalError, "a stored TOTP secret is damaged") }
        return secret
    }

    func generator(for factor: MultiFactorEnrollment) throws -> TOTP {
        let secret = try openTOTPSecret(factor.secret, context: MultiFactorEnrollment.sealingContext(enrollmentId: factor.enrollmentId))
        guard let generator = TOTP(secret: secret, algorithm: factor.algorithm, digits: factor.digits, period: factor.period) else {
            throw HearthAPIError(.internalError, "a stored TOTP factor has impossible settings")
        }
        return generator
    }

    /// An audit entry of the user's own account change.
    func auditUser(_ localId: String, _ action: String, detail: String, in scope: Scope) async throws {
        try await scope.store.appendAuditEntry(AuditEntry(time: now, actor: "user:\(localId)", action: action, target: localId, detail: detail))
    }
}

extension StartMFAEnrollmentRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> StartMFAEnrollmentResponse {
        try await call.accounts.startMFAEnrollment(request, clientAddress: call.context.clientAddress, in: call.scope)
    }
}

extension FinalizeMFAEnrollmentRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> FinalizeMFAEnrollmentResponse {
        try await call.accounts.finalizeMFAEnrollment(request, clientAddress: call.context.clientAddress, mailer: call.emailActions.mailer, in: call.scope)
    }
}

extension WithdrawMFARequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> WithdrawMFAResponse { try await call.accounts.withdrawMFA(request, in: call.scope) }
}

extension StartMFASignInRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> StartMFASignInResponse {
        try await call.accounts.startMFASignIn(request, clientAddress: call.context.clientAddress, in: call.scope)
    }
}

extension FinalizeMFASignInRequest: ServedRPC {
    static let signInKind: SignInKind? = .secondFactor
    static func serve(_ request: Self, _ call: RPCCall) async throws -> FinalizeMFASignInResponse {
        try await call.accounts.finalizeMFASignIn(request, clientAddress: call.context.clientAddress, in: call.scope)
    }
}

extension GenerateRecoveryCodesRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> GenerateRecoveryCodesResponse {
        try await call.accounts.generateRecoveryCodes(request, in: call.scope)
    }
}
