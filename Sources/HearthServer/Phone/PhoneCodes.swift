import Foundation
import HearthCore
import HearthStore
import HearthWire
import Logging

/// SMS codes (issue 40): the one way a code is sent (``AccountService/sendPhoneCode(_:purpose:appVerification:localId:binding:user:clientAddress:in:)``)
/// and checked (``AccountService/checkPhoneCode(sessionInfo:code:purpose:clientAddress:in:)``) — phone sign-in and the
/// SMS second factor both come here, so every send passes the same defences in the same order and every check the
/// same guess limits.
///
/// A send, in order (a step that refuses stores nothing, sends nothing, and spends nothing of the later steps):
/// the number parsed to E.164 → phone sign-in (or SMS MFA) enabled → the region policy (`smsRegionConfig`) → a
/// phone first factor refused for a user with second factors → a test number (fixed code, never sent, nothing
/// counted) → an SMS gateway (or the dev sink) exists → app verification (reCAPTCHA) → the limits per client address
/// and per number → the daily budget → the `beforeSendSms` function → the code made and stored → the SMS handed to
/// the messenger. A check counts the guess atomically before comparing (per session and per number), so a parallel
/// burst of guesses is held to the limits exactly.
extension AccountService {
    /// Wrong codes per number (across its sessions) in ``phoneGuessWindow`` before `TOO_MANY_ATTEMPTS_TRY_LATER`.
    static let maxWrongPhoneCodesPerNumber = 10
    /// The window of the per-number guess limit: an hour.
    static let phoneGuessWindow: TimeInterval = 3600
    /// How long a `temporaryProof` (the `PHONE_NUMBER_EXISTS` dance) may be used: an hour, Firebase's
    /// `temporaryProofExpiresIn`. Single use.
    static let temporaryProofLifetime: TimeInterval = 3600
    /// The longest `sessionInfo` or `temporaryProof` looked up (ours are 48 characters).
    static let maxPhoneSessionLength = 256

    /// Wrong codes per number (and per client address) — reserved before the comparison like password attempts.
    var phoneCodeThrottle: LoginThrottle {
        LoginThrottle(configuration: ThrottleConfiguration(maxFailuresPerAccount: Self.maxWrongPhoneCodesPerNumber,
                                                           maxFailuresPerAddress: configuration.throttle.maxFailuresPerAddress,
                                                           window: Self.phoneGuessWindow),
                      clock: configuration.clock, store: store, scope: "phone")
    }

    // MARK: Sending

