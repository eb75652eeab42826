import Logging
import Foundation
import HearthCore
import HearthStore
import HearthWire

extension AccountService {
    /// `accounts:lookup` by ID token.
    public func lookup(_ request: LookupRequest, in scope: Scope) async throws -> LookupResponse {
        // The user and their passkeys in one store access.
        let (user, passkeys) = try await authenticateWithPasskeys(idToken: request.idToken, in: scope)
        var info = user.userInfo
        info.passkeyInfo = passkeys.isEmpty ? nil : passkeys.map { PasskeyInfo(name: $0.name, credentialId: $0.credentialId) }
        return LookupResponse(users: [info])
    }

    /// `accounts:update`: profile fields, email, password, attribute and provider deletion. Email and password
    /// changes need a recent sign-in, revoke the user's other sessions and return new tokens.
    public func update(_ request: UpdateRequest, in scope: Scope) async throws -> UpdateResponse { try await updateAccount(request, in: scope).response }

    /// ``update(_:)``, and the address the account had when this request changed it (the old address is told).
    func updateAccount(_ request: UpdateRequest, in scope: Scope) async throws -> (response: UpdateResponse, changedFrom: String?) {
        let (claims, current) = try await authenticate(idToken: request.idToken, in: scope)
        let deleteAttributes = Set(request.deleteAttribute ?? [])
        if let unknown = deleteAttributes.subtracting(["DISPLAY_NAME", "PHOTO_URL"]).first {
            throw HearthAPIError(.invalidArgument, "unknown deleteAttribute \(unknown)")
        }
        try Self.checkProfile(displayName: request.displayName, photoUrl: request.photoUrl)
        let newEmail = try request.email.map { try Self.normalizedEmail($0) }
        let emailChanges = newEmail != nil && newEmail != current.email
        if emailChanges, try await scope.config().emailEnumerationProtection {
            // As at Firebase: with enumeration protection a direct change would answer EMAIL_EXISTS for a taken
            // address. The verified change answers the same for every address.
            throw HearthAPIError(.operationNotAllowed, "Please verify the new email before changing email: with email enumeration protection on, an email changes only through verifyBeforeUpdateEmail (sendOobCode VERIFY_AND_CHANGE_EMAIL)")
        }
        let newPassword = request.password.flatMap { $0.isEmpty ? nil : $0 }
        if let newPassword { try Self.checkPasswordStrength(newPassword) }
        let deleteProviders = Set(request.deleteProvider ?? [])
        if emailChanges || newPassword != nil || deleteProviders.contains("password") {
            try requireRecentLogin(claims)
        }
        if newPassword != nil, newEmail == nil, current.email == nil {
            throw HearthAPIError(.missingEmail, "set an email together with the first password")
        }
        let deletePasskeys = request.deletePasskey ?? []
        if !deletePasskeys.isEmpty {
            try requireRecentLogin(claims)
            // Every id is checked before anything is removed; the passkeys go first (the checks above passed).
            try await removePasskeys(deletePasskeys, localId: current.localId, actor: "user:\(current.localId)", in: scope)
        }
        var hash: String?
        if let newPassword { hash = try await hashPassword(newPassword) }
        let moment = now
        let revokes = emailChanges || newPassword != nil
        let updated = try await modifyUser(localId: current.localId, revokingSessions: revokes, in: scope) { user in
            if let name = request.displayName { user.displayName = name.isEmpty ? nil : name }
            if let photo = request.photoUrl { user.photoUrl = photo.isEmpty ? nil : photo }
            if deleteAttributes.contains("DISPLAY_NAME") { user.displayName = nil }
            if deleteAttributes.contains("PHOTO_URL") { user.photoUrl = nil }
            if emailChanges {
                user.email = newEmail
                user.emailVerified = false
            }
            if let hash {
                user.passwordHash = hash
                user.passwordUpdatedAt = moment
            }
            if deleteProviders.contains("password") {
                user.passwordHash = nil
                user.passwordUpdatedAt = nil
            }
            user.identities.removeAll { deleteProviders.contains($0.providerId) }
            if revokes { user.validSince = revocationMoment }
        }
        if deleteProviders.contains(ProviderIdentity.phoneProviderId), let number = current.phoneNumber, updated.phoneNumber == nil {
            try await auditUser(updated.localId, "phone.unlink", detail: "phone \(SmsRedaction.hint(number))", in: scope)
        }
        var tokens: SessionTokens?
        if revokes {
            logger.info("credentials changed; other sessions revoked", metadata: ["uid": "\(updated.localId)"])
            tokens = try await finishSignIn(updated, provider: claims.firebase.signInProvider, .afterRevocation, in: scope).tokens
        } else if !deletePasskeys.isEmpty {
            // Firebase's Apple SDK signs in again with the answer's tokens after removing a passkey.
            tokens = try await finishSignIn(updated, provider: claims.firebase.signInProvider, .continuing(claims), in: scope).tokens
        }
        let response = UpdateResponse(localId: updated.localId, email: updated.email, emailVerified: updated.emailVerified,
                                      displayName: updated.displayName, photoUrl: updated.photoUrl,
                                      providerUserInfo: updated.providerUserInfo, tokens: tokens)
        return (response, emailChanges ? current.email : nil)
    }

