import Foundation
import HearthCore
import HearthStore
import HearthWire
import Logging

/// Email actions: sending action codes (`sendOobCode`), checking and using them (`resetPassword`, `update` with
/// `oobCode`, `signInWithEmailLink`). Codes are stored hashed, used once (atomically, any replica), expire, and
/// are checked against the account's current email when used: a code for an address the account no longer has
/// does nothing.
public struct EmailActionService: Sendable {
    let accounts: AccountService
    public let mailer: Mailer
    let limiter: RateLimiter?
    let logger: Logger
    /// Mail sent after the answer (email enumeration protection), awaited by ``settle()``.
    let background = BackgroundSends()

    var store: any HearthStore { accounts.store }
    var configuration: HearthServerConfiguration { accounts.configuration }
    var now: Date { configuration.clock.now() }

    // MARK: Sending

    /// `accounts:sendOobCode`. `admin`: the admin API (may name the user by email, may ask for the link).
    public func sendOobCode(_ request: SendOobCodeRequest, admin: Bool, clientAddress: String? = nil, in scope: Scope) async throws -> SendOobCodeResponse {
        guard let raw = request.requestType, !raw.isEmpty, raw != "OOB_REQ_TYPE_UNSPECIFIED" else { throw HearthAPIError(.missingRequestType) }
        guard let type = OobRequestType(rawValue: raw), type != .recoverEmail else {
            throw HearthAPIError(.invalidRequestType, "requestType must be PASSWORD_RESET, VERIFY_EMAIL, EMAIL_SIGNIN or VERIFY_AND_CHANGE_EMAIL")
        }
        let returnLink = request.returnOobLink == true
        if returnLink, !admin {
            throw HearthAPIError(.insufficientPermission, "returnOobLink needs the admin API (a service account's or the emulator's credential)")
        }
        if !returnLink, !mailer.canSend { throw HearthAPIError(.emailNotConfigured, Mailer.notConfiguredMessage) }
        let config = try await scope.config()
        let continueURL = try await checkedContinueURL(request, config: config)

        var localId: String?
        var email: String
        var recipient: String
        var newEmail: String?
        var displayName: String?
        /// The account the message is about, when there is one (the project's beforeSendEmail function sees it).
        var subjectUser: UserRecord?
        /// The per-recipient limit, counted before anything depends on whether the address has an account (so the
        /// limit cannot tell known addresses from unknown ones).
        func limitRecipient(_ address: String) async throws {
            if !admin, let limiter, let wait = await limiter.admitEmail(to: address) {
                throw HearthAPIError(type == .passwordReset ? .resetPasswordExceedLimit : .tooManyAttempts,
                                     "too many emails to this address; try again in \(wait) seconds")
            }
        }
        switch type {
        case .passwordReset:
            email = try AccountService.normalizedEmail(request.email)
            recipient = email
            try await limitRecipient(recipient)
            guard let user = try await scope.store.user(email: email) else {
                // Enumeration protection: an unknown address answers as a known one would, and nothing is sent.
                if config.emailEnumerationProtection, !admin { return SendOobCodeResponse(email: email) }
                throw HearthAPIError(.emailNotFound, "There is no user record corresponding to this identifier.")
            }
            if user.disabled {
                // Enumeration protection: a disabled account answers as any address does (nothing is sent).
                if config.emailEnumerationProtection, !admin { return SendOobCodeResponse(email: email) }
                throw HearthAPIError(.userDisabled)
            }
            localId = user.localId
            subjectUser = user
            displayName = Self.greetingName(user, recipient: recipient)
        case .verifyEmail:
            let user = try await subject(of: request, admin: admin, in: scope)
            guard let address = user.email else { throw HearthAPIError(.missingEmail, "the user has no email address to verify") }
            email = address
            recipient = address
            try await limitRecipient(recipient)
            localId = user.localId
            subjectUser = user
            displayName = Self.greetingName(user, recipient: recipient)
        case .emailSignIn:
            guard config.emailLinkSignInEnabled else {
                throw HearthAPIError(.operationNotAllowed, "email-link sign-in is disabled for this project (signIn.email.passwordRequired)")
            }
            email = try AccountService.normalizedEmail(request.email)
            recipient = email
            try await limitRecipient(recipient)
            let user = try await scope.store.user(email: email)
            localId = user?.localId
            subjectUser = user
            displayName = user.flatMap { Self.greetingName($0, recipient: recipient) }
        case .verifyAndChangeEmail:
            let target = try AccountService.normalizedEmail(request.newEmail, missing: .missingNewEmail, invalid: .invalidEmail)
            let user = try await subject(of: request, admin: admin, recentLogin: true, in: scope)
            guard let address = user.email else { throw HearthAPIError(.missingEmail, "the user has no email address to change") }
            try await limitRecipient(target)
            if let holder = try await scope.store.user(email: target), holder.localId != user.localId {
                if config.emailEnumerationProtection, !admin { return SendOobCodeResponse(email: address) }
                throw HearthAPIError(.emailExists)
            }
            email = address
            recipient = target
            newEmail = target
            localId = user.localId
            subjectUser = user
            // The new address is not proven to be the account's: no text of the account's in mail to it.
            displayName = nil
        case .recoverEmail:
            throw HearthAPIError(.invalidRequestType)
        }

        if !returnLink, !admin, config.emailEnumerationProtection, type == .passwordReset || type == .verifyAndChangeEmail {
            // Enumeration protection: the answer must not take longer for a known address (which gets a code and a
            // message, two writes) than for an unknown one (nothing): the mail is made and queued after answering.
            // The project's beforeSendEmail function is asked there too: its refusal sends nothing, and the answer
            // stays the one any address gets.
            let (email, recipient, localId, newEmail, displayName, subjectUser) = (email, recipient, localId, newEmail, displayName, subjectUser)
            background.run { [self] in
                do {
                    try await beforeSending(type, to: recipient, user: subjectUser, in: scope)
                    let issued = try await issue(type, localId: localId, email: email, newEmail: newEmail, continueURL: continueURL, config: config, in: scope)
                    try await deliver(issued, to: recipient, displayName: displayName, config: config)
                    logger.info("email action sent", metadata: ["kind": "\(type.rawValue)", "uid": "\(localId ?? "-")"])
                } catch {
                    logger.error("email action not sent", metadata: ["kind": "\(type.rawValue)", "uid": "\(localId ?? "-")",
                                                                     "error.type": "\(Swift.type(of: error))"])
                }
            }
            return SendOobCodeResponse(email: email)
        }
        // A link handed to the administrator sends no message: no beforeSendEmail for it.
        if !returnLink { try await beforeSending(type, to: recipient, user: subjectUser, in: scope) }
        let issued = try await issue(type, localId: localId, email: email, newEmail: newEmail, continueURL: continueURL, config: config, in: scope)
        if returnLink {
            return SendOobCodeResponse(email: email, oobCode: issued.code, oobLink: issued.link)
        }
        try await deliver(issued, to: recipient, displayName: displayName, config: config)
        logger.info("email action sent", metadata: ["kind": "\(type.rawValue)", "uid": "\(localId ?? "-")"])
        return SendOobCodeResponse(email: email)
    }

