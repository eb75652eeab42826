/// The kinds of out-of-band (email) action codes: Identity Toolkit's `requestType` values.
public enum OobRequestType: String, Codable, Sendable, CaseIterable {
    /// "Forgot password": the code lets its holder set a new password.
    case passwordReset = "PASSWORD_RESET"
    /// Verify the account's email address.
    case verifyEmail = "VERIFY_EMAIL"
    /// Email-link sign-in (passwordless).
    case emailSignIn = "EMAIL_SIGNIN"
    /// Verify a new address, then change the account's email to it.
    case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"
    /// Undo an email change (sent to the old address after a change).
    case recoverEmail = "RECOVER_EMAIL"

    /// The action handler's `mode` for the code's link.
    public var mode: String {
        switch self {
        case .passwordReset: "resetPassword"
        case .verifyEmail: "verifyEmail"
        case .emailSignIn: "signIn"
        case .verifyAndChangeEmail: "verifyAndChangeEmail"
        case .recoverEmail: "recoverEmail"
        }
    }

    /// The request type a link's `mode` stands for.
    public init?(mode: String) {
        guard let type = Self.allCases.first(where: { $0.mode == mode }) else { return nil }
        self = type
    }
}

/// Where a link should lead after the action (Firebase's `ActionCodeSettings` as sent on the wire).
public struct ActionCodeSettingsWire: Codable, Sendable, Equatable {
    public var continueUrl: String?
    public var canHandleCodeInApp: Bool?
    public var iOSBundleId: String?
    public var iOSAppStoreId: String?
    public var androidPackageName: String?
    public var androidInstallApp: Bool?
    public var androidMinimumVersion: String?
    public var dynamicLinkDomain: String?
    public var linkDomain: String?

    public init(continueUrl: String? = nil, canHandleCodeInApp: Bool? = nil, iOSBundleId: String? = nil,
                androidPackageName: String? = nil, androidInstallApp: Bool? = nil, androidMinimumVersion: String? = nil,
                linkDomain: String? = nil) {
        self.continueUrl = continueUrl
        self.canHandleCodeInApp = canHandleCodeInApp
        self.iOSBundleId = iOSBundleId
        self.androidPackageName = androidPackageName
        self.androidInstallApp = androidInstallApp
        self.androidMinimumVersion = androidMinimumVersion
        self.linkDomain = linkDomain
    }
}

/// `accounts:sendOobCode` (v3 `getOobConfirmationCode`): sends an email with an action link. `PASSWORD_RESET` and
/// `EMAIL_SIGNIN` name the `email`; `VERIFY_EMAIL` and `VERIFY_AND_CHANGE_EMAIL` the signed-in user's `idToken`
/// (the latter with `newEmail`). The admin API's form (``AdminSendOobCodeRequest``) may name the user by `email` and
/// set `returnOobLink` to get the link instead of a message.
public struct SendOobCodeRequest: Codable, Sendable, Equatable {
    public var requestType: String?
    public var email: String?
    public var newEmail: String?
    public var idToken: String?
    public var continueUrl: String?
    public var canHandleCodeInApp: Bool?
    public var iOSBundleId: String?
    public var iOSAppStoreId: String?
    public var androidPackageName: String?
    public var androidInstallApp: Bool?
    public var androidMinimumVersion: String?
    public var dynamicLinkDomain: String?
    public var linkDomain: String?
    /// Admin only: answer the link (and code) instead of sending the message.
    public var returnOobLink: Bool?
    public var tenantId: String?
    public var targetProjectId: String?
    public var captchaResp: String?
    public var clientType: String?
    public var recaptchaVersion: String?
    public var userIp: String?

    public init(requestType: OobRequestType, email: String? = nil, newEmail: String? = nil, idToken: String? = nil,
                settings: ActionCodeSettingsWire? = nil, returnOobLink: Bool? = nil) {
        self.requestType = requestType.rawValue
        self.email = email
        self.newEmail = newEmail
        self.idToken = idToken
        self.returnOobLink = returnOobLink
        if let settings { apply(settings) }
    }

    /// Sets the action code settings' fields.
    public mutating func apply(_ settings: ActionCodeSettingsWire) {
        continueUrl = settings.continueUrl
        canHandleCodeInApp = settings.canHandleCodeInApp
        iOSBundleId = settings.iOSBundleId
        iOSAppStoreId = settings.iOSAppStoreId
        androidPackageName = settings.androidPackageName
        androidInstallApp = settings.androidInstallApp
        androidMinimumVersion = settings.androidMinimumVersion
        dynamicLinkDomain = settings.dynamicLinkDomain
        linkDomain = settings.linkDomain
    }

    /// The action code settings the request carries.
    public var settings: ActionCodeSettingsWire {
        var settings = ActionCodeSettingsWire(continueUrl: continueUrl, canHandleCodeInApp: canHandleCodeInApp, iOSBundleId: iOSBundleId,
                                              androidPackageName: androidPackageName, androidInstallApp: androidInstallApp,
                                              androidMinimumVersion: androidMinimumVersion, linkDomain: linkDomain)
        settings.iOSAppStoreId = iOSAppStoreId
        settings.dynamicLinkDomain = dynamicLinkDomain
        return settings
    }
}

