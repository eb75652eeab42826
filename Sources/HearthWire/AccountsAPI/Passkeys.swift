import Foundation

/// Passkeys on the wire of Firebase's preview (Identity Platform v2 `accounts/passkeyEnrollment:*` and
/// `accounts/passkeySignIn:*`; docs/design-notes/issue-23.md has the sources). Binary values travel as base64
/// strings: Hearth accepts both alphabets, padded or not (``PasskeyBytes``), and sends `challenge` and `user.id` in
/// standard padded base64 — the one form both the Apple SDK (which decodes the standard alphabet only) and the JS
/// SDK decode.

extension WirePaths {
    /// `POST …/v2/accounts/passkeyEnrollment:start`: registration options for the signed-in user.
    public static let passkeyEnrollmentStart = "\(identityToolkitV2)/accounts/passkeyEnrollment:start"
    /// `POST …/v2/accounts/passkeyEnrollment:finalize`: the authenticator's registration response.
    public static let passkeyEnrollmentFinalize = "\(identityToolkitV2)/accounts/passkeyEnrollment:finalize"
    /// `POST …/v2/accounts/passkeySignIn:start`: authentication options (discoverable credentials).
    public static let passkeySignInStart = "\(identityToolkitV2)/accounts/passkeySignIn:start"
    /// `POST …/v2/accounts/passkeySignIn:finalize`: the authenticator's assertion signs in.
    public static let passkeySignInFinalize = "\(identityToolkitV2)/accounts/passkeySignIn:finalize"
    /// `GET /__/auth/passkey`: Hearth's passkey page on its own origin (register or sign in, then return to the app).
    public static let passkeyPage = "/__/auth/passkey"
    /// `GET /__/auth/passkey.js`: the page's script (served from Hearth's origin: CSP `script-src 'self'`).
    public static let passkeyScript = "/__/auth/passkey.js"
    /// `GET /.well-known/apple-app-site-association`: `webcredentials` for the registered Apple apps.
    public static let appleAppSiteAssociation = "/.well-known/apple-app-site-association"
}

/// Base64 as passkey clients send it: standard or URL-safe alphabet, padded or not.
public enum PasskeyBytes {
    /// The bytes of a base64 string in either alphabet; nil when it is not base64.
    public static func decode(_ text: String) -> [UInt8]? { Data(base64URLEncoded: text).map { [UInt8]($0) } }

    /// Standard, padded base64 (`challenge`, `user.id`: what every SDK decodes).
    public static func standard(_ bytes: some Sequence<UInt8>) -> String { Data(bytes).base64EncodedString() }

    /// Unpadded base64url: how Hearth names a credential id (stored, listed in `passkeyInfo`).
    public static func url(_ bytes: some Sequence<UInt8>) -> String { Data(bytes).base64URLEncodedString() }

    /// A credential id in Hearth's one form (unpadded base64url of its bytes), whatever form the client used.
    public static func normalizedCredentialId(_ text: String) -> String? { decode(text).map(url) }
}

// MARK: Options (WebAuthn's JSON forms, as browsers take them)

/// `rp` of the creation options.
public struct PasskeyRelyingPartyEntity: Codable, Sendable, Equatable {
    public var id: String
    public var name: String?
    public init(id: String, name: String?) {
        self.id = id
        self.name = name
    }
}

/// `user` of the creation options: `id` is the user handle (random bytes, never the email), base64.
public struct PasskeyUserEntity: Codable, Sendable, Equatable {
    public var id: String
    public var name: String?
    public var displayName: String?
    public init(id: String, name: String?, displayName: String?) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }
}

/// One `pubKeyCredParams` entry: `{type: "public-key", alg: -7}`.
public struct PasskeyCredentialParameter: Codable, Sendable, Equatable {
    public var type: String
    public var alg: Int
    public init(alg: Int) {
        self.type = "public-key"
        self.alg = alg
    }
}

/// A credential named in `excludeCredentials` / `allowCredentials`.
public struct PasskeyCredentialDescriptor: Codable, Sendable, Equatable {
    public var type: String
    public var id: String
    public var transports: [String]?
    public init(id: String, transports: [String]? = nil) {
        self.type = "public-key"
        self.id = id
        self.transports = transports
    }
}