    /// Waits for the mail sent after answering (``sendOobCode(_:admin:clientAddress:)`` with enumeration
    /// protection): the dev mailbox and the emulator's code list call it before they answer.
    public func settle() async { await background.settle() }

    /// The longest display name put in a greeting; longer ones are cut (mail is no place for a paragraph of it).
    static let greetingNameLimit = 40

    /// The name to greet the recipient with: the account's display name only in mail to the account's own,
    /// verified address (whoever registered an unproven address chose the name, and would send their text from the
    /// project's real sender); cut to ``greetingNameLimit`` characters, control and bidirectional-override characters
    /// removed, on one line. (Templates escape it for HTML; the message encoder quotes it in the `To` header.)
    static func greetingName(_ user: UserRecord, recipient: String) -> String? {
        guard user.emailVerified, user.email == recipient, let name = user.displayName else { return nil }
        // Control and format characters (Cc, Cf: the bidirectional overrides and isolates too), then line breaks.
        let cleaned = String(String.UnicodeScalarView(name.withoutControlCharacters.unicodeScalars.filter { !CharacterSet.newlines.contains($0) }))
            .trimmingCharacters(in: .whitespaces)
        guard !cleaned.isEmpty else { return nil }
        return cleaned.count > greetingNameLimit ? String(cleaned.prefix(greetingNameLimit - 1)) + "…" : cleaned
    }