    /// Sends a code for `purpose` to `number` (any form ``PhoneNumber/parse(_:)`` takes) and returns the
    /// `sessionInfo` that ``checkPhoneCode(sessionInfo:code:purpose:clientAddress:in:)`` takes with the code.
    /// `localId`: the user the code is for (MFA enrollment and sign-in), `binding`: the pending MFA sign-in's
    /// `idHash`, `user`: the user `beforeSendSms` is told about (nil for a sign-in or sign-up). Every defence runs
    /// here, in the order of this file's overview; errors are Firebase's (`INVALID_PHONE_NUMBER`,
    /// `OPERATION_NOT_ALLOWED`, `UNSUPPORTED_FIRST_FACTOR`, `MISSING_RECAPTCHA_TOKEN`, `CAPTCHA_CHECK_FAILED`,
    /// `TOO_MANY_ATTEMPTS_TRY_LATER`, `QUOTA_EXCEEDED`, `BLOCKING_FUNCTION_ERROR_RESPONSE`) with Hearth's words.
    func sendPhoneCode(_ number: String, purpose: PhoneCodePurpose, appVerification: AppVerificationFields, localId: String?,
                       binding: String?, user: UserRecord?, clientAddress: String, in scope: Scope) async throws -> String {
        let phoneNumber = try Self.parsePhoneNumber(number)
        let config = try await scope.config()
        switch purpose {
        case .signIn:
            guard config.phoneSignInEnabled else {
                throw HearthAPIError(.operationNotAllowed, "phone sign-in is disabled for this project (signIn.phoneNumber.enabled; hearth project sms set)")
            }
        case .mfaEnrollment, .mfaSignIn:
            guard config.isPhoneMFAEnabled else {
                throw HearthAPIError(.operationNotAllowed, "SMS second factors are not enabled for this project (mfa.enabledProviders PHONE_SMS)")
            }
        }
        try checkRegion(phoneNumber, config: config, purpose: purpose)
        if purpose == .signIn, let owner = try await scope.store.user(providerId: ProviderIdentity.phoneProviderId, federatedId: phoneNumber),
           !owner.mfa.factors.isEmpty {
            // Firebase's answer at the send already: the number's user signs in with another first factor.
            throw Self.unsupportedFirstFactor
        }
        if let fixed = config.testPhoneNumbers[phoneNumber] {
            // A test number: the configured code, no SMS, no limits, no budget, no function — as at Firebase.
            let sessionInfo = try await storePhoneCode(fixed, phoneNumber: phoneNumber, purpose: purpose, localId: localId,
                                                       binding: binding, in: scope)
            countSms(purpose, "test")
            return sessionInfo
        }
        guard sms.canSend else {
            countSms(purpose, "refused_no_gateway")
            throw SmsMessenger.notConfigured
        }
        try await verifyApp(appVerification, config: config, clientAddress: clientAddress, purpose: purpose, in: scope)
        if let refusal = await smsLimiter.admitSms(to: phoneNumber, from: clientAddress,
                                                  perNumber: .init(config.smsSettings.effectivePerNumberPerHour, per: 3600),
                                                  perAddress: .init(config.smsSettings.effectivePerAddressPerHour, per: 3600)) {
            countSms(purpose, "refused_\(refusal.scope)")
            throw HearthAPIError(.tooManyAttempts, refusal.scope == "number"
                ? "too many codes were sent to this number; try again in \(refusal.wait) seconds"
                : "too many codes were sent from this address; try again in \(refusal.wait) seconds")
        }
        try await spendSmsBudget(config: config, purpose: purpose, in: scope)
        try await blockingFunctions.beforeSendSms(phoneNumber: phoneNumber, smsType: purpose.smsType, user: user, in: scope)
        let code = PhoneVerificationRecord.newCode()
        let expiresAt = now.addingTimeInterval(PhoneVerificationRecord.codeLifetime)
        let sessionInfo = try await storePhoneCode(code, phoneNumber: phoneNumber, purpose: purpose, localId: localId,
                                                   binding: binding, expiresAt: expiresAt, in: scope)
        let text = "\(code) is your verification code for \(Mailer.appName(config))."
        do {
            try await sms.send(to: phoneNumber, text: text, code: code, sessionInfo: sessionInfo, purpose: purpose, expiresAt: expiresAt, in: scope)
        } catch {
            // Nothing was handed on: the code cannot arrive, so it must not stay usable.
            _ = try? await scope.store.deletePhoneVerification(idHash: RefreshTokenRecord.hash(sessionInfo))
            throw error
        }
        logger.info("verification code sent", metadata: ["purpose": "\(purpose.rawValue)", "number": "\(SmsRedaction.hint(phoneNumber))"])
        return sessionInfo
    }

    /// The number in E.164, or `INVALID_PHONE_NUMBER` saying what is expected (Firebase answers a missing number
    /// with `INVALID_PHONE_NUMBER` too).
    static func parsePhoneNumber(_ text: String?) throws -> String {
        do {
            return try PhoneNumber.parse(text ?? "")
        } catch {
            throw HearthAPIError(.invalidPhoneNumber, error.detail)
        }
    }

    static let unsupportedFirstFactor = HearthAPIError(
        .unsupportedFirstFactor, "A phone number cannot be set as a first factor on an SMS based MFA user.")

    /// The project's `smsRegionConfig`: a number whose calling code's regions the policy does not allow is refused with
    /// Firebase's words before anything is spent (the rule: ``SmsRegionConfig/allows(regions:)``).
    func checkRegion(_ phoneNumber: String, config: ProjectConfig, purpose: PhoneCodePurpose) throws {
        guard let policy = config.smsRegionConfig else { return }
        let regions = PhoneNumber.regions(of: phoneNumber)
        guard !policy.allows(regions: regions) else { return }
        countSms(purpose, "refused_region")
        logger.notice("SMS refused by the region policy", metadata: ["regions": "\(regions.joined(separator: ","))"])
        throw HearthAPIError(.operationNotAllowed, "SMS unable to be sent until this region enabled by the app developer.")
    }