/// The answer to `accounts:sendOobCode`: the address written to; with `returnOobLink` (admin), the code and link.
public struct SendOobCodeResponse: Codable, Sendable, Equatable {
    public var kind: String = "identitytoolkit#GetOobConfirmationCodeResponse"
    public var email: String?
    public var oobCode: String?
    public var oobLink: String?

    public init(email: String?, oobCode: String? = nil, oobLink: String? = nil) {
        self.email = email
        self.oobCode = oobCode
        self.oobLink = oobLink
    }
}

/// `projects/{p}/accounts:sendOobCode`: ``SendOobCodeRequest`` through the admin API (firebase-admin's
/// `generate_password_reset_link`, `generate_email_verification_link`, `generate_sign_in_with_email_link`).
public struct AdminSendOobCodeRequest: Codable, Sendable, Equatable {
    public var request: SendOobCodeRequest

    public init(_ request: SendOobCodeRequest) { self.request = request }
    public init(from decoder: any Decoder) throws { request = try SendOobCodeRequest(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try request.encode(to: encoder) }
}

/// `accounts:resetPassword` (v3 `resetPassword`): with `oobCode` alone, checks any action code and answers its
/// email and `requestType` (nothing changes); with `newPassword`, a `PASSWORD_RESET` code sets the password.
public struct ResetPasswordRequest: Codable, Sendable, Equatable {
    public var oobCode: String?
    public var newPassword: String?
    public var email: String?
    public var oldPassword: String?
    public var tenantId: String?

    public init(oobCode: String?, newPassword: String? = nil) {
        self.oobCode = oobCode
        self.newPassword = newPassword
    }
}

/// The answer to `accounts:resetPassword`. An `EMAIL_SIGNIN` code's email is not revealed.
public struct ResetPasswordResponse: Codable, Sendable, Equatable {
    public var kind: String = "identitytoolkit#ResetPasswordResponse"
    public var email: String?
    public var newEmail: String?
    public var requestType: String?

    public init(email: String?, newEmail: String?, requestType: OobRequestType) {
        self.email = email
        self.newEmail = newEmail
        self.requestType = requestType.rawValue
    }
}

/// `accounts:signInWithEmailLink` (v3 `emailLinkSignin`): signs in with an `EMAIL_SIGNIN` code and the email it was
/// sent to (creating the user on first use), or with `idToken` links the email to the signed-in user.
public struct SignInWithEmailLinkRequest: Codable, Sendable, Equatable {
    public var email: String?
    public var oobCode: String?
    public var idToken: String?
    public var tenantId: String?
    public var returnSecureToken: Bool?

    public init(email: String?, oobCode: String?, idToken: String? = nil) {
        self.email = email
        self.oobCode = oobCode
        self.idToken = idToken
        self.returnSecureToken = true
    }
}

/// The answer to `accounts:signInWithEmailLink`.
public struct SignInWithEmailLinkResponse: Codable, Sendable, Equatable {
    public var kind: String = "identitytoolkit#EmailLinkSigninResponse"
    public var localId: String
    public var email: String
    public var isNewUser: Bool
    public var idToken: String?
    public var refreshToken: String?
    public var expiresIn: String?
    /// Instead of the tokens when the user has a second factor: finish with `mfaSignIn:finalize`.
    public var mfaPendingCredential: String?
    /// The user's second factors, with `mfaPendingCredential`.
    public var mfaInfo: [MFAEnrollmentInfo]?

    public init(localId: String, email: String, isNewUser: Bool, tokens: SessionTokens?) {
        self.localId = localId
        self.email = email
        self.isNewUser = isNewUser
        self.idToken = tokens?.idToken
        self.refreshToken = tokens?.refreshToken
        self.expiresIn = tokens?.expiresIn
    }
}

/// `GET /emulator/v1/projects/{p}/oobCodes`: the codes in the dev mailbox (the Auth emulator's endpoint).
public struct EmulatorOobCodesRequest: Codable, Sendable, Equatable {
    public init() {}
}

/// One code in the dev mailbox, as the Auth emulator lists it.
public struct EmulatorOobCode: Codable, Sendable, Equatable {
    public var email: String
    public var oobCode: String
    public var oobLink: String
    public var requestType: String

    public init(email: String, oobCode: String, oobLink: String, requestType: OobRequestType) {
        self.email = email
        self.oobCode = oobCode
        self.oobLink = oobLink
        self.requestType = requestType.rawValue
    }
}

/// The answer to `GET …/oobCodes`.
public struct EmulatorOobCodesResponse: Codable, Sendable, Equatable {
    public var oobCodes: [EmulatorOobCode]
    public init(oobCodes: [EmulatorOobCode]) { self.oobCodes = oobCodes }
}

/// `DELETE /emulator/v1/projects/{p}/oobCodes`: empties the dev mailbox.
public struct EmulatorClearOobCodesRequest: Codable, Sendable, Equatable {
    public init() {}
}