    /// The user a `VERIFY_EMAIL` / `VERIFY_AND_CHANGE_EMAIL` request is about: the ID token's, or (admin) the email's.
    func subject(of request: SendOobCodeRequest, admin: Bool, recentLogin: Bool = false, in scope: Scope) async throws -> UserRecord {
        if admin, request.idToken?.isEmpty != false {
            let email = try AccountService.normalizedEmail(request.email)
            guard let user = try await scope.store.user(email: email) else { throw HearthAPIError(.userNotFound) }
            return user
        }
        let (claims, user) = try await accounts.authenticate(idToken: request.idToken, in: scope)
        if recentLogin { try accounts.requireRecentLogin(claims) }
        return user
    }

    /// The request's `continueUrl` when allowed (authorized domains, registered app schemes), and the other
    /// action-code settings' rules.
    func checkedContinueURL(_ request: SendOobCodeRequest, config: ProjectConfig) async throws -> String? {
        if request.androidInstallApp == true, request.androidPackageName?.isEmpty != false {
            throw HearthAPIError(.missingAndroidPackageName)
        }
        if request.iOSAppStoreId?.isEmpty == false, request.iOSBundleId?.isEmpty != false { throw HearthAPIError(.missingIosBundleId) }
        guard let url = request.continueUrl, !url.isEmpty else {
            if request.canHandleCodeInApp == true { throw HearthAPIError(.missingContinueUri, "canHandleCodeInApp needs a continueUrl") }
            return nil
        }
        switch ActionLinks.checkContinueURL(url, authorizedDomains: config.authorizedDomains, appSchemes: try await appSchemes()) {
        case nil: return url
        case .invalid(let why)?: throw HearthAPIError(.invalidContinueUri, why)
        case .unauthorizedDomain(let host)?:
            throw HearthAPIError(.unauthorizedDomain, "Domain not allowlisted by project: add \(host) to the authorized domains (or register the app)")
        }
    }

    /// The URL schemes of the registered Apple apps (bundle ids, callback schemes): allowed `continueUrl` schemes.
    func appSchemes() async throws -> Set<String> {
        var schemes = Set<String>()
        for app in try await store.apps() where app.kind == .apple {
            if let bundleId = app.bundleId { schemes.insert(bundleId.lowercased()) }
            if let scheme = AuthHandlerProtocol.callbackScheme(appId: app.appId, clientId: app.clientId) { schemes.insert(scheme.lowercased()) }
        }
        return schemes
    }

    /// `url` when it is still allowed now (the action pages check a link's `continueUrl` when it is clicked: the
    /// domain may have been removed since the mail went out); nil otherwise.
    func allowedContinueURL(_ url: String?, in scope: Scope) async throws -> String? {
        guard let url, !url.isEmpty else { return nil }
        let config = try await scope.config()
        return ActionLinks.checkContinueURL(url, authorizedDomains: config.authorizedDomains, appSchemes: try await appSchemes()) == nil ? url : nil
    }

    /// The project's beforeSendEmail function, before the code of a message is made and the message sent: its
    /// refusal (`BLOCKING_FUNCTION_ERROR_RESPONSE`) stops the action, with no code stored and no mail.
    func beforeSending(_ type: OobRequestType, to recipient: String, user: UserRecord?, in scope: Scope) async throws {
        let emailType: BlockingEmailType = switch type {
        case .passwordReset: .passwordReset
        case .verifyEmail: .verifyEmail
        case .emailSignIn: .emailSignIn
        case .verifyAndChangeEmail: .verifyAndChangeEmail
        case .recoverEmail: .recoverEmail
        }
        try await accounts.blockingFunctions.beforeSendEmail(email: recipient, emailType: emailType, user: user, in: scope)
    }

