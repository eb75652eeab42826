import Foundation
@testable import HearthAuth
import HearthTesting
import HearthWire
import Testing

/// Email actions without a server: settings on the wire, link parsing, error mapping, the requests sent.
@Suite struct EmailActionsUnitTests {
    static let link = "http://127.0.0.1:9099/__/auth/action?mode=signIn&oobCode=CODE-123&apiKey=demo-key&continueUrl=https%3A%2F%2Fapp.example.com%2Fdone%3Fx%3D1&lang=en"

    @Test func settingsMapToTheWireAsFirebaseSendsThem() throws {
        let settings = ActionCodeSettings()
        settings.url = URL(string: "https://app.example.com/finish?cart=7")
        settings.handleCodeInApp = true
        settings.setIOSBundleID("com.example.app")
        settings.setAndroidPackageName("com.example.android", installIfNotAvailable: true, minimumVersion: "12")
        settings.linkDomain = "links.example.com"
        #expect(settings.iOSBundleID == "com.example.app")
        #expect(settings.androidInstallIfNotAvailable && settings.androidMinimumVersion == "12")
        let wire = settings.wire
        #expect(wire == ActionCodeSettingsWire(continueUrl: "https://app.example.com/finish?cart=7", canHandleCodeInApp: true,
                                               iOSBundleId: "com.example.app", androidPackageName: "com.example.android",
                                               androidInstallApp: true, androidMinimumVersion: "12", linkDomain: "links.example.com"))
        // In the request, under Identity Toolkit's names.
        let body = try JSONSerialization.jsonObject(with: JSONEncoder().encode(
            SendOobCodeRequest(requestType: .emailSignIn, email: "a@example.com", settings: wire))) as? [String: Any]
        #expect(body?["continueUrl"] as? String == "https://app.example.com/finish?cart=7")
        #expect(body?["canHandleCodeInApp"] as? Bool == true)
        #expect(body?["iOSBundleId"] as? String == "com.example.app")
        #expect(body?["androidPackageName"] as? String == "com.example.android")
        #expect(body?["androidInstallApp"] as? Bool == true)
        #expect(body?["androidMinimumVersion"] as? String == "12")
        #expect(body?["linkDomain"] as? String == "links.example.com")
        #expect(body?["requestType"] as? String == "EMAIL_SIGNIN")

        // False flags and unset values are left out, as Firebase's SDK leaves them.
        let plain = ActionCodeSettings()
        plain.iOSBundleID = nil
        plain.url = URL(string: "https://app.example.com/")
        let plainBody = try JSONSerialization.jsonObject(with: JSONEncoder().encode(
            SendOobCodeRequest(requestType: .passwordReset, email: "a@example.com", settings: plain.wire))) as? [String: Any]
        #expect(plainBody?["canHandleCodeInApp"] == nil)
        #expect(plainBody?["androidInstallApp"] == nil)
        #expect(plainBody?["iOSBundleId"] == nil)
        #expect(plainBody?["continueUrl"] as? String == "https://app.example.com/")
    }

    @Test func isSignInWithEmailLinkOnGoodBadWrappedGarbageAndHugeLinks() {
        let auth = Self.auth(RecordingBackend())
        #expect(auth.isSignIn(withEmailLink: Self.link))
        #expect(auth.isSignIn(withEmailLink: "https://app.example.com/finish?oobCode=X&mode=signIn"))
        // Another action, no code, an empty code, no mode.
        #expect(!auth.isSignIn(withEmailLink: Self.link.replacingOccurrences(of: "mode=signIn", with: "mode=resetPassword")))
        #expect(!auth.isSignIn(withEmailLink: Self.link.replacingOccurrences(of: "oobCode=CODE-123&", with: "")))
        #expect(!auth.isSignIn(withEmailLink: Self.link.replacingOccurrences(of: "oobCode=CODE-123", with: "oobCode=")))
        #expect(!auth.isSignIn(withEmailLink: "https://x.example.com/__/auth/action?oobCode=X"))
        #expect(!auth.isSignIn(withEmailLink: "https://x.example.com/__/auth/action?mode=SIGNIN&oobCode=X"))
        // Wrapped: a Dynamic Link's link=, an iOS deep_link_id=, and one inside the other.
        let escaped = Self.escape(Self.link)
        #expect(auth.isSignIn(withEmailLink: "https://example.page.link/?link=\(escaped)&apn=com.example&ibi=com.example"))
        #expect(auth.isSignIn(withEmailLink: "com.example.app://google/link?deep_link_id=\(escaped)"))
        let double = "https://example.page.link/?link=\(Self.escape("https://example.page.link/?deep_link_id=\(escaped)"))"
        #expect(auth.isSignIn(withEmailLink: double))
        #expect(!auth.isSignIn(withEmailLink: "https://example.page.link/?link=\(Self.escape("https://app.example.com/?mode=resetPassword&oobCode=X"))"))
        #expect(!auth.isSignIn(withEmailLink: "https://example.page.link/?link=not%20a%20link"))
        // Garbage.
        for garbage in ["", " ", "signIn", "oobCode=X&mode=signIn", "://", "http://", "?", "%%%", "mode=signIn&oobCode=X with spaces",
                        "https://[::1", "\u{0}\u{1}", "héllo?mode=signIn", String(repeating: "?", count: 1000)] {
            #expect(!auth.isSignIn(withEmailLink: garbage), "\(garbage.prefix(40))")
        }
        // Huge: a link over 16 KiB is no sign-in link (and is not parsed); a garbage one of 1 MB answers at once.
        let padded = Self.link + "&pad=" + String(repeating: "a", count: 17 * 1024)
        #expect(!auth.isSignIn(withEmailLink: padded))
        #expect(auth.isSignIn(withEmailLink: Self.link + "&pad=" + String(repeating: "a", count: 8 * 1024)))
        let started = ContinuousClock.now
        #expect(!auth.isSignIn(withEmailLink: String(repeating: "link=", count: 200_000)))
        #expect(!auth.isSignIn(withEmailLink: String(repeating: "https://a/?link=", count: 900)))
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    @Test func actionCodeURLReadsTheLinksParts() throws {
        let url = try #require(ActionCodeURL(link: Self.link))
        #expect(url.operation == .emailLink)
        #expect(url.code == "CODE-123")
        #expect(url.apiKey == "demo-key")
        #expect(url.continueURL?.absoluteString == "https://app.example.com/done?x=1")
        #expect(url.languageCode == "en")
        let modes: [(String, ActionCodeOperation)] = [("resetPassword", .passwordReset), ("verifyEmail", .verifyEmail), ("recoverEmail", .recoverEmail),
                                                      ("verifyAndChangeEmail", .verifyAndChangeEmail), ("signIn", .emailLink),
                                                      ("revertSecondFactorAddition", .revertSecondFactorAddition), ("other", .unknown)]
        for (mode, operation) in modes {
            #expect(ActionCodeURL(link: "https://h/__/auth/action?mode=\(mode)&oobCode=C")?.operation == operation, "\(mode)")
        }
        #expect(ActionCodeURL(link: "https://h/?link=\(Self.escape(Self.link))")?.code == "CODE-123")
        #expect(ActionCodeURL(link: "https://h/no/query") == nil)
        #expect(ActionCodeURL(link: "not a link") == nil)
    }

    @Test func actionCodeInfoFollowsFirebasesRules() {
        #expect(ActionCodeOperation(requestType: "PASSWORD_RESET") == .passwordReset)
        #expect(ActionCodeOperation(requestType: "VERIFY_EMAIL") == .verifyEmail)
        #expect(ActionCodeOperation(requestType: "RECOVER_EMAIL") == .recoverEmail)
        #expect(ActionCodeOperation(requestType: "EMAIL_SIGNIN") == .emailLink)
        #expect(ActionCodeOperation(requestType: "VERIFY_AND_CHANGE_EMAIL") == .verifyAndChangeEmail)
        #expect(ActionCodeOperation(requestType: "NEW_KIND") == .unknown)
        #expect(ActionCodeOperation(requestType: nil) == .unknown)
        // With a newEmail, email is the new address and previousEmail the one sent with it.
        let change = ActionCodeInfo(operation: .recoverEmail, email: "old@example.com", newEmail: "new@example.com")
        #expect(change.email == "new@example.com" && change.previousEmail == "old@example.com")
        let reset = ActionCodeInfo(operation: .passwordReset, email: "a@example.com", newEmail: nil)
        #expect(reset.email == "a@example.com" && reset.previousEmail == nil)
        #expect(ActionCodeInfo(operation: .emailLink, email: nil, newEmail: nil).email == "")
    }

    @Test func theNewServerStringsMapToFirebasesCodes() {
        let expected: [ServerErrorCode: AuthErrorCode] = [
            .expiredOobCode: .expiredActionCode, .invalidOobCode: .invalidActionCode, .missingOobCode: .invalidActionCode,
            .missingRequestType: .invalidReqType, .invalidRequestType: .invalidReqType, .missingNewEmail: .missingEmail,
            .missingIosBundleId: .missingIosBundleID, .missingAndroidPackageName: .missingAndroidPackageName,
            .resetPasswordExceedLimit: .tooManyRequests, .quotaExceeded: .quotaExceeded, .emailNotConfigured: .emailSendingNotConfigured,
            .unauthorizedDomain: .unauthorizedDomain, .invalidContinueUri: .invalidContinueURI, .missingContinueUri: .missingContinueURI,
            .emailExists: .emailAlreadyInUse, .emailNotFound: .userNotFound, .userDisabled: .userDisabled, .weakPassword: .weakPassword,
            .invalidEmail: .invalidEmail, .missingEmail: .missingEmail,
        ]
        for (server, client) in expected {
            #expect(AuthErrorUtils.code(forServerError: server.rawValue, reason: server.reason) == client, "\(server.rawValue)")
        }
        // Firebase's numbers.
        #expect(AuthErrorCode.expiredActionCode.rawValue == 17029)
        #expect(AuthErrorCode.invalidActionCode.rawValue == 17030)
        #expect(AuthErrorCode.missingIosBundleID.rawValue == 17036)
        #expect(AuthErrorCode.missingAndroidPackageName.rawValue == 17037)
        #expect(AuthErrorCode.quotaExceeded.rawValue == 17052)
        #expect(AuthErrorCode.invalidReqType.rawValue == 17207)
        #expect(Set(AuthErrorCode.allCases.map(\.rawValue)).count == AuthErrorCode.allCases.count)
    }

    @Test func requestsGoToFirebasesPathsWithFirebasesFields() async throws {
        let backend = RecordingBackend()
        let auth = Self.auth(backend)
        let settings = ActionCodeSettings()
        settings.iOSBundleID = nil
        settings.url = URL(string: "https://app.example.com/finish")
        settings.handleCodeInApp = true
        backend.answer(WirePaths.v3("getOobConfirmationCode"), #"{"kind":"k","email":"a@example.com"}"#)
        try await auth.sendPasswordReset(withEmail: "a@example.com")
        try await auth.sendSignInLink(toEmail: "b@example.com", actionCodeSettings: settings)
        backend.answer(WirePaths.v3("resetPassword"), #"{"kind":"k","email":"old@example.com","newEmail":"new@example.com","requestType":"RECOVER_EMAIL"}"#)
        let info = try await auth.checkActionCode("C1")
        #expect(info.operation == .recoverEmail && info.email == "new@example.com" && info.previousEmail == "old@example.com")
        try await auth.confirmPasswordReset(withCode: "C2", newPassword: "new horse")
        backend.answer(WirePaths.v3("setAccountInfo"), #"{"kind":"k","localId":"u","emailVerified":true,"providerUserInfo":[]}"#)
        try await auth.applyActionCode("C3")
        let sent = backend.requests.value
        #expect(sent.map(\.path) == [WirePaths.v3("getOobConfirmationCode"), WirePaths.v3("getOobConfirmationCode"), WirePaths.v3("resetPassword"),
                                     WirePaths.v3("resetPassword"), WirePaths.v3("setAccountInfo")])
        #expect(sent[0].body["requestType"] as? String == "PASSWORD_RESET" && sent[0].body["email"] as? String == "a@example.com")
        #expect(sent[0].body["continueUrl"] == nil && sent[0].body["idToken"] == nil)
        #expect(sent[1].body["requestType"] as? String == "EMAIL_SIGNIN" && sent[1].body["canHandleCodeInApp"] as? Bool == true)
        #expect(sent[1].body["continueUrl"] as? String == "https://app.example.com/finish")
        #expect(sent[2].body["oobCode"] as? String == "C1" && sent[2].body["newPassword"] == nil)
        #expect(sent[3].body["oobCode"] as? String == "C2" && sent[3].body["newPassword"] as? String == "new horse")
        #expect(sent[4].body["oobCode"] as? String == "C3" && sent[4].body["idToken"] == nil)

        // A link that is no sign-in link fails on the client, before any request.
        let before = backend.requests.value.count
        await #expect { try await auth.signIn(withEmail: "a@example.com", link: "https://app.example.com/?mode=resetPassword&oobCode=X") } throws: { error in
            (error as NSError).code == AuthErrorCode.invalidActionCode.rawValue
        }
        await #expect { try await auth.signIn(with: EmailAuthProvider.credential(withEmail: "a@example.com", link: "garbage")) } throws: { error in
            (error as NSError).code == AuthErrorCode.invalidActionCode.rawValue
        }
        #expect(backend.requests.value.count == before)
        // The credentials carry what they were made with.
        let linkCredential = EmailAuthProvider.credential(withEmail: "a@example.com", link: Self.link) as? EmailAuthCredential
        #expect(linkCredential?.provider == "password" && linkCredential?.link == Self.link && linkCredential?.password == nil)
        let passwordCredential = EmailAuthProvider.credential(withEmail: "a@example.com", password: "pw") as? EmailAuthCredential
        #expect(passwordCredential?.password == "pw" && passwordCredential?.link == nil)
    }

    static func auth(_ backend: RecordingBackend) -> Auth {
        Auth(configuration: AuthConfiguration(serverURL: URL(string: "http://127.0.0.1:1")!, apiKey: "k-\(UUID().uuidString.prefix(8))",
                                              projectId: "p", persistence: InMemoryUserPersistence(), backend: backend))
    }

    static func escape(_ text: String) -> String { FormEscape.escape(text) }
}

/// A backend that records what is sent and answers canned JSON (`{"kind":"k"}` unless told otherwise).
final class RecordingBackend: AuthBackend {
    struct Sent: @unchecked Sendable {
        // Safe: the body holds only JSON values (strings, numbers, arrays and dictionaries of them) and is never mutated.
        let path: String
        let body: [String: Any]
    }

    let requests = Locked<[Sent]>([])
    private let answers = Locked<[String: String]>([:])

    func answer(_ path: String, _ json: String) {
        answers.mutate { $0[path] = json }
    }

    func post<Body: Encodable & Sendable, Answer: Decodable & Sendable>(_ path: String, _ body: Body, as type: Answer.Type) async throws -> Answer {
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(body)) as? [String: Any] ?? [:]
        requests.mutate { $0.append(Sent(path: path, body: object)) }
        return try JSONDecoder().decode(Answer.self, from: Data((answers.value[path] ?? #"{"kind":"k"}"#).utf8))
    }
}
