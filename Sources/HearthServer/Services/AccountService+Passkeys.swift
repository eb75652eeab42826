import Foundation
import HearthCore
import HearthStore
import HearthWire
import Logging

/// Passkeys on the RPCs of Firebase's preview (`v2/accounts/passkeyEnrollment:*`, `passkeySignIn:*`), removal through
/// `accounts:update` `deletePasskey`, and Hearth's extension making a passkey the second factor of a TOTP-enrolled
/// user (`mfaSignIn:start` `passkeySignInInfo`, `mfaSignIn:finalize` `passkeyVerificationInfo`).
///
/// Every ceremony starts by storing a random challenge (by its SHA-256, ``PasskeyChallenge``) and ends by taking it
/// from the store once — the replica that deletes the row proceeds, so a response is accepted once on any replica.
/// The checks themselves are ``WebAuthnRelyingParty``'s; the relying party is built per request from the project's
/// `passkeys` setting and the server's public URL (``passkeyRelyingParty(_:)``).
extension AccountService {
    /// How long a ceremony's challenge may be answered (the options' `timeout`).
    static let passkeyChallengeLifetime: TimeInterval = 300
    /// Passkeys a user may have.
    static let maximumPasskeys = 10
    /// Open ceremonies of one kind a user may have (enrollments, second-factor challenges): a new start deletes the
    /// user's older challenges beyond these in the same store call, so repeated starts cannot fill the table.
    static let maximumOpenPasskeyChallenges = 5
    /// `firebase.sign_in_provider` of a session begun with a passkey (Google's value for its preview is not public).
    static let passkeySignInProvider = "passkey"
    /// The longest base64 text accepted in an authenticator response's fields (clientDataJSON, attestation objects
    /// with certificate chains, RSA signatures are far below).
    static let maxPasskeyFieldLength = 32 * 1024
    /// The longest passkey name.
    static let maxPasskeyNameLength = 256

    // MARK: The relying party

    /// The relying party of the project: `PASSKEY_NOT_ENABLED` unless passkeys are on. `secondFactor`: user
    /// verification is not asked (the password was the first factor; presence of the passkey is the second).
    func passkeyRelyingParty(_ project: ProjectConfig, secondFactor: Bool = false) throws -> WebAuthnRelyingParty {
        guard project.passkeysEnabled else {
            throw HearthAPIError(.passkeyNotEnabled, "passkeys are not enabled for this project: an administrator turns them on (hearth project passkeys --enable, the console's Settings, or the passkeys.enabled project setting)")
        }
        let rpId = Self.passkeyRPId(project, publicURL: configuration.publicURL.url)
        let origins = Set(Self.builtInPasskeyOrigins(rpId: rpId, publicURL: configuration.publicURL.url) + (project.passkeys?.allowedOrigins ?? []))
        let required = !secondFactor && project.passkeys?.userVerification?.uppercased() != "PREFERRED"
        return WebAuthnRelyingParty(rpId: rpId, allowedOrigins: origins, requireUserVerification: required)
    }

    /// The project's rp id: its setting, else the host of the server's public URL.
    static func passkeyRPId(_ project: ProjectConfig, publicURL: String) -> String {
        if let rpId = project.passkeys?.rpId, !rpId.isEmpty { return rpId }
        return publicHost(publicURL)
    }

    /// The host of the server's public URL, lower case (the default rp id).
    static func publicHost(_ publicURL: String) -> String { URLComponents(string: publicURL)?.host?.lowercased() ?? "localhost" }

    /// The origins every ceremony may come from whatever the setting adds: the server's own (its passkey page) and
    /// `https://<rp id>`, which Apple's platform authenticator writes for an app whose associated domain is the rp id.
    static func builtInPasskeyOrigins(rpId: String, publicURL: String) -> [String] {
        let own = origin(of: publicURL).map { [$0] } ?? []
        return own.contains("https://\(rpId)") ? own : own + ["https://\(rpId)"]
    }