    /// A new code, stored hashed, and its link.
    struct IssuedCode: Sendable {
        var code: String
        var link: String
        var record: OobCodeRecord
    }

    func issue(_ type: OobRequestType, localId: String?, email: String, newEmail: String?, continueURL: String?,
               config: ProjectConfig, in scope: Scope) async throws -> IssuedCode {
        let (code, record) = OobCodeRecord.issue(type, localId: localId, email: email, newEmail: newEmail, continueURL: continueURL,
                                                 now: now, lifetime: configuration.mail.lifetimes.lifetime(of: type))
        try await scope.store.insertOobCode(record)
        let base = config.sendEmail?.callbackUri.flatMap { $0.isEmpty ? nil : $0 } ?? configuration.publicURL.url + WirePaths.actionHandler
        return IssuedCode(code: code, link: ActionLinks.link(base: base, type: type, code: code, apiKey: linkAPIKey, continueURL: continueURL, tenantId: scope.tenantId),
                          record: record)
    }

    /// The API key put in links (the action page calls the API with it): the first configured one.
    var linkAPIKey: String? { configuration.apiKeys.sorted().first ?? (configuration.acceptsAnyAPIKey ? "fake-api-key" : nil) }

    /// Renders the code's template and sends it.
    func deliver(_ issued: IssuedCode, to recipient: String, displayName: String?, config: ProjectConfig) async throws {
        let kind = EmailTemplates.Kind(issued.record.requestType)
        let template = EmailTemplates.template(kind, in: config.sendEmail)
        let values = EmailTemplates.Values(link: issued.link, email: issued.record.email, newEmail: issued.record.newEmail,
                                           displayName: displayName, appName: Mailer.appName(config))
        let rendered = EmailTemplates.render(template, values)
        let mail = OutgoingMail(from: EmailTemplates.sender(base: configuration.mail.from, template: template), to: recipient,
                                toName: displayName, replyTo: template.replyTo, subject: rendered.subject, text: rendered.text, html: rendered.html)
        let listed = EmulatorOobCode(email: recipient, oobCode: issued.code, oobLink: issued.link, requestType: issued.record.requestType)
        try await mailer.send(mail, kind: kind.rawValue, code: listed, expiresAt: issued.record.expiresAt)
    }

    /// After an email change: the old address gets a notice with a link that changes it back (best effort: the
    /// change itself stands when no mail can be sent).
    func sendRecoverEmail(localId: String, oldEmail: String, newEmail: String, displayName: String?, in scope: Scope) async {
        guard mailer.canSend else {
            logger.notice("email changed; no mail relay to notify the old address", metadata: ["uid": "\(localId)"])
            return
        }
        do {
            let config = try await scope.config()
            try await beforeSending(.recoverEmail, to: oldEmail, user: try await scope.store.user(localId: localId), in: scope)
            let issued = try await issue(.recoverEmail, localId: localId, email: oldEmail, newEmail: newEmail, continueURL: nil, config: config, in: scope)
            // No display name: the account's holder (perhaps the one who took it) chose it.
            try await deliver(issued, to: oldEmail, displayName: nil, config: config)
        } catch {
            logger.error("could not send the email-change notice to the old address", metadata: ["uid": "\(localId)", "error.type": "\(type(of: error))"])
        }
    }

    /// Before `accounts:update` changes an email directly: the notice to the old address counts against that
    /// address's per-recipient limit, and a change whose notice would be over it is refused rather than made
    /// silently (so neither can changing an email back and forth flood an address, nor can exhausting an address's
    /// limit first hide a change from its owner).
    func admitChangeNotice(_ request: UpdateRequest, in scope: Scope) async throws {
        guard let limiter, let raw = request.email, !raw.isEmpty, let new = EmailAddress.normalize(raw) else { return }
        let (_, user) = try await accounts.authenticate(idToken: request.idToken, in: scope)
        guard let old = user.email, old != new, mailer.canSend else { return }
        if let wait = await limiter.admitEmail(to: old) {
            throw HearthAPIError(.tooManyAttempts, "too many emails to this account's address; try changing it again in \(wait) seconds")
        }
    }