    /// App verification: with the project's reCAPTCHA secret, a token the verification endpoint accepts; without one,
    /// a production project (not `demo-*`, the server not `--dev`) refuses every send unless app verification was
    /// turned off explicitly (`sms.appVerificationDisabled`).
    func verifyApp(_ fields: AppVerificationFields, config: ProjectConfig, clientAddress: String, purpose: PhoneCodePurpose,
                   in scope: Scope) async throws {
        let settings = config.smsSettings
        if let stored = settings.recaptcha?.secretKey, !stored.isEmpty {
            let secret = try openRecaptchaSecret(stored)
            guard let token = fields.recaptchaResponse else {
                countSms(purpose, "refused_app_verification")
                throw HearthAPIError(.missingRecaptchaToken, "this project verifies apps with reCAPTCHA: send recaptchaToken (or captchaResponse) with the request")
            }
            do {
                try await RecaptchaVerifier(logger: logger).verify(
                    token: token, secret: secret, remoteIP: clientAddress,
                    verifyURL: settings.effectiveVerifyUrl.isEmpty ? SmsSettings.defaultVerifyUrl : settings.effectiveVerifyUrl,
                    minScore: settings.effectiveMinScore)
            } catch {
                countSms(purpose, "refused_app_verification")
                throw error
            }
            return
        }
        if settings.appVerificationDisabled == true || !smsNeedsAppVerification(scope) { return }
        countSms(purpose, "refused_app_verification")
        throw HearthAPIError(.operationNotAllowed, "SMS sending is refused because app verification is not configured: set a reCAPTCHA secret (hearth project sms set --recaptcha-secret-file) or turn app verification off explicitly (--no-app-verification)")
    }

    /// The sealing context of the project's reCAPTCHA secret at rest (`sms.recaptcha.secretKey`, sealed with the
    /// vault keys when the server has them: ``ProviderTokenKeys/sealSecret(_:context:)``).
    public static let recaptchaSecretSealingContext = "hearth.sms-recaptcha-secret.v1"

    /// The reCAPTCHA secret as stored: opened when sealed; a secret sealed with a key this server lacks stops the
    /// send (503, never sent unverified).
    func openRecaptchaSecret(_ stored: String) throws -> String {
        guard ProviderTokenKeys.isSealedSecret(stored) else { return stored }
        let opened = [configuration.providerTokenKeys, configuration.localSecretKeys].lazy.compactMap { $0 }
            .compactMap { try? $0.openSecret(stored, context: Self.recaptchaSecretSealingContext) }.first
        guard let opened else {
            logger.error("the project's reCAPTCHA secret is sealed with a vault key this server does not have")
            throw HearthAPIError(.unavailable, "the project's reCAPTCHA secret is sealed with a key this server does not have (add the key to the vault keys file), so no SMS was sent", httpStatus: 503)
        }
        return opened
    }

    /// Whether sends in `scope` need app verification: a production project (not `demo-*`) on a server without `--dev`.
    func smsNeedsAppVerification(_ scope: Scope) -> Bool {
        !scope.projectId.hasPrefix("demo-") && !configuration.blockingFunctions.development
    }

    /// The SMS limits per number and per address (with the other rate limits: off for `demo-*` projects).
    var smsLimiter: RateLimiter {
        RateLimiter(configuration: configuration.rateLimits, store: store, projectId: configuration.projectId, clock: configuration.clock,
                    logger: logger, metrics: metrics)
    }

    // MARK: The daily budget

