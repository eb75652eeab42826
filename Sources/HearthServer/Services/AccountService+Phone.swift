import Foundation
import HearthCore
import HearthStore
import HearthWire
import Logging

/// Phone sign-in (issue 40, item 1): `accounts:sendVerificationCode` sends a code (``sendPhoneCode(_:purpose:appVerification:localId:binding:user:clientAddress:in:)``,
/// every defence), `accounts:signInWithPhoneNumber` (v3 `verifyPhoneNumber`) proves the number with the code — or
/// with a `temporaryProof` — and signs in or up, links the number to the signed-in user (`idToken`), replaces it
/// (`operation: UPDATE`), or re-authenticates (`operation: REAUTH`: an existing user only). Every sign-in and new user
/// goes through the two exits (``createAccount(_:origin:signIn:in:)``, ``finishSignIn(_:provider:_:in:)``).
extension AccountService {
    /// `accounts:sendVerificationCode` (v3 `sendVerificationCode`): a code by SMS for phone sign-in; answers the
    /// `sessionInfo` `signInWithPhoneNumber` takes with it.
    public func sendVerificationCode(_ request: SendVerificationCodeRequest, clientAddress: String, in scope: Scope) async throws -> SendVerificationCodeResponse {
        let sessionInfo = try await sendPhoneCode(request.phoneNumber ?? "", purpose: .signIn, appVerification: request.appVerification,
                                                  localId: nil, binding: nil, user: nil, clientAddress: clientAddress, in: scope)
        return SendVerificationCodeResponse(sessionInfo: sessionInfo)
    }

    /// What a `signInWithPhoneNumber` request asks for (its `operation`, and whether it carries an ID token).
    enum PhoneOperation: Sendable {
        /// Sign in, or sign up a new number (`SIGN_UP_OR_IN`, `VERIFY_OP_UNSPECIFIED` or none, without an ID token).
        case signInOrUp
        /// Re-authenticate an existing user (`REAUTH`): never a sign-up.
        case reauth
        /// Add the number to the signed-in user (`LINK`): a user with another number is refused.
        case link
        /// Set the signed-in user's number (`UPDATE`, or no operation with an ID token as the JS SDK sends for both
        /// `linkWithPhoneNumber` and `updatePhoneNumber`): another number is replaced.
        case update

        init(_ operation: String?, hasIdToken: Bool) throws {
            switch operation ?? "" {
            case "", "VERIFY_OP_UNSPECIFIED", "SIGN_UP_OR_IN": self = hasIdToken ? .update : .signInOrUp
            case "REAUTH": self = .reauth
            case "LINK": self = hasIdToken ? .link : .signInOrUp
            case "UPDATE": self = hasIdToken ? .update : .signInOrUp
            default:
                throw HearthAPIError(.invalidArgument, "unknown operation \"\(Scope.shown(operation ?? ""))\": SIGN_UP_OR_IN, REAUTH, LINK or UPDATE")
            }
        }
    }