    // MARK: Using codes

    /// Looks a code up without using it: `INVALID_OOB_CODE` (unknown, used, another kind, the account changed since),
    /// `EXPIRED_OOB_CODE`.
    func peek(_ code: String?, expecting types: Set<OobRequestType>? = nil, in scope: Scope) async throws -> OobCodeRecord {
        guard let code, !code.isEmpty else { throw HearthAPIError(.missingOobCode) }
        guard OobCodeRecord.isWellFormed(code), let record = try await scope.store.oobCode(hash: OobCodeRecord.hash(code)), record.usedAt == nil else {
            throw HearthAPIError(.invalidOobCode, "The action code is invalid. This can happen if the code is malformed, expired, or has already been used.")
        }
        if record.expiresAt <= now { throw HearthAPIError(.expiredOobCode, "The action code has expired.") }
        if let types, !types.contains(record.requestType) { throw HearthAPIError(.invalidOobCode, "The action code is not for this action.") }
        return record
    }

    /// Uses the code once; then runs `action`. When `action` fails for a reason other than the request (the store
    /// is down), the use is taken back so the link still works.
    func consume<T: Sendable>(_ code: String, in scope: Scope, _ action: (OobCodeRecord) async throws -> T) async throws -> T {
        let hash = OobCodeRecord.hash(code)
        let record: OobCodeRecord
        switch try await scope.store.consumeOobCode(hash: hash, now: now) {
        case .consumed(let found): record = found
        case .expired: throw HearthAPIError(.expiredOobCode, "The action code has expired.")
        case .unknown, .used: throw HearthAPIError(.invalidOobCode, "The action code is invalid. This can happen if the code is malformed, expired, or has already been used.")
        }
        do {
            return try await action(record)
        } catch let error as HearthAPIError {
            throw error
        } catch {
            try? await scope.store.releaseOobCode(hash: hash)
            throw error
        }
    }

    /// The account a code acts on, if it still has the address the code was made for. An undo link
    /// (`RECOVER_EMAIL`) works whatever the address is now: a second change must not disarm the first one's undo.
    func account(of record: OobCodeRecord, email: String? = nil, in scope: Scope) async throws -> UserRecord {
        guard let localId = record.localId, let user = try await scope.store.user(localId: localId),
              record.requestType == .recoverEmail || user.email == (email ?? record.email) else {
            throw HearthAPIError(.invalidOobCode, "The account this action code was sent for has changed since.")
        }
        if user.disabled { throw HearthAPIError(.userDisabled) }
        return user
    }