/// `authenticatorSelection`.
public struct PasskeyAuthenticatorSelection: Codable, Sendable, Equatable {
    public var residentKey: String?
    public var requireResidentKey: Bool?
    public var userVerification: String?
    public var authenticatorAttachment: String?
    public init(residentKey: String?, requireResidentKey: Bool?, userVerification: String?, authenticatorAttachment: String? = nil) {
        self.residentKey = residentKey
        self.requireResidentKey = requireResidentKey
        self.userVerification = userVerification
        self.authenticatorAttachment = authenticatorAttachment
    }
}

/// `credentialCreationOptions`: what `navigator.credentials.create` takes (binary members as base64).
public struct PasskeyCreationOptions: Codable, Sendable, Equatable {
    public var rp: PasskeyRelyingPartyEntity
    public var user: PasskeyUserEntity
    /// Standard padded base64 of the challenge bytes.
    public var challenge: String
    public var pubKeyCredParams: [PasskeyCredentialParameter]
    /// Milliseconds.
    public var timeout: Int?
    public var excludeCredentials: [PasskeyCredentialDescriptor]?
    public var authenticatorSelection: PasskeyAuthenticatorSelection?
    public var attestation: String?

    public init(rp: PasskeyRelyingPartyEntity, user: PasskeyUserEntity, challenge: String, pubKeyCredParams: [PasskeyCredentialParameter],
                timeout: Int?, excludeCredentials: [PasskeyCredentialDescriptor]?, authenticatorSelection: PasskeyAuthenticatorSelection?,
                attestation: String?) {
        self.rp = rp
        self.user = user
        self.challenge = challenge
        self.pubKeyCredParams = pubKeyCredParams
        self.timeout = timeout
        self.excludeCredentials = excludeCredentials
        self.authenticatorSelection = authenticatorSelection
        self.attestation = attestation
    }
}

/// `credentialRequestOptions`: what `navigator.credentials.get` takes.
public struct PasskeyRequestOptions: Codable, Sendable, Equatable {
    public var rpId: String
    /// Standard padded base64 of the challenge bytes.
    public var challenge: String
    /// Milliseconds.
    public var timeout: Int?
    /// Empty for a discoverable-credential sign-in; the user's credentials for a second factor.
    public var allowCredentials: [PasskeyCredentialDescriptor]?
    public var userVerification: String?

    public init(rpId: String, challenge: String, timeout: Int?, allowCredentials: [PasskeyCredentialDescriptor]?, userVerification: String?) {
        self.rpId = rpId
        self.challenge = challenge
        self.timeout = timeout
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
    }
}

// MARK: Authenticator responses

/// `authenticatorRegistrationResponse` (WebAuthn's RegistrationResponseJSON).
public struct PasskeyRegistrationResponse: Codable, Sendable, Equatable {
    public var id: String?
    public var rawId: String?
    public var type: String?
    public var authenticatorAttachment: String?
    public var response: Body?

    public init(id: String?, rawId: String? = nil, type: String? = "public-key", response: Body?) {
        self.id = id
        self.rawId = rawId
        self.type = type
        self.response = response
    }

    /// `response`.
    public struct Body: Codable, Sendable, Equatable {
        public var clientDataJSON: String?
        public var attestationObject: String?
        public var transports: [String]?
        public init(clientDataJSON: String?, attestationObject: String?, transports: [String]? = nil) {
            self.clientDataJSON = clientDataJSON
            self.attestationObject = attestationObject
            self.transports = transports
        }
    }
}

/// `authenticatorAuthenticationResponse` (WebAuthn's AuthenticationResponseJSON).
public struct PasskeyAuthenticationResponse: Codable, Sendable, Equatable {
    public var id: String?
    public var rawId: String?
    public var type: String?
    public var response: Body?

    public init(id: String?, rawId: String? = nil, type: String? = "public-key", response: Body?) {
        self.id = id
        self.rawId = rawId
        self.type = type
        self.response = response
    }

    /// `response`.
    public struct Body: Codable, Sendable, Equatable {
        public var clientDataJSON: String?
        public var authenticatorData: String?
        public var signature: String?
        public var userHandle: String?
        public init(clientDataJSON: String?, authenticatorData: String?, signature: String?, userHandle: String?) {
            self.clientDataJSON = clientDataJSON
            self.authenticatorData = authenticatorData
            self.signature = signature
            self.userHandle = userHandle
        }
    }
}

