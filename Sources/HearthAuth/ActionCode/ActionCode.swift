import Foundation
import HearthWire

/// Where an email action link leads and which app may open it (Firebase's `ActionCodeSettings`): pass it to
/// `sendPasswordReset(withEmail:actionCodeSettings:)`, `sendSignInLink(toEmail:actionCodeSettings:)` and
/// `User.sendEmailVerification(with:)`.
public final class ActionCodeSettings: Sendable {
    // The mutable settings live behind a lock (Firebase's class has settable properties).
    struct Fields: Sendable, Equatable {
        var url: URL?
        var handleCodeInApp = false
        var iOSBundleID: String?
        var androidPackageName: String?
        var androidMinimumVersion: String?
        var androidInstallIfNotAvailable = false
        var linkDomain: String?
        var dynamicLinkDomain: String?
    }

    private let fields: LockedValue<Fields>

    /// Empty settings; `iOSBundleID` starts as the running app's bundle id, as in Firebase.
    public init() {
        fields = LockedValue(Fields(iOSBundleID: Bundle.main.bundleIdentifier))
    }

    /// The continue URL: where the person goes after the action (its host must be one of the project's authorized
    /// domains), or for email-link sign-in the link the app opens.
    public var url: URL? {
        get { self[\.url] }
        set { self[\.url] = newValue }
    }

    /// Whether the link opens the app directly (email-link sign-in) rather than the server's action page first.
    public var handleCodeInApp: Bool {
        get { self[\.handleCodeInApp] }
        set { self[\.handleCodeInApp] = newValue }
    }

    /// The iOS app that should open the link.
    public var iOSBundleID: String? {
        get { self[\.iOSBundleID] }
        set { self[\.iOSBundleID] = newValue }
    }

    /// The Android app that should open the link.
    public var androidPackageName: String? {
        get { self[\.androidPackageName] }
        set { self[\.androidPackageName] = newValue }
    }

    /// The oldest Android app version that can open the link.
    public var androidMinimumVersion: String? {
        get { self[\.androidMinimumVersion] }
        set { self[\.androidMinimumVersion] = newValue }
    }

    /// Whether an Android device without the app should be offered to install it.
    public var androidInstallIfNotAvailable: Bool {
        get { self[\.androidInstallIfNotAvailable] }
        set { self[\.androidInstallIfNotAvailable] = newValue }
    }

    /// The domain the link is built on (Firebase Hosting's custom domain setting), when not the server's own.
    public var linkDomain: String? {
        get { self[\.linkDomain] }
        set { self[\.linkDomain] = newValue }
    }

    /// Firebase Dynamic Links' domain (deprecated by Firebase; sent as given).
    public var dynamicLinkDomain: String? {
        get { self[\.dynamicLinkDomain] }
        set { self[\.dynamicLinkDomain] = newValue }
    }

    private subscript<Value: Sendable>(_ field: WritableKeyPath<Fields, Value>) -> Value {
        get { fields.withLock { $0[keyPath: field] } }
        set { fields.withLock { $0[keyPath: field] = newValue } }
    }

    /// Sets the iOS bundle id.
    public func setIOSBundleID(_ bundleID: String) {
        iOSBundleID = bundleID
    }

    /// Sets the Android package, whether to offer installing it, and its minimum version.
    public func setAndroidPackageName(_ androidPackageName: String, installIfNotAvailable: Bool, minimumVersion: String?) {
        fields.withLock {
            $0.androidPackageName = androidPackageName
            $0.androidInstallIfNotAvailable = installIfNotAvailable
            $0.androidMinimumVersion = minimumVersion
        }
    }

    /// The settings as `sendOobCode` carries them: false flags and absent values are left out, as Firebase's
    /// SDK sends them.
    var wire: ActionCodeSettingsWire {
        let fields = fields.withLock { $0 }
        var wire = ActionCodeSettingsWire(
            continueUrl: fields.url?.absoluteString, canHandleCodeInApp: fields.handleCodeInApp ? true : nil,
            iOSBundleId: fields.iOSBundleID, androidPackageName: fields.androidPackageName,
            androidInstallApp: fields.androidInstallIfNotAvailable ? true : nil, androidMinimumVersion: fields.androidMinimumVersion,
            linkDomain: fields.linkDomain)
        wire.dynamicLinkDomain = fields.dynamicLinkDomain
        return wire
    }
}

/// What an action code is for (Firebase's `ActionCodeOperation`, same raw values).
public enum ActionCodeOperation: Int, Sendable, CaseIterable {
    /// A code this SDK does not know.
    case unknown = 0
    /// "Forgot password".
    case passwordReset = 1
    /// Verify the account's email.
    case verifyEmail = 2
    /// Undo an email change (sent to the old address).
    case recoverEmail = 3
    /// Email-link sign-in.
    case emailLink = 4
    /// Verify a new address, then change the account's email to it.
    case verifyAndChangeEmail = 5
    /// Undo adding a second factor (Firebase; Hearth sends no such code).
    case revertSecondFactorAddition = 6