    /// `accounts:resetPassword`: without `newPassword`, what the code is for; with it, a password reset (sessions
    /// revoked, the account's other reset links ended, the email counted as verified — the person read it — and,
    /// when it was not verified before, every other way in removed: ``takeOverUnproven(_:)``).
    public func resetPassword(_ request: ResetPasswordRequest, in scope: Scope) async throws -> ResetPasswordResponse {
        guard let newPassword = request.newPassword else {
            let record = try await peek(request.oobCode, in: scope)
            if record.requestType != .emailSignIn { _ = try await account(of: record, email: record.requestType == .recoverEmail ? record.newEmail : nil, in: scope) }
            // An email-link code's address is not revealed: the app asks the person for it.
            return ResetPasswordResponse(email: record.requestType == .emailSignIn ? nil : record.email, newEmail: record.newEmail,
                                         requestType: record.requestType)
        }
        let peeked = try await peek(request.oobCode, expecting: [.passwordReset], in: scope)
        try AccountService.checkPasswordStrength(newPassword)
        guard try await scope.config().passwordSignInEnabled else {
            throw HearthAPIError(.operationNotAllowed, "password sign-in is disabled for this project")
        }
        _ = try await account(of: peeked, in: scope)
        let hash = try await accounts.hashPassword(newPassword)
        let moment = now
        var tookOver = false
        let user = try await consume(request.oobCode ?? "", in: scope) { record in
            let user = try await accounts.modifyUser(localId: record.localId ?? "", revokingSessions: true, in: scope) { user in
                guard user.email == record.email, !user.disabled else {
                    throw HearthAPIError(.invalidOobCode, "The account this action code was sent for has changed since.")
                }
                // The address was never proven: whoever registered it may not be the person reading its mail, and
                // may have added their own ways in. The mailbox's owner takes the account without them.
                tookOver = !user.emailVerified
                if tookOver { Self.takeOverUnproven(&user) }
                user.passwordHash = hash
                user.passwordUpdatedAt = moment
                user.emailVerified = true
                user.validSince = max(user.validSince, accounts.revocationMoment)
            }
            if tookOver { try await removeUnprovenPasskeys(of: user, in: scope) }
            return user
        }
        try? await scope.store.revokeOobCodes(localId: user.localId, types: [.passwordReset], now: moment)
        logger.info("password reset by email; sessions revoked", metadata: ["uid": "\(user.localId)"])
        return ResetPasswordResponse(email: peeked.email, newEmail: nil, requestType: .passwordReset)
    }

    /// The mailbox's owner takes an account whose address nobody had proven (registered first by someone else, or
    /// set on an anonymous account with `accounts:update`): every way in the registrant may have added goes — the
    /// password, linked identities and phone number, second factors and recovery codes — and the caller revokes the
    /// sessions in the same write and then deletes the passkeys (``removeUnprovenPasskeys(of:in:)``). The person who
    /// proves the mailbox owns the account alone.
    static func takeOverUnproven(_ user: inout UserRecord) {
        user.passwordHash = nil
        user.passwordUpdatedAt = nil
        user.identities = []
        user.mfa = UserMultiFactor()
    }

    /// The passkeys of an account taken over by its mailbox's owner: the registrant's (the account's sessions ended
    /// first, so none can be added meanwhile).
    func removeUnprovenPasskeys(of user: UserRecord, in scope: Scope) async throws {
        let ids = try await scope.store.passkeys(localId: user.localId).map(\.credentialId)
        guard !ids.isEmpty else { return }
        _ = try await accounts.removePasskeys(ids, localId: user.localId, actor: "system:mailbox-proof", in: scope)
        logger.notice("passkeys of an unproven registration removed when the mailbox's owner took the account",
                      metadata: ["uid": "\(user.localId)", "count": "\(ids.count)"])
    }

    /// `accounts:update` with `oobCode`: verifies the email, changes it to the verified new one, or changes it back.
    public func applyActionCode(_ code: String?, in scope: Scope) async throws -> UpdateResponse {
        let peeked = try await peek(code, expecting: [.verifyEmail, .verifyAndChangeEmail, .recoverEmail], in: scope)
        let moment = now
        let validSince = accounts.revocationMoment
        let user = try await consume(code ?? "", in: scope) { record in
            try await accounts.modifyUser(localId: record.localId ?? "", revokingSessions: record.requestType != .verifyEmail, in: scope) { user in
                guard record.requestType == .recoverEmail || user.email == record.email, !user.disabled else {
                    throw HearthAPIError(.invalidOobCode, "The account this action code was sent for has changed since.")
                }
                switch record.requestType {
                case .verifyEmail:
                    user.emailVerified = true
                case .verifyAndChangeEmail:
                    user.email = record.newEmail
                    user.emailVerified = true
                    user.validSince = validSince
                case .recoverEmail:
                    user.email = record.email
                    user.emailVerified = true
                    user.validSince = validSince
                case .passwordReset, .emailSignIn:
                    throw HearthAPIError(.invalidOobCode)
                }
            }
        }
        switch peeked.requestType {
        case .verifyAndChangeEmail:
            logger.info("email changed by a verified link; sessions revoked", metadata: ["uid": "\(user.localId)"])
            await sendRecoverEmail(localId: user.localId, oldEmail: peeked.email, newEmail: peeked.newEmail ?? "", displayName: user.displayName, in: scope)
        case .recoverEmail:
            try? await scope.store.revokeOobCodes(localId: user.localId, types: [.verifyAndChangeEmail, .passwordReset], now: moment)
            // The undo links of the changes made after this one (sent to addresses the account had later) end;
            // those of earlier changes stay, so the first address's owner has the last word.
            try? await scope.store.revokeOobCodes(localId: user.localId, types: [.recoverEmail], createdSince: peeked.createdAt, now: moment)
            logger.info("email change undone by the old address; sessions revoked", metadata: ["uid": "\(user.localId)"])
        default: break
        }
        return UpdateResponse(localId: user.localId, email: user.email, emailVerified: user.emailVerified, displayName: user.displayName,
                              photoUrl: user.photoUrl, providerUserInfo: user.providerUserInfo, tokens: nil)
    }