    /// The counter key of the project's SMS sent per UTC day (read it with ``smsSentToday(in:)``).
    static func smsBudgetKey(projectId: String) -> String { "sms|budget|\(projectId)" }
    /// The UTC day number of `date` (the budget counter's window).
    static func smsBudgetDay(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 / 86400).rounded(.down)) }

    /// SMS counted against the project's budget today (UTC): sends that passed every other defence, test numbers
    /// never. At most the budget plus the sends refused after it was used up.
    func smsSentToday(in scope: Scope) async throws -> Int {
        try await store.rateLimitCount(key: Self.smsBudgetKey(projectId: scope.projectId), window: Self.smsBudgetDay(now)).current
    }

    /// Counts one SMS against the project's daily budget (one atomic count shared by every replica and tenant), or
    /// `QUOTA_EXCEEDED` once it is used up. At 80 % a warning is logged once; when crossed, an error once.
    func spendSmsBudget(config: ProjectConfig, purpose: PhoneCodePurpose, in scope: Scope) async throws {
        let budget = max(0, config.smsSettings.effectiveDailyBudget)
        let day = Self.smsBudgetDay(now)
        let counts = try await store.countRateLimitedRequest(key: Self.smsBudgetKey(projectId: scope.projectId), window: day,
                                                             expiresAt: Date(timeIntervalSince1970: Double(day + 2) * 86400))
        let count = Int(counts.current)
        if count > budget {
            if count == budget + 1 {
                logger.error("the project's daily SMS budget is used up: sends stop until 00:00 UTC", metadata: ["budget": "\(budget)"])
            }
            countSms(purpose, "refused_budget")
            throw HearthAPIError(.quotaExceeded, "the project's daily SMS budget (\(budget)) is used up; raise it (hearth project sms set --daily-budget) or wait until 00:00 UTC")
        }
        if budget >= 5, count == (budget * 4 + 4) / 5 {
            logger.warning("80 % of the project's daily SMS budget is used", metadata: ["budget": "\(budget)", "sent": "\(count)"])
            countSms(purpose, "budget_warning")
        }
    }

    // MARK: Storing and checking

    /// Stores a code of `purpose` for `phoneNumber` (hashed with its new `sessionInfo`) and returns the `sessionInfo`.
    private func storePhoneCode(_ code: String, phoneNumber: String, purpose: PhoneCodePurpose, localId: String?, binding: String?,
                                expiresAt: Date? = nil, in scope: Scope) async throws -> String {
        let moment = now
        let sessionInfo = PhoneVerificationRecord.newSessionInfo()
        try await scope.store.insertPhoneVerification(PhoneVerificationRecord(
            idHash: RefreshTokenRecord.hash(sessionInfo), kind: .code, purpose: purpose, phoneNumber: phoneNumber,
            codeHash: PhoneVerificationRecord.codeHash(code: code, sessionInfo: sessionInfo), localId: localId, binding: binding,
            createdAt: moment, expiresAt: expiresAt ?? moment.addingTimeInterval(PhoneVerificationRecord.codeLifetime)))
        return sessionInfo
    }

    /// Checks `code` against the code sent with `sessionInfo` for `purpose` and uses it up: the record (its number,
    /// user and binding) once; `MISSING_SESSION_INFO`, `MISSING_CODE`, `INVALID_SESSION_INFO` (unknown, used, another
    /// purpose's or another tenant's), `SESSION_EXPIRED`, `INVALID_CODE`, or `TOO_MANY_ATTEMPTS_TRY_LATER` (the
    /// session's 5th wrong code ends it; 10 wrong codes for a number in an hour stop its checks). Each guess is
    /// counted before the comparison, atomically in the store, so parallel guesses cannot pass the limits.
    func checkPhoneCode(sessionInfo: String?, code: String?, purpose: PhoneCodePurpose, clientAddress: String,
                        in scope: Scope) async throws -> PhoneVerificationRecord {
        guard let sessionInfo, !sessionInfo.isEmpty else { throw HearthAPIError(.missingSessionInfo) }
        guard let code, !code.isEmpty else { throw HearthAPIError(.missingCode) }
        let unknown = HearthAPIError(.invalidSessionInfo, "unknown or used sessionInfo: send a new code")
        guard sessionInfo.utf8.count <= Self.maxPhoneSessionLength, sessionInfo.hasPrefix("hps1.") else { throw unknown }
        let idHash = RefreshTokenRecord.hash(sessionInfo)
        guard let record = try await scope.store.phoneVerification(idHash: idHash), record.kind == .code, record.purpose == purpose else {
            throw unknown
        }
        guard !record.isExpired(at: now) else {
            _ = try? await scope.store.deletePhoneVerification(idHash: idHash)
            throw HearthAPIError(.sessionExpired, "the code expired; send a new one")
        }
        // Not a code at all (letters, other scripts' digits, another length): refused uncounted, it cannot match.
        guard code.utf8.count == PhoneVerificationRecord.codeLength, code.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw HearthAPIError(.invalidCode, "the code is \(PhoneVerificationRecord.codeLength) digits, as in the SMS")
        }
        // The session's guess, counted first (atomically with its limit and expiry) …
        guard let counted = try await scope.store.countPhoneCodeAttempt(idHash: idHash, maxAttempts: PhoneVerificationRecord.maximumAttempts,
                                                                        now: now) else {
            guard let current = try await scope.store.phoneVerification(idHash: idHash) else { throw unknown }
            if current.isExpired(at: now) {
                _ = try? await scope.store.deletePhoneVerification(idHash: idHash)
                throw HearthAPIError(.sessionExpired, "the code expired; send a new one")
            }
            // Out of guesses: the guess that used the last one deletes the session (or, right, completes it); this
            // one, counted too late, leaves it alone — deleting it here could undo a right code in flight.
            throw Self.tooManyPhoneCodes
        }
        // … then the number's (across its sessions) and the address's.
        guard let reservation = try await phoneCodeThrottle.reserve(account: scope.throttleAccount(record.phoneNumber), address: clientAddress) else {
            logger.notice("phone code checks throttled", metadata: ["number": "\(SmsRedaction.hint(record.phoneNumber))", "client": "\(clientAddress)"])
            throw HearthAPIError(.tooManyAttempts, "too many wrong codes for this number; try again later")
        }
        guard counted.matches(code: code, sessionInfo: sessionInfo) else {
            metrics.count(.signIns, ["phone", "wrong_code", scope.tenantId ?? ""])
            if counted.attempts >= PhoneVerificationRecord.maximumAttempts {
                _ = try? await scope.store.deletePhoneVerification(idHash: idHash)
                throw Self.tooManyPhoneCodes
            }
            throw HearthAPIError(.invalidCode, "the code is wrong; check the SMS and type its \(PhoneVerificationRecord.codeLength) digits")
        }
        // The right code: not a wrong guess for the number, even if a parallel check of it completes first.
        try await phoneCodeThrottle.succeeded(reservation)
        // Single use: of two checks of the right code, one deletes the record.
        guard try await scope.store.deletePhoneVerification(idHash: idHash) else { throw unknown }
        return counted
    }

    static let tooManyPhoneCodes = HearthAPIError(.tooManyAttempts, "too many wrong codes for this sessionInfo; send a new code")

    /// A `temporaryProof` that `phoneNumber` was verified (a link whose number is on another account), single use.
    func issueTemporaryProof(_ phoneNumber: String, in scope: Scope) async throws -> String {
        let moment = now
        let proof = PhoneVerificationRecord.newTemporaryProof()
        try await scope.store.insertPhoneVerification(PhoneVerificationRecord(
            idHash: RefreshTokenRecord.hash(proof), kind: .temporaryProof, purpose: .signIn, phoneNumber: phoneNumber, codeHash: nil,
            createdAt: moment, expiresAt: moment.addingTimeInterval(Self.temporaryProofLifetime)))
        return proof
    }

    /// The record of a `temporaryProof` for `phoneNumber` (not used up: ``useTemporaryProof(_:in:)`` does that), or
    /// `INVALID_TEMPORARY_PROOF` (unknown, used, expired, another number's or another tenant's).
    func temporaryProof(_ proof: String, phoneNumber: String, in scope: Scope) async throws -> PhoneVerificationRecord {
        let invalid = HearthAPIError(.invalidTemporaryProof, "unknown, used or expired temporaryProof, or not this number's: verify the number again")
        guard proof.utf8.count <= Self.maxPhoneSessionLength, proof.hasPrefix("hpp1."),
              let record = try await scope.store.phoneVerification(idHash: RefreshTokenRecord.hash(proof)),
              record.kind == .temporaryProof, record.phoneNumber == phoneNumber, !record.isExpired(at: now)
        else { throw invalid }
        return record
    }

    /// Uses a temporary proof up (single use): `INVALID_TEMPORARY_PROOF` when another request used it first.
    func useTemporaryProof(_ record: PhoneVerificationRecord, in scope: Scope) async throws {
        guard try await scope.store.deletePhoneVerification(idHash: record.idHash) else {
            throw HearthAPIError(.invalidTemporaryProof, "this temporaryProof was used already: verify the number again")
        }
    }

    /// `hearth_sms_total{kind,outcome}` for what this file decides (the messenger counts what it sends).
    func countSms(_ purpose: PhoneCodePurpose, _ outcome: String) {
        metrics.count(.sms, [purpose.rawValue, outcome])
    }
}