    /// The operation of a server `requestType` (`PASSWORD_RESET`, …).
    init(requestType: String?) {
        switch requestType.flatMap(OobRequestType.init(rawValue:)) {
        case .passwordReset?: self = .passwordReset
        case .verifyEmail?: self = .verifyEmail
        case .recoverEmail?: self = .recoverEmail
        case .emailSignIn?: self = .emailLink
        case .verifyAndChangeEmail?: self = .verifyAndChangeEmail
        case nil: self = requestType == "REVERT_SECOND_FACTOR_ADDITION" ? .revertSecondFactorAddition : .unknown
        }
    }

    /// The operation of a link's `mode` (`resetPassword`, `signIn`, …).
    init(mode: String?) {
        if mode == "revertSecondFactorAddition" {
            self = .revertSecondFactorAddition
        } else {
            self.init(requestType: mode.flatMap(OobRequestType.init(mode:))?.rawValue)
        }
    }
}

/// What `checkActionCode(_:)` learned about a code (Firebase's `ActionCodeInfo`).
public struct ActionCodeInfo: Sendable, Equatable {
    /// What the code does.
    public let operation: ActionCodeOperation
    /// The address the code is about: for `.recoverEmail` and `.verifyAndChangeEmail` the new address, otherwise
    /// the one the code was sent to. Empty when the server does not reveal it (email-link codes).
    public let email: String
    /// For `.recoverEmail` and `.verifyAndChangeEmail`: the address the account had before.
    public let previousEmail: String?

    /// Firebase's rule: with a `newEmail` in the answer, `email` is the new address and `previousEmail` the other.
    init(operation: ActionCodeOperation, email: String?, newEmail: String?) {
        self.operation = operation
        if let newEmail {
            self.email = newEmail
            previousEmail = email
        } else {
            self.email = email ?? ""
            previousEmail = nil
        }
    }
}

/// The parts of an email action link (Firebase's `ActionCodeURL`): `ActionCodeURL(link:)` reads
/// `<server>/__/auth/action?mode=…&oobCode=…&apiKey=…&continueUrl=…&lang=…`, also when it is wrapped in another
/// link's `link=` or `deep_link_id=` (Dynamic Links, universal-link redirects).
public struct ActionCodeURL: Sendable, Equatable {
    /// The project's API key the link carries.
    public let apiKey: String?
    /// What the code does (from `mode`).
    public let operation: ActionCodeOperation
    /// The action code (`oobCode`).
    public let code: String?
    /// Where to go after the action.
    public let continueURL: URL?
    /// The language of the action pages.
    public let languageCode: String?

    /// The parts of `link`, or nil when it is not an action link (no query, not a URL, longer than 16 KiB).
    public init?(link: String) {
        guard let query = EmailActionLink.actionQuery(of: link) else { return nil }
        apiKey = query["apiKey"]
        operation = ActionCodeOperation(mode: query["mode"])
        code = query["oobCode"]
        continueURL = query["continueUrl"].flatMap(URL.init(string:))
        languageCode = query["lang"]
    }
}

/// Reading email action links.
enum EmailActionLink {
    /// Links longer than this are not action links (the server's links are a few hundred characters; a continue
    /// URL is limited well below this), and are not parsed.
    static let maximumLength = 16 * 1024

    /// The query of the action link in `link`: its own, or that of a link wrapped in `link=` / `deep_link_id=`
    /// (two levels at most, as Firebase's Dynamic Links nest them). Nil when there is none with an `oobCode` or
    /// `mode`, or when `link` is no URL.
    static func actionQuery(of link: String) -> [String: String]? {
        guard !link.isEmpty, link.utf8.count <= maximumLength else { return nil }
        return actionQuery(of: link, depth: 0)
    }

    private static func actionQuery(of link: String, depth: Int) -> [String: String]? {
        guard let items = URLComponents(string: link)?.queryItems, !items.isEmpty else { return nil }
        var query: [String: String] = [:]
        for item in items where query[item.name] == nil {
            if let value = item.value { query[item.name] = value }
        }
        if query["oobCode"] != nil || query["mode"] != nil { return query }
        guard depth < 2 else { return nil }
        for key in [AuthHandlerParameter.deepLinkId.rawValue, AuthHandlerParameter.link.rawValue] {
            if let inner = query[key], let found = actionQuery(of: inner, depth: depth + 1) { return found }
        }
        return nil
    }

    /// The code of an email sign-in link: `oobCode` present and not empty, `mode=signIn`.
    static func signInCode(of link: String) -> String? {
        guard let query = actionQuery(of: link), query["mode"] == OobRequestType.emailSignIn.mode,
              let code = query["oobCode"], !code.isEmpty
        else { return nil }
        return code
    }
}