    /// `accounts:signInWithEmailLink`: signs in (creating the account on first use) or, with `idToken`, links the
    /// address to the signed-in account. An existing account whose email was never verified is taken over by the
    /// mailbox's owner (``takeOverUnproven(_:)``: someone else may have registered the address first and added
    /// their own ways in). Linking needs a recent sign-in (but on an anonymous account), keeps the session's sign-in
    /// time and second factor, and never replaces the account's email: that is an email change
    /// (`VERIFY_AND_CHANGE_EMAIL`), which tells the old address.
    public func signInWithEmailLink(_ request: SignInWithEmailLinkRequest, in scope: Scope) async throws -> SignInWithEmailLinkResponse {
        let config = try await scope.config()
        guard config.emailLinkSignInEnabled else {
            throw HearthAPIError(.operationNotAllowed, "email-link sign-in is disabled for this project (signIn.email.passwordRequired)")
        }
        let email = try AccountService.normalizedEmail(request.email)
        let session = try await request.idToken.flatMap { $0.isEmpty ? nil : $0 }.asyncMap { try await accounts.authenticate(idToken: $0, in: scope) }
        let linking = session?.1
        if let (claims, user) = session {
            if let current = user.email, current != email {
                throw HearthAPIError(.emailChangeNeedsVerification, Self.linkedEmailChangeMessage)
            }
            // A new way into the account: a stale or stolen session must not add one.
            if !user.isAnonymous { try accounts.requireRecentLogin(claims) }
        }
        let peeked = try await peek(request.oobCode, expecting: [.emailSignIn], in: scope)
        guard peeked.email == email else {
            throw HearthAPIError(.invalidEmail, "The email provided does not match the sign-in email address.")
        }
        let existing = try await scope.store.user(email: email)
        if let linking, let existing, existing.localId != linking.localId { throw HearthAPIError(.emailExists) }
        if let existing, existing.disabled { throw HearthAPIError(.userDisabled) }
        if existing == nil, linking == nil, config.userSignupDisabled {
            throw HearthAPIError(.adminOnlyOperation, "sign-up is disabled for this project: an administrator creates accounts")
        }
        return try await consume(request.oobCode ?? "", in: scope) { _ in
            if let target = linking ?? existing {
                var takeover = false
                let updated = try await accounts.modifyUser(localId: target.localId, revokingSessions: takeover, in: scope) { user in
                    if linking != nil {
                        if let holder = user.email, holder != email {
                            // Linking replaces no email (checked above; the account may have changed since).
                            throw HearthAPIError(.emailChangeNeedsVerification, Self.linkedEmailChangeMessage)
                        }
                        user.email = email
                    }
                    // Signing in by the link proves the mailbox: an account whose address was never proven is the
                    // mailbox owner's alone from now on (every session of the registrant ends).
                    takeover = linking == nil && !user.emailVerified
                    if takeover {
                        Self.takeOverUnproven(&user)
                        user.validSince = max(user.validSince, accounts.revocationMoment)
                    }
                    user.emailVerified = true
                    user.emailLinkSignIn = true
                }
                if takeover { try await removeUnprovenPasskeys(of: updated, in: scope) }
                // A link adds a credential to the signed-in session: its sign-in time and second factor stay.
                let step: AccountService.SignInStep = session.map { .continuing($0.0) } ?? .firstFactor(signIn: Self.emailLinkSignIn)
                let provider = session?.0.firebase.signInProvider ?? "password"
                var answer = SignInWithEmailLinkResponse(localId: updated.localId, email: email, isNewUser: false, tokens: nil)
                answer.set(try await accounts.finishSignIn(updated, provider: provider, step, in: scope))
                return answer
            }
            var user = accounts.newUser()
            user.email = email
            user.emailVerified = true
            user.emailLinkSignIn = true
            let created: AccountService.CreatedAccount
            do {
                created = try await accounts.createAccount(user, origin: .signUp(provider: "password"), signIn: Self.emailLinkSignIn, in: scope)
            } catch StoreError.emailExists {
                // Created at the same moment by another request: that account signs in.
                guard let raced = try await scope.store.user(email: email) else { throw HearthAPIError(.emailExists) }
                var answer = SignInWithEmailLinkResponse(localId: raced.localId, email: email, isNewUser: false, tokens: nil)
                answer.set(try await accounts.finishSignIn(raced, provider: "password", .firstFactor(signIn: Self.emailLinkSignIn), in: scope))
                return answer
            }
            let end = try await accounts.finishSignIn(created.user, provider: "password", created.signIn(), in: scope)
            return SignInWithEmailLinkResponse(localId: created.user.localId, email: email, isNewUser: true, tokens: end.tokens)
        }
    }
}