// MARK: The RPCs

/// `accounts/passkeyEnrollment:start`.
public struct StartPasskeyEnrollmentRequest: Codable, Sendable, Equatable {
    public var idToken: String?
    public var tenantId: String?
    public init(idToken: String?, tenantId: String? = nil) {
        self.idToken = idToken
        self.tenantId = tenantId
    }
}

/// The answer to `accounts/passkeyEnrollment:start`.
public struct StartPasskeyEnrollmentResponse: Codable, Sendable, Equatable {
    public var credentialCreationOptions: PasskeyCreationOptions
    public init(credentialCreationOptions: PasskeyCreationOptions) { self.credentialCreationOptions = credentialCreationOptions }
}

/// `accounts/passkeyEnrollment:finalize`.
public struct FinalizePasskeyEnrollmentRequest: Codable, Sendable, Equatable {
    public var idToken: String?
    public var tenantId: String?
    /// The passkey's name (the SDKs' default: "Unnamed account (Apple)" / "(Web)").
    public var name: String?
    /// Sent by the JS SDK beside `name`; ignored.
    public var displayName: String?
    public var authenticatorRegistrationResponse: PasskeyRegistrationResponse?

    public init(idToken: String?, name: String?, authenticatorRegistrationResponse: PasskeyRegistrationResponse?, tenantId: String? = nil) {
        self.idToken = idToken
        self.name = name
        self.authenticatorRegistrationResponse = authenticatorRegistrationResponse
        self.tenantId = tenantId
    }
}

/// The answer to both finalize RPCs: a session — or, for a sign-in whose passkey did not verify the user (one
/// factor) of a user with a second factor, `mfaPendingCredential` and `mfaInfo` in place of the tokens, as a
/// password sign-in answers.
public struct PasskeySessionResponse: Codable, Sendable, Equatable {
    public var localId: String?
    public var idToken: String?
    public var refreshToken: String?
    public var expiresIn: String?
    /// Instead of the tokens when the sign-in needs its second factor: finish with `mfaSignIn:finalize`.
    public var mfaPendingCredential: String?
    /// The user's second factors, with `mfaPendingCredential`.
    public var mfaInfo: [MFAEnrollmentInfo]?

    /// A session.
    public init(localId: String?, tokens: SessionTokens) {
        self.localId = localId
        self.idToken = tokens.idToken
        self.refreshToken = tokens.refreshToken
        self.expiresIn = tokens.expiresIn
    }

    /// A sign-in waiting for its second factor.
    public init(localId: String?, pending: MFAPendingSignIn) {
        self.localId = localId
        self.mfaPendingCredential = pending.mfaPendingCredential
        self.mfaInfo = pending.mfaInfo
    }
}

/// `accounts/passkeySignIn:start` (the Apple SDK sends no body at all without a tenant: every member is optional).
public struct StartPasskeySignInRequest: Codable, Sendable, Equatable {
    public var tenantId: String?
    public init(tenantId: String? = nil) { self.tenantId = tenantId }
}

/// The answer to `accounts/passkeySignIn:start`.
public struct StartPasskeySignInResponse: Codable, Sendable, Equatable {
    public var credentialRequestOptions: PasskeyRequestOptions
    public init(credentialRequestOptions: PasskeyRequestOptions) { self.credentialRequestOptions = credentialRequestOptions }
}

/// `accounts/passkeySignIn:finalize`.
public struct FinalizePasskeySignInRequest: Codable, Sendable, Equatable {
    public var tenantId: String?
    public var authenticatorAuthenticationResponse: PasskeyAuthenticationResponse?
    /// Sent by the JS SDK; ignored.
    public var name: String?
    /// Sent by the JS SDK; ignored.
    public var displayName: String?

    public init(authenticatorAuthenticationResponse: PasskeyAuthenticationResponse?, tenantId: String? = nil) {
        self.authenticatorAuthenticationResponse = authenticatorAuthenticationResponse
        self.tenantId = tenantId
    }
}

/// One passkey in a user record (`passkeyInfo[]`).
public struct PasskeyInfo: Codable, Sendable, Equatable {
    public var name: String?
    /// Unpadded base64url of the credential id.
    public var credentialId: String
    public init(name: String?, credentialId: String) {
        self.name = name
        self.credentialId = credentialId
    }
}