    /// `accounts:delete` for the signed-in user; needs a recent sign-in.
    public func delete(_ request: DeleteAccountRequest, in scope: Scope) async throws -> DeleteAccountResponse {
        let (claims, user) = try await authenticate(idToken: request.idToken, in: scope)
        try requireRecentLogin(claims)
        if try await scope.config().userDeletionDisabled {
            throw HearthAPIError(.adminOnlyOperation, "account deletion by users is disabled for this project")
        }
        let deleted = try await deletingUsers([user.localId], in: scope) {
            try await metrics.timeStore("deleteUser", { try await scope.store.deleteUser(localId: user.localId) })
        }
        guard deleted else { throw HearthAPIError(.userNotFound) }
        logger.info("user deleted", metadata: ["uid": "\(user.localId)"])
        return DeleteAccountResponse()
    }

    /// `accounts:createAuthUri`: the sign-in methods of an email (nothing with email enumeration protection).
    public func createAuthUri(_ request: CreateAuthUriRequest, in scope: Scope) async throws -> CreateAuthUriResponse {
        let email = try Self.normalizedEmail(request.identifier, missing: .missingIdentifier, invalid: .invalidIdentifier)
        guard let continueUri = request.continueUri, !continueUri.isEmpty else { throw HearthAPIError(.missingContinueUri) }
        guard let components = URLComponents(string: continueUri), let scheme = components.scheme,
              scheme.first?.isLetter == true, !continueUri.contains(where: \.isWhitespace)
        else { throw HearthAPIError(.invalidContinueUri) }
        let sessionId = request.sessionId ?? RandomID.alphanumeric(count: 27)
        let config = try await scope.config()
        if config.emailEnumerationProtection {
            return CreateAuthUriResponse(registered: nil, allProviders: nil, signinMethods: nil, sessionId: sessionId)
        }
        guard let user = try await scope.store.user(email: email) else {
            return CreateAuthUriResponse(registered: false, allProviders: nil, signinMethods: nil, sessionId: sessionId)
        }
        let federated = user.identities.map(\.providerId)
        let password = user.passwordHash != nil || user.emailLinkSignIn ? ["password"] : []
        let methods = (user.passwordHash != nil ? ["password"] : []) + (user.emailLinkSignIn ? ["emailLink"] : []) + federated
        return CreateAuthUriResponse(registered: true, allProviders: password + federated, signinMethods: methods, sessionId: sessionId)
    }

    /// `getProjectConfig`.
    public func getProjectConfig(in scope: Scope) async throws -> GetProjectConfigResponse {
        let config = try await scope.config()
        return GetProjectConfigResponse(projectId: config.projectId, authorizedDomains: config.authorizedDomains)
    }
}

extension LookupRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> LookupResponse { try await call.accounts.lookup(request, in: call.scope) }
}

extension UpdateRequest: ServedRPC {
    /// With `oobCode`: an email action (verify, change, recover). Otherwise the signed-in user's update; when it
    /// changed the email, the old address is told, with a link that changes it back.
    static func serve(_ request: Self, _ call: RPCCall) async throws -> UpdateResponse {
        if let code = request.oobCode, !code.isEmpty { return try await call.emailActions.applyActionCode(code, in: call.scope) }
        try await call.emailActions.admitChangeNotice(request, in: call.scope)
        let (response, changedFrom) = try await call.accounts.updateAccount(request, in: call.scope)
        if let old = changedFrom, let new = response.email {
            await call.emailActions.sendRecoverEmail(localId: response.localId, oldEmail: old, newEmail: new, displayName: response.displayName, in: call.scope)
        }
        return response
    }
}

extension DeleteAccountRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> DeleteAccountResponse { try await call.accounts.delete(request, in: call.scope) }
}

extension CreateAuthUriRequest: ServedRPC {
    static let rateLimit: RateLimitedEndpoint? = .createAuthUri
    /// With a provider id (and no identifier): a federated sign-in session; otherwise the sign-in methods of an email.
    static func serve(_ request: Self, _ call: RPCCall) async throws -> CreateAuthUriResponse {
        if let providerId = request.providerId, !providerId.isEmpty, request.identifier == nil {
            return try await call.federation.createAuthUri(providerId: providerId, sessionId: request.sessionId, appId: request.appId, in: call.scope)
        }
        return try await call.accounts.createAuthUri(request, in: call.scope)
    }
}

extension GetProjectConfigRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> GetProjectConfigResponse { try await call.accounts.getProjectConfig(in: call.scope) }
}