extension EmailActionService {
    /// An email-link sign-in as the project's blocking functions see it (Firebase's sign_in_method `emailLink`; the
    /// session's provider stays `password`, as Firebase's tokens say).
    static var emailLinkSignIn: BlockingSignIn { BlockingSignIn(method: "emailLink") }

    static let linkedEmailChangeMessage = "the signed-in account has another email address: an email link does not replace it. Change the address with verifyBeforeUpdateEmail (sendOobCode VERIFY_AND_CHANGE_EMAIL), which tells the old address"
}

extension Optional {
    /// `map` with an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}

// MARK: The RPCs

extension SendOobCodeRequest: ServedRPC {
    static let rateLimit: RateLimitedEndpoint? = .sendOobCode
    static func serve(_ request: Self, _ call: RPCCall) async throws -> SendOobCodeResponse {
        try await call.emailActions.sendOobCode(request, admin: false, clientAddress: call.context.clientAddress, in: call.scope)
    }
}

extension ResetPasswordRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> ResetPasswordResponse { try await call.emailActions.resetPassword(request, in: call.scope) }
}

extension SignInWithEmailLinkRequest: ServedRPC {
    static let signInKind: SignInKind? = .password
    static func serve(_ request: Self, _ call: RPCCall) async throws -> SignInWithEmailLinkResponse {
        try await call.emailActions.signInWithEmailLink(request, in: call.scope)
    }
}

extension AdminSendOobCodeRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> SendOobCodeResponse {
        let principal = try call.principal()
        let response = try await call.emailActions.sendOobCode(request.request, admin: true, in: call.scope)
        try await call.admin.audit(principal, request.request.returnOobLink == true ? "user.oobLink" : "user.oobEmail",
                                   target: response.email ?? "", detail: request.request.requestType, in: call.scope)
        return response
    }
}

extension EmulatorOobCodesRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> EmulatorOobCodesResponse {
        await call.emailActions.settle()
        return EmulatorOobCodesResponse(oobCodes: (call.emailActions.mailer.devMailbox?.messages ?? []).reversed().compactMap(\.code))
    }
}

extension EmulatorClearOobCodesRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> EmptyResponse {
        call.emailActions.mailer.devMailbox?.clear()
        return EmptyResponse()
    }
}