    /// `accounts:signInWithPhoneNumber` (v3 `verifyPhoneNumber`): see this extension's overview.
    public func signInWithPhoneNumber(_ request: SignInWithPhoneNumberRequest, clientAddress: String, in scope: Scope) async throws -> SignInWithPhoneNumberResponse {
        let config = try await scope.config()
        guard config.phoneSignInEnabled else {
            throw HearthAPIError(.operationNotAllowed, "phone sign-in is disabled for this project (signIn.phoneNumber.enabled; hearth project sms set)")
        }
        let idToken = request.idToken.flatMap { $0.isEmpty ? nil : $0 }
        let operation = try PhoneOperation(request.operation, hasIdToken: idToken != nil)
        // The number is proved first: by a temporaryProof (kept until the request succeeds) or by the code (used up).
        let phoneNumber: String
        var proof: PhoneVerificationRecord?
        if let temporaryProof = request.temporaryProof, !temporaryProof.isEmpty {
            guard let number = request.phoneNumber, !number.isEmpty else { throw HearthAPIError(.missingPhoneNumber) }
            phoneNumber = try Self.parsePhoneNumber(number)
            proof = try await self.temporaryProof(temporaryProof, phoneNumber: phoneNumber, in: scope)
        } else {
            phoneNumber = try await checkPhoneCode(sessionInfo: request.sessionInfo, code: request.code, purpose: .signIn,
                                                   clientAddress: clientAddress, in: scope).phoneNumber
        }
        let owner = try await scope.store.user(providerId: ProviderIdentity.phoneProviderId, federatedId: phoneNumber)
        switch operation {
        case .link, .update:
            return try await linkPhoneNumber(phoneNumber, proof: proof, owner: owner, idToken: idToken ?? "", replacing: operation == .update,
                                             in: scope)
        case .reauth:
            guard let owner else { throw HearthAPIError(.userNotFound, "no user has this phone number") }
            if let idToken {
                // A reauthentication of the signed-in user: the number must be that user's.
                let (_, current) = try await authenticate(idToken: idToken, in: scope)
                guard current.localId == owner.localId else {
                    throw HearthAPIError(.invalidArgument, "REAUTH with an idToken re-authenticates that user, but the phone number is another user's")
                }
            }
            return try await signInPhoneUser(owner, phoneNumber: phoneNumber, proof: proof, in: scope)
        case .signInOrUp:
            if let owner { return try await signInPhoneUser(owner, phoneNumber: phoneNumber, proof: proof, in: scope) }
            return try await signUpPhoneUser(phoneNumber, proof: proof, config: config, in: scope)
        }
    }

    /// A returning user's phone sign-in (or reauthentication).
    private func signInPhoneUser(_ user: UserRecord, phoneNumber: String, proof: PhoneVerificationRecord?, in scope: Scope) async throws -> SignInWithPhoneNumberResponse {
        if user.disabled { throw HearthAPIError(.userDisabled) }
        // As at Firebase: a phone number is no first factor for a user with second factors.
        guard user.mfa.factors.isEmpty else { throw Self.unsupportedFirstFactor }
        if let proof { try await useTemporaryProof(proof, in: scope) }
        let end = try await finishSignIn(user, provider: ProviderIdentity.phoneProviderId,
                                         .firstFactor(signIn: BlockingSignIn(method: ProviderIdentity.phoneProviderId)), in: scope)
        return Self.phoneAnswer(end, phoneNumber: phoneNumber, isNewUser: false)
    }

    /// A new user with the number (sign-ups allowed): beforeCreate, then beforeSignIn, then stored. Two sign-ups of one
    /// number at once: the one that lost the race signs in to the other's new user.
    private func signUpPhoneUser(_ phoneNumber: String, proof: PhoneVerificationRecord?, config: ProjectConfig, in scope: Scope) async throws -> SignInWithPhoneNumberResponse {
        if config.userSignupDisabled {
            throw HearthAPIError(.adminOnlyOperation, "sign-up is disabled for this project; an administrator creates accounts")
        }
        if let proof { try await useTemporaryProof(proof, in: scope) }
        var user = newUser()
        user.phoneNumber = phoneNumber
        let created: CreatedAccount
        do {
            created = try await createAccount(user, origin: .signUp(provider: ProviderIdentity.phoneProviderId),
                                              signIn: BlockingSignIn(method: ProviderIdentity.phoneProviderId), in: scope)
        } catch StoreError.federatedIdTaken {
            guard let winner = try await scope.store.user(providerId: ProviderIdentity.phoneProviderId, federatedId: phoneNumber) else {
                throw HearthAPIError(.phoneNumberExists)
            }
            return try await signInPhoneUser(winner, phoneNumber: phoneNumber, proof: nil, in: scope)
        }
        try await auditUser(created.user.localId, "phone.sign_up", detail: "phone \(SmsRedaction.hint(phoneNumber))", in: scope)
        let end = try await finishSignIn(created.user, provider: ProviderIdentity.phoneProviderId, created.signIn(), in: scope)
        return Self.phoneAnswer(end, phoneNumber: phoneNumber, isNewUser: true)
    }

