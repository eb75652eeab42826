import Foundation
import HearthAuth
import HearthServer
import HearthTesting
import HearthWire
import Hummingbird
import Testing

/// Issue 39, item 3, as an app sees it: HearthAuth against a real server whose blocking functions refuse or change a
/// sign-up. A refusal is Firebase's Apple SDK code 17105 (`blockingCloudFunctionError`) with the function's own
/// message as the description; an answer's claims are in the new user's ID token.
@Suite struct BlockingFunctionAuthSDKTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    /// Issue 39, item 3: a beforeCreate refusal reaches `Auth.createUser` as `blockingCloudFunctionError` (17105) whose
    /// description is the function's message (not the envelope's JSON), and no user is signed in or stored; an
    /// allowed sign-up carries the role claim the function added.
    @Test func refusalsAreBlockingCloudFunctionErrorsWithTheFunctionsMessage() async throws {
        try await HearthHarness.run(store: .sqlite, configure: { configuration in
            configuration.blockingFunctions.development = true
        }) { h in
            try await h.withHookEndpoint { hooks in
                let body = #"{"blockingFunctions":{"triggers":{"beforeCreate":{"functionUri":"\#(hooks.url(for: .beforeCreate))"}}}}"#
                let patched = try await h.send(.patch, WirePaths.identityToolkitV2 + "/projects/\(h.projectId)/config?updateMask=blockingFunctions",
                                               body: body, headers: Self.owner)
                #expect(patched.status == 200, "\(patched.text)")
                let auth = TenantEndToEndTests.makeAuth(h, tenant: nil)

                hooks.answerNext(.beforeCreate, with: .refuse("Only acme.com addresses may sign up"))
                do {
                    _ = try await auth.createUser(withEmail: "eve@evil.example", password: "correct horse")
                    Issue.record("a refused sign-up signed in")
                } catch let error as NSError {
                    #expect(error.code == AuthErrorCode.blockingCloudFunctionError.rawValue, "\(error)")
                    #expect(error.localizedDescription == "Only acme.com addresses may sign up")
                    #expect(error.userInfo[AuthErrorUserInfoNameKey] as? String == "BLOCKING_FUNCTION_ERROR_RESPONSE")
                }
                #expect(auth.currentUser == nil)
                #expect(try await h.store.user(email: "eve@evil.example") == nil)

                hooks.answerNext(.beforeCreate, with: .customClaims(["role": .string("member")]))
                let user = try await auth.createUser(withEmail: "ada@acme.com", password: "correct horse").user
                let result = try await user.getIDTokenResult()
                #expect(result.claims["role"] as? String == "member")
            }
        }
    }
}