    /// `scheme://host[:port]` of a URL (the default port left out, as browsers write origins).
    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              let host = components.host?.lowercased(), !host.isEmpty else { return nil }
        let bracketed = host.contains(":") ? "[\(host)]" : host
        if let port = components.port, !(scheme == "https" && port == 443) && !(scheme == "http" && port == 80) {
            return "\(scheme)://\(bracketed):\(port)"
        }
        return "\(scheme)://\(bracketed)"
    }

    /// `user_verification` as WebAuthn's options spell it.
    private static func userVerification(_ party: WebAuthnRelyingParty) -> String { party.requireUserVerification ? "required" : "preferred" }

    /// A new challenge of `kind` in `scope`, stored; its bytes for the options. A user's challenges of the kind beyond
    /// the newest ``maximumOpenPasskeyChallenges`` (this one included) are deleted with the insert.
    private func newPasskeyChallenge(_ kind: PasskeyChallenge.Kind, localId: String?, userHandle: String? = nil, in scope: Scope) async throws -> [UInt8] {
        let bytes = RandomID.bytes(32)
        let moment = now
        try await store.insertPasskeyChallenge(PasskeyChallenge(
            challengeHash: Self.challengeHash(bytes, tenant: scope.tenantId), kind: kind, localId: localId, userHandle: userHandle,
            createdAt: moment, expiresAt: moment.addingTimeInterval(Self.passkeyChallengeLifetime)),
            keepingNewest: localId == nil ? nil : Self.maximumOpenPasskeyChallenges)
        return bytes
    }

    /// The stored key of a challenge: its SHA-256, in a tenant over the tenant id and the bytes — so a ceremony
    /// started in one tenant (or the project) is an unknown challenge in any other, and is not spent there. The
    /// project's key is the plain hash, as before tenants.
    static func challengeHash(_ bytes: some Sequence<UInt8>, tenant: String?) -> String {
        guard let tenant else { return WireDigest.sha256Hex(bytes: bytes) }
        return WireDigest.sha256Hex(bytes: Array("hearth.passkey-challenge.tenant\u{0}\(tenant)\u{0}".utf8) + Array(bytes))
    }

    /// Takes the challenge a response's clientDataJSON names, once: the challenge of `kind` (for `localId` when
    /// given), unexpired, and its bytes. Parsing errors and unknown or used challenges are `INVALID_AUTHENTICATOR_RESPONSE`.
    private func takePasskeyChallenge(clientDataJSON: Data, kind: PasskeyChallenge.Kind,
                                      localId: String?, in scope: Scope) async throws -> (challenge: PasskeyChallenge, bytes: Data) {
        let clientData: CollectedClientData
        do { clientData = try CollectedClientData(json: clientDataJSON) } catch {
            throw HearthAPIError(.invalidAuthenticatorResponse, "clientDataJSON is not WebAuthn client data (\(error))")
        }
        guard let challenge = try await store.takePasskeyChallenge(hash: Self.challengeHash(clientData.challenge, tenant: scope.tenantId)) else {
            throw HearthAPIError(.invalidAuthenticatorResponse, "the response answers an unknown or used challenge, or one replaced by newer ones (a user keeps the \(Self.maximumOpenPasskeyChallenges) newest ceremonies of a kind open): start the ceremony again")
        }
        guard challenge.kind == kind, localId == nil || challenge.localId == localId else {
            throw HearthAPIError(.invalidAuthenticatorResponse, "the response answers another ceremony's challenge: start again")
        }
        guard challenge.expiresAt > now else {
            throw HearthAPIError(.passkeyChallengeTimeout, "the passkey challenge expired (after \(Int(Self.passkeyChallengeLifetime / 60)) minutes): start again")
        }
        // The store matched the clientDataJSON's challenge by its hash: these are the bytes issued.
        return (challenge, clientData.challenge)
    }

    /// One base64 field of an authenticator response (either alphabet), bounded.
    private static func passkeyField(_ text: String?, _ name: String, optional: Bool = false) throws -> Data? {
        guard let text, !text.isEmpty else {
            if optional { return nil }
            throw HearthAPIError(.invalidAuthenticatorResponse, "\(name) is required")
        }
        guard text.utf8.count <= maxPasskeyFieldLength else {
            throw HearthAPIError(.invalidAuthenticatorResponse, "\(name) is longer than \(maxPasskeyFieldLength) characters")
        }
        guard let bytes = PasskeyBytes.decode(text) else {
            throw HearthAPIError(.invalidAuthenticatorResponse, "\(name) is not base64 (standard or URL-safe)")
        }
        return Data(bytes)
    }

    /// The client's message for a refused ceremony (the log gets the same; no secret is in it).
    private func refused(_ refusal: WebAuthnRelyingParty.Refusal, localId: String?) -> HearthAPIError {
        let reason: String = switch refusal {
        case .malformed(let error): "the authenticator data is malformed (\(error))"
        case .wrongType(let type): "clientDataJSON.type is \(type.prefix(40)), not the ceremony's"
        case .challengeMismatch: "the response does not answer this challenge"
        case .originNotAllowed(let origin): "origin \(origin.prefix(100)) is not allowed for passkeys (the passkeys.allowedOrigins project setting)"
        case .crossOrigin: "cross-origin ceremonies (an iframe of another site) are refused"
        case .rpIdMismatch: "the credential belongs to another relying party (rp id)"
        case .userNotPresent: "the authenticator did not test user presence"
        case .userVerificationMissing: "the authenticator did not verify the user (biometrics or PIN); the project requires it"
        case .backupStateInvalid: "the authenticator's backup flags are inconsistent"
        case .missingCredentialData: "the registration carries no credential"
        case .algorithmNotAllowed(let alg): "COSE algorithm \(alg) is not allowed (ES256, EdDSA, RS256)"
        case .attestationInvalid: "the attestation statement does not verify"
        case .signatureInvalid: "the signature does not verify"
        case .counterNotIncreased: "the passkey's signature counter went back: it may have been cloned, so it is refused; remove it and register a new one"
        }
        logger.info("passkey ceremony refused", metadata: ["uid": "\(localId ?? "-")", "reason": "\(reason)"])
        return HearthAPIError(.invalidAuthenticatorResponse, reason)
    }

    // MARK: Enrollment

    /// `accounts/passkeyEnrollment:start`: creation options for the signed-in user (recent sign-in needed).
    public func startPasskeyEnrollment(_ request: StartPasskeyEnrollmentRequest, in scope: Scope) async throws -> StartPasskeyEnrollmentResponse {
        let (claims, user) = try await authenticate(idToken: request.idToken, in: scope)
        let project = try await scope.config()
        let party = try passkeyRelyingParty(project)
        try requireRecentLogin(claims)
        let existing = try await store.passkeys(localId: user.localId)
        guard existing.count < Self.maximumPasskeys else {
            throw HearthAPIError(.passkeyLimitExceeded, "a user may have at most \(Self.maximumPasskeys) passkeys: remove one first")
        }
        let handle = existing.first?.userHandle ?? PasskeyBytes.url(RandomID.bytes(32))
        let challenge = try await newPasskeyChallenge(.enrollment, localId: user.localId, userHandle: handle, in: scope)
        let accountName = user.email ?? user.displayName ?? user.localId
        return StartPasskeyEnrollmentResponse(credentialCreationOptions: PasskeyCreationOptions(
            rp: PasskeyRelyingPartyEntity(id: party.rpId, name: Mailer.appName(project)),
            user: PasskeyUserEntity(id: PasskeyBytes.standard(PasskeyBytes.decode(handle) ?? []), name: accountName,
                                    displayName: user.displayName ?? accountName),
            challenge: PasskeyBytes.standard(challenge),
            pubKeyCredParams: party.algorithms.map { PasskeyCredentialParameter(alg: Int($0.rawValue)) },
            timeout: Int(Self.passkeyChallengeLifetime * 1000),
            excludeCredentials: existing.map { PasskeyCredentialDescriptor(id: $0.credentialId, transports: $0.transports.isEmpty ? nil : $0.transports) },
            authenticatorSelection: PasskeyAuthenticatorSelection(residentKey: "required", requireResidentKey: true,
                                                                  userVerification: Self.userVerification(party)),
            attestation: "none"))
    }

    /// `accounts/passkeyEnrollment:finalize`: the authenticator's registration response adds the passkey. Answers
    /// new tokens for the caller's session. `mailer`: tells the user a passkey was added (nil: no notice).
    public func finalizePasskeyEnrollment(_ request: FinalizePasskeyEnrollmentRequest, mailer: Mailer? = nil, in scope: Scope) async throws -> PasskeySessionResponse {
        let (claims, user) = try await authenticate(idToken: request.idToken, in: scope)
        let project = try await scope.config()
        let party = try passkeyRelyingParty(project)
        try requireRecentLogin(claims)
        guard let response = request.authenticatorRegistrationResponse, let body = response.response else {
            throw HearthAPIError(.invalidAuthenticatorResponse, "authenticatorRegistrationResponse with its response (clientDataJSON, attestationObject) is required")
        }
        let name = request.name.flatMap { $0.isEmpty ? nil : $0 }
        if let name, name.count > Self.maxPasskeyNameLength || !StoreError.storable(name) {
            throw HearthAPIError(.invalidArgument, "a passkey's name is at most \(Self.maxPasskeyNameLength) characters, without NUL")
        }
        let clientDataJSON = try Self.passkeyField(body.clientDataJSON, "clientDataJSON")!
        let attestationObject = try Self.passkeyField(body.attestationObject, "attestationObject")!
        let (challenge, challengeBytes) = try await takePasskeyChallenge(clientDataJSON: clientDataJSON, kind: .enrollment, localId: user.localId, in: scope)
        let registration: WebAuthnRelyingParty.Registration
        do {
            registration = try party.verifyRegistration(clientDataJSON: clientDataJSON, attestationObject: attestationObject,
                                                        expectedChallenge: challengeBytes)
        } catch { throw refused(error, localId: user.localId) }
        let credentialId = PasskeyBytes.url(registration.credentialId)
        // The id the client names must be the one the authenticator made (a mix-up is a client bug or an attack).
        if let named = response.id ?? response.rawId, PasskeyBytes.normalizedCredentialId(named) != credentialId {
            throw HearthAPIError(.invalidAuthenticatorResponse, "the response's id is not the id of the credential in attestationObject")
        }
        guard credentialId.utf8.count <= 1400 else {
            throw HearthAPIError(.invalidAuthenticatorResponse, "the credential id is longer than WebAuthn's 1023 bytes")
        }
        let transports = (body.transports ?? []).filter { $0.count <= 32 && StoreError.storable($0) }.prefix(8)
        let moment = now
        let passkey = PasskeyCredential(
            credentialId: credentialId, localId: user.localId, userHandle: challenge.userHandle ?? PasskeyBytes.url(RandomID.bytes(32)),
            publicKey: PasskeyBytes.url(registration.publicKeyBytes), algorithm: Int(registration.algorithm.rawValue),
            signCount: Int64(registration.signCount), name: name, transports: Array(transports),
            backupEligible: registration.backupEligible, backedUp: registration.backedUp, createdAt: moment)
        guard try await scope.store.insertPasskey(passkey) else {
            throw HearthAPIError(.passkeyExists, "this passkey is registered already")
        }
        // Two enrollments finishing together may pass the start's count: the later insert gives way.
        if try await store.passkeys(localId: user.localId).count > Self.maximumPasskeys {
            _ = try await store.deletePasskey(credentialId: credentialId, localId: user.localId)
            throw HearthAPIError(.passkeyLimitExceeded, "a user may have at most \(Self.maximumPasskeys) passkeys: remove one first")
        }
        try await auditUser(user.localId, "passkey.enroll", detail: "\(credentialId.prefix(24)) \(registration.algorithm) attestation \(registration.attestation)", in: scope)
        if let mailer, let email = user.email {
            let app = Mailer.appName(project)
            await mailer.sendNotice(to: user, subject: "A passkey was added to your \(app) account", paragraphs: [
                "A passkey (\(name ?? "unnamed")) was added to your account \(email) on \(moment.formatted(.iso8601)). It can sign in without a password.",
                "If this was not you, remove it, reset your password and contact the administrators of \(app).",
            ], kind: "passkeyAdded")
        }
        let end = try await finishSignIn(user, provider: claims.firebase.signInProvider, .continuing(claims), in: scope)
        return PasskeySessionResponse(localId: user.localId, tokens: end.tokens!)
    }


    // MARK: Sign-in

    /// `accounts/passkeySignIn:start`: request options for a discoverable credential (no user named).
    public func startPasskeySignIn(_ request: StartPasskeySignInRequest, in scope: Scope) async throws -> StartPasskeySignInResponse {
        let party = try passkeyRelyingParty(try await scope.config())
        let challenge = try await newPasskeyChallenge(.signIn, localId: nil, in: scope)
        return StartPasskeySignInResponse(credentialRequestOptions: PasskeyRequestOptions(
            rpId: party.rpId, challenge: PasskeyBytes.standard(challenge), timeout: Int(Self.passkeyChallengeLifetime * 1000),
            allowCredentials: nil, userVerification: Self.userVerification(party)))
    }

    /// `accounts/passkeySignIn:finalize`: the assertion signs its user in. A passkey that verified the user
    /// (biometrics or a PIN: the UV flag) is two factors in one, so a user with TOTP is not asked for a code. Without
    /// user verification (`passkeys.userVerification: PREFERRED` lets such an assertion through) the passkey proved
    /// possession only — one factor: a user with a second factor gets `mfaPendingCredential` and `mfaInfo`, as after
    /// a password, and completes with a TOTP code or a recovery code (not a passkey: see ``startPasskeySecondFactor(_:)``).
    public func finalizePasskeySignIn(_ request: FinalizePasskeySignInRequest, in scope: Scope) async throws -> PasskeySessionResponse {
        let party = try passkeyRelyingParty(try await scope.config())
        guard let response = request.authenticatorAuthenticationResponse else {
            throw HearthAPIError(.invalidAuthenticatorResponse, "authenticatorAuthenticationResponse is required")
        }
        let (passkey, assertion) = try await verifyPasskeyAssertion(response, party: party, kind: .signIn, localId: nil, in: scope)
        guard let owner = try await scope.store.user(localId: passkey.localId) else { throw HearthAPIError(.userNotFound) }
        // A passkey that verified the user is both factors; without UV it is one, and a second factor is asked for.
        switch try await finishSignIn(owner, provider: Self.passkeySignInProvider, .firstFactor(bothFactors: assertion.userVerified), in: scope) {
        case .secondFactorRequired(let user, let pending):
            logger.info("passkey sign-in without user verification: second factor required", metadata: ["uid": "\(user.localId)"])
            return PasskeySessionResponse(localId: user.localId, pending: pending)
        case .signedIn(let user, let tokens):
            logger.info("passkey sign-in", metadata: ["uid": "\(user.localId)", "uv": "\(assertion.userVerified)"])
            return PasskeySessionResponse(localId: user.localId, tokens: tokens)
        }
    }

    /// Checks an assertion of `kind` (for `localId`'s passkeys when given) and records the passkey's use once:
    /// the challenge is taken, the credential found (and its user handle matched), the signature and counter
    /// checked, the counter moved by compare-and-set.
    func verifyPasskeyAssertion(_ response: PasskeyAuthenticationResponse, party: WebAuthnRelyingParty, kind: PasskeyChallenge.Kind,
                                localId: String?, in scope: Scope) async throws -> (PasskeyCredential, WebAuthnRelyingParty.Assertion) {
        guard let body = response.response else {
            throw HearthAPIError(.invalidAuthenticatorResponse, "the assertion's response (clientDataJSON, authenticatorData, signature) is required")
        }
        guard let named = response.id ?? response.rawId, named.utf8.count <= 1400, let credentialId = PasskeyBytes.normalizedCredentialId(named) else {
            throw HearthAPIError(.invalidAuthenticatorResponse, "the assertion's id (the credential id, base64) is required")
        }
        let clientDataJSON = try Self.passkeyField(body.clientDataJSON, "clientDataJSON")!
        let authenticatorData = try Self.passkeyField(body.authenticatorData, "authenticatorData")!
        let signature = try Self.passkeyField(body.signature, "signature")!
        let userHandle = try Self.passkeyField(body.userHandle, "userHandle", optional: true)
        let (_, challengeBytes) = try await takePasskeyChallenge(clientDataJSON: clientDataJSON, kind: kind, localId: localId, in: scope)
        guard let passkey = try await store.passkey(credentialId: credentialId) else {
            throw HearthAPIError(.passkeyEnrollmentNotFound, "this passkey is not registered (it may have been removed): sign in another way")
        }
        if let localId, passkey.localId != localId {
            throw HearthAPIError(.invalidAuthenticatorResponse, "this passkey belongs to another account")
        }
        // A discoverable sign-in names no user: the passkey must be one of the scope's users' (passkeys are found by
        // credential id in every tenant), checked before its signature counter moves.
        if localId == nil, try await scope.store.user(localId: passkey.localId) == nil {
            throw HearthAPIError(.passkeyEnrollmentNotFound, "this passkey is not registered for \(Scope.describe(scope.tenantId)): sign in with the tenantId of its account, or another way")
        }
        if let userHandle, PasskeyBytes.url(userHandle) != passkey.userHandle {
            throw HearthAPIError(.invalidAuthenticatorResponse, "the assertion's userHandle is not the passkey's user")
        }
        guard let publicKey = PasskeyBytes.decode(passkey.publicKey) else {
            throw HearthAPIError(.internalError, "the stored passkey is unreadable")
        }
        let stored = UInt32(clamping: passkey.signCount)
        let assertion: WebAuthnRelyingParty.Assertion
        do {
            assertion = try party.verifyAssertion(clientDataJSON: clientDataJSON, authenticatorData: authenticatorData, signature: signature,
                                                  expectedChallenge: challengeBytes,
                                                  publicKeyBytes: Data(publicKey), storedSignCount: stored)
        } catch {
            if case .counterNotIncreased(let was, let presented) = error {
                try? await auditUser(passkey.localId, "passkey.clone_suspected", detail: "\(credentialId.prefix(24)) counter \(presented) after \(was)", in: scope)
            }
            throw refused(error, localId: passkey.localId)
        }
        guard try await store.recordPasskeyUse(credentialId: credentialId, expected: passkey.signCount, signCount: Int64(assertion.signCount),
                                               backedUp: assertion.backedUp, at: now)
        else { throw HearthAPIError(.invalidAuthenticatorResponse, "the passkey was used concurrently: sign in again") }
        return (passkey, assertion)
    }

    // MARK: A passkey as the second factor (Hearth)

    /// `mfaSignIn:start` with `passkeySignInInfo`: request options listing the pending user's passkeys. Refused when
    /// the first factor was itself a passkey (one without user verification): passkeys of one user often live in one
    /// authenticator or synced keychain, so a second one would prove the same possession again.
    func startPasskeySecondFactor(_ session: MultiFactorSessionRecord, in scope: Scope) async throws -> StartMFASignInResponse {
        try Self.checkPasskeyMayBeSecondFactor(session)
        let party = try passkeyRelyingParty(try await scope.config(), secondFactor: true)
        let passkeys = try await store.passkeys(localId: session.localId)
        guard !passkeys.isEmpty else {
            throw HearthAPIError(.passkeyEnrollmentNotFound, "the user has no passkey: complete the sign-in with a TOTP code")
        }
        let challenge = try await newPasskeyChallenge(.secondFactor, localId: session.localId, in: scope)
        return StartMFASignInResponse(passkeyResponseInfo: PasskeyMFAChallenge(credentialRequestOptions: PasskeyRequestOptions(
            rpId: party.rpId, challenge: PasskeyBytes.standard(challenge), timeout: Int(Self.passkeyChallengeLifetime * 1000),
            allowCredentials: passkeys.map { PasskeyCredentialDescriptor(id: $0.credentialId, transports: $0.transports.isEmpty ? nil : $0.transports) },
            userVerification: Self.userVerification(party))))
    }

    /// `mfaSignIn:finalize` with `passkeyVerificationInfo`: checks the assertion, then completes the pending
    /// sign-in once. Returns the passkey's credential id (the session's `second_factor_identifier`).
    func usePasskeySecondFactor(_ info: PasskeyMFAVerificationInfo, user: UserRecord, session: MultiFactorSessionRecord, in scope: Scope) async throws -> String {
        guard let response = info.authenticatorAuthenticationResponse else {
            throw HearthAPIError(.invalidAuthenticatorResponse, "passkeyVerificationInfo.authenticatorAuthenticationResponse is required")
        }
        try Self.checkPasskeyMayBeSecondFactor(session)
        let party = try passkeyRelyingParty(try await scope.config(), secondFactor: true)
        let (passkey, _) = try await verifyPasskeyAssertion(response, party: party, kind: .secondFactor, localId: user.localId, in: scope)
        guard try await scope.store.deleteMultiFactorSession(idHash: session.idHash) else {
            throw HearthAPIError(.invalidMfaPendingCredential, "this sign-in was completed already: sign in again")
        }
        return passkey.credentialId
    }

    /// `PASSKEY_ENROLLMENT_NOT_FOUND` (what a user without a passkey hears: the apps' fallback to the code) when the
    /// pending sign-in's first factor was a passkey.
    static func checkPasskeyMayBeSecondFactor(_ session: MultiFactorSessionRecord) throws {
        guard session.payload.signInProvider != passkeySignInProvider else {
            throw HearthAPIError(.passkeyEnrollmentNotFound, "this sign-in began with a passkey, so a passkey cannot also be its second factor: complete it with a TOTP code (or a recovery code)")
        }
    }

    // MARK: Records and removal

    /// The user's passkeys as records carry them (`passkeyInfo`); nil when there are none.
    func passkeyInfo(localId: String) async throws -> [PasskeyInfo]? {
        let passkeys = try await store.passkeys(localId: localId)
        return passkeys.isEmpty ? nil : passkeys.map { PasskeyInfo(name: $0.name, credentialId: $0.credentialId) }
    }

    /// A user record with its passkeys.
    func userInfoWithPasskeys(_ user: UserRecord) async throws -> UserInfo {
        var info = user.userInfo
        info.passkeyInfo = try await passkeyInfo(localId: user.localId)
        return info
    }

    /// Removes passkeys of `localId` by credential id (either base64 alphabet): all named ids must be the user's
    /// (`PASSKEY_ENROLLMENT_NOT_FOUND` names the first that is not, and nothing is removed). Audited with `actor`
    /// (`user:<uid>` for the user's own request, else the administrator's principal).
    @discardableResult
    func removePasskeys(_ ids: [String], localId: String, actor: String, in scope: Scope) async throws -> [String] {
        guard ids.count <= Self.maximumPasskeys * 2 else {
            throw HearthAPIError(.invalidArgument, "deletePasskey names at most \(Self.maximumPasskeys * 2) credential ids")
        }
        let owned = Set(try await store.passkeys(localId: localId).map(\.credentialId))
        var normalized: [String] = []
        for id in ids {
            guard id.utf8.count <= 1400, let credentialId = PasskeyBytes.normalizedCredentialId(id), owned.contains(credentialId) else {
                throw HearthAPIError(.passkeyEnrollmentNotFound, "the user has no passkey \(String(id.prefix(64)))")
            }
            if !normalized.contains(credentialId) { normalized.append(credentialId) }
        }
        var removed: [String] = []
        for credentialId in normalized where try await store.deletePasskey(credentialId: credentialId, localId: localId) {
            removed.append(credentialId)
        }
        if !removed.isEmpty {
            try await scope.store.appendAuditEntry(AuditEntry(time: now, actor: actor, action: "passkey.remove", target: localId,
                                                        detail: removed.map { String($0.prefix(24)) }.joined(separator: ",")))
        }
        return removed
    }
}

// MARK: Served RPCs

extension StartPasskeyEnrollmentRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> StartPasskeyEnrollmentResponse {
        try await call.accounts.startPasskeyEnrollment(request, in: call.scope)
    }
}

extension FinalizePasskeyEnrollmentRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> PasskeySessionResponse {
        try await call.accounts.finalizePasskeyEnrollment(request, mailer: call.emailActions.mailer, in: call.scope)
    }
}

extension StartPasskeySignInRequest: ServedRPC {
    static let rateLimit: RateLimitedEndpoint? = .passkeySignIn
    static func serve(_ request: Self, _ call: RPCCall) async throws -> StartPasskeySignInResponse {
        try await call.accounts.startPasskeySignIn(request, in: call.scope)
    }
}

extension FinalizePasskeySignInRequest: ServedRPC {
    static let signInKind: SignInKind? = .passkey
    static func serve(_ request: Self, _ call: RPCCall) async throws -> PasskeySessionResponse {
        try await call.accounts.finalizePasskeySignIn(request, in: call.scope)
    }
}