    /// The number added to (or, `replacing`, set on) the signed-in user. A number on another account: with a code,
    /// Firebase's 200 answer holding a `temporaryProof` and the number (the SDKs turn it into
    /// credential-already-in-use carrying a credential that signs in to that account); with a temporary proof,
    /// `PHONE_NUMBER_EXISTS`. A new way into the account: a recent sign-in unless the account is anonymous; the
    /// project's beforeSignIn function decides before anything is written (``SignInStep/linked(_:signIn:write:)``).
    private func linkPhoneNumber(_ phoneNumber: String, proof: PhoneVerificationRecord?, owner: UserRecord?, idToken: String,
                                 replacing: Bool, in scope: Scope) async throws -> SignInWithPhoneNumberResponse {
        let (claims, current) = try await authenticate(idToken: idToken, in: scope)
        if let owner, owner.localId != current.localId {
            if proof != nil { throw HearthAPIError(.phoneNumberExists) }
            let temporaryProof = try await issueTemporaryProof(phoneNumber, in: scope)
            return SignInWithPhoneNumberResponse(phoneNumber: phoneNumber, temporaryProof: temporaryProof,
                                                 temporaryProofExpiresIn: String(Int(Self.temporaryProofLifetime)))
        }
        guard current.mfa.factors.isEmpty else { throw Self.unsupportedFirstFactor }
        if !current.isAnonymous { try requireRecentLogin(claims) }
        let previous = current.phoneNumber
        if let previous, previous != phoneNumber, !replacing {
            throw HearthAPIError(.providerAlreadyLinked, "the user has another phone number; replace it with operation UPDATE")
        }
        if let proof { try await useTemporaryProof(proof, in: scope) }
        var linked = current
        linked.phoneNumber = phoneNumber
        let end: SignInEnd
        do {
            end = try await finishSignIn(linked, provider: ProviderIdentity.phoneProviderId, .linked(
                claims, signIn: BlockingSignIn(method: ProviderIdentity.phoneProviderId), write: { [self] change in
                    try await modifyUser(localId: current.localId, in: scope) { user in
                        user.phoneNumber = phoneNumber
                        change(&user)
                    }
                }), in: scope)
        } catch StoreError.federatedIdTaken {
            throw HearthAPIError(.phoneNumberExists)
        }
        if previous != phoneNumber {
            let action = previous == nil ? "phone.link" : "phone.update"
            try await auditUser(current.localId, action, detail: "phone \(SmsRedaction.hint(phoneNumber))", in: scope)
            logger.info("phone number linked", metadata: ["uid": "\(current.localId)"])
        }
        return Self.phoneAnswer(end, phoneNumber: phoneNumber, isNewUser: false)
    }

    /// The answer of a phone sign-in that ended: the tokens (a phone sign-in never asks for a second factor: such
    /// users are refused before).
    static func phoneAnswer(_ end: SignInEnd, phoneNumber: String, isNewUser: Bool) -> SignInWithPhoneNumberResponse {
        SignInWithPhoneNumberResponse(tokens: end.tokens, localId: end.user.localId, isNewUser: isNewUser, phoneNumber: phoneNumber)
    }
}

extension SendVerificationCodeRequest: ServedRPC {
    static let rateLimit: RateLimitedEndpoint? = .sendVerificationCode
    static func serve(_ request: Self, _ call: RPCCall) async throws -> SendVerificationCodeResponse {
        try await call.accounts.sendVerificationCode(request, clientAddress: call.context.clientAddress, in: call.scope)
    }
}

extension SignInWithPhoneNumberRequest: ServedRPC {
    static let signInKind: SignInKind? = .phone
    static func serve(_ request: Self, _ call: RPCCall) async throws -> SignInWithPhoneNumberResponse {
        try await call.accounts.signInWithPhoneNumber(request, clientAddress: call.context.clientAddress, in: call.scope)
    }
}
