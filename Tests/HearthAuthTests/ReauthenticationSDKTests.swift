import Foundation
@testable import HearthAuth
import HearthAuthExamples
import HearthCore
import HearthTesting
import Testing

/// Issue 13 item 4 through the SDK: `reauthenticate(with:)` with a provider account Hearth does not know is
/// `userMismatch` (the server's USER_NOT_FOUND), creates no account and keeps the user signed in.
@Suite struct ReauthenticationSDKTests {
    @Test func unknownAccountIsUserMismatchAndCreatesNothing() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let auth = AuthSDKTests.makeAuth(h)
            let signedIn = try await auth.createUser(withEmail: "ada@outlook.com", password: "correct horse")
            let before = try await h.store.userCount()
            // A Microsoft account with the same email, never linked: still not this user.
            for email in ["ada@outlook.com", "stranger@contoso.com"] {
                await #expect {
                    try await GuideExamples.reauthenticate(providerID: "microsoft.com", auth: auth, uiDelegate: ScriptedBrowserUIDelegate(email: email))
                } throws: { error in
                    (error as NSError).code == AuthErrorCode.userMismatch.rawValue
                }
            }
            #expect(try await h.store.userCount() == before)
            #expect(try await h.store.user(localId: signedIn.user.uid)?.identities.isEmpty == true)
            #expect(auth.currentUser?.uid == signedIn.user.uid, "a refused reauthentication keeps the user signed in")
        }
    }
}
