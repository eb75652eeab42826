import Foundation
import HearthCore
import HearthTesting
import HearthWire
import Testing

@Suite struct SignUpTests {
    @Test func emailPasswordSignUpReturnsSessionTokens() async throws {
        try await HearthHarness.run { h in
            let reply = try await h.post(WirePaths.accounts("signUp"), raw: #"{"email":"Ada@Example.com","password":"correct horse","displayName":"Ada","returnSecureToken":true}"#)
            #expect(reply.status == 200)
            let body = try reply.decode(SignUpResponse.self)
            #expect(body.email == "ada@example.com")
            #expect(body.displayName == "Ada")
            #expect(body.localId.count == 28)
            #expect(body.expiresIn == "3600")
            #expect(body.refreshToken?.isEmpty == false)
            let idToken = try #require(body.idToken)
            let claims = try #require(jwtPayload(idToken))
            #expect(claims["sub"] as? String == body.localId)
            #expect((claims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "password")
            #expect(reply.json?["kind"] as? String == "identitytoolkit#SignupNewUserResponse")
            // Never a password hash in a response.
            #expect(!reply.text.contains("scrypt"))
        }
    }

    @Test func legacyV3PathIsTheSameMethod() async throws {
        try await HearthHarness.run { h in
            let reply = try await h.post(WirePaths.v3("signupNewUser"), SignUpRequest(email: "v3@example.com", password: "secret1"))
            #expect(reply.status == 200)
            #expect(try reply.decode(SignUpResponse.self).email == "v3@example.com")
        }
    }

    @Test func anonymousSignUp() async throws {
        try await HearthHarness.run { h in
            let reply = try await h.post(WirePaths.accounts("signUp"), raw: #"{"returnSecureToken":true}"#)
            #expect(reply.status == 200)
            let body = try reply.decode(SignUpResponse.self)
            #expect(body.email == nil)
            let idToken = try #require(body.idToken)
            let claims = try #require(jwtPayload(idToken))
            #expect(claims["provider_id"] as? String == "anonymous")
            #expect((claims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "anonymous")
        }
    }

    @Test func anonymousUserUpgradesWithEmailAndPassword() async throws {
        try await HearthHarness.run { h in
            let anonymous = try await h.post(WirePaths.accounts("signUp"), raw: "{}").decode(SignUpResponse.self)
            let upgraded = try await h.post(WirePaths.accounts("signUp"), SignUpRequest(email: "later@example.com", password: "secret1", idToken: anonymous.idToken))
            #expect(upgraded.status == 200)
            #expect(try upgraded.decode(SignUpResponse.self).localId == anonymous.localId)
            let signIn = try await h.signIn(email: "later@example.com", password: "secret1")
            #expect(try signIn.decode(SignInWithPasswordResponse.self).localId == anonymous.localId)
        }
    }

    @Test(arguments: [
        (#"{"email":"ada@example.com"}"#, "MISSING_PASSWORD"),
        (#"{"email":"ada@example.com","password":""}"#, "MISSING_PASSWORD"),
        (#"{"email":"ada@example.com","password":"12345"}"#, "WEAK_PASSWORD"),
        (#"{"email":"not-an-email","password":"123456"}"#, "INVALID_EMAIL"),
        (#"{"password":"123456"}"#, "MISSING_EMAIL"),
        (#"{"email":"ada@example.com","password":"123456","displayName":1}"#, "INVALID_JSON_PAYLOAD"),
    ])
    func signUpErrors(_ body: String, _ code: String) async throws {
        try await HearthHarness.run { h in
            let reply = try await h.post(WirePaths.accounts("signUp"), raw: body)
            #expect(reply.status == 400)
            #expect(reply.errorCode == code)
        }
    }

    @Test func weakPasswordMessageMatchesFirebase() async throws {
        try await HearthHarness.run { h in
            let reply = try await h.post(WirePaths.accounts("signUp"), SignUpRequest(email: "ada@example.com", password: "123"))
            #expect(reply.envelope?.error.message == "WEAK_PASSWORD : Password should be at least 6 characters")
            #expect(reply.envelope?.error.errors.first?.reason == "invalid")
            #expect(reply.envelope?.error.errors.first?.domain == "global")
        }
    }

    @Test func duplicateEmailIsEmailExists() async throws {
        try await HearthHarness.run { h in
            _ = try await h.signUp(email: "ada@example.com")
            let reply = try await h.post(WirePaths.accounts("signUp"), SignUpRequest(email: "ADA@example.com", password: "another1"))
            #expect(reply.status == 400)
            #expect(reply.errorCode == "EMAIL_EXISTS")
        }
    }

    @Test func concurrentSignUpsWithOneEmailCreateExactlyOneAccount() async throws {
        try await HearthHarness.run { h in
            let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        let reply = try await h.post(WirePaths.accounts("signUp"), SignUpRequest(email: "race@example.com", password: "secret1"))
                        return (reply.status, reply.errorCode)
                    }
                }
                return try await group.reduce(into: [(Int, String?)]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0.0 == 200 }.count == 1)
            #expect(statuses.filter { $0.1 == "EMAIL_EXISTS" }.count == 19)
            #expect(try await h.store.userCount() == 1)
        }
    }

    @Test func disabledMethodsAreOperationNotAllowed() async throws {
        try await HearthHarness.run(configure: { config in
            var project = ProjectConfig(projectId: config.projectId)
            project.passwordSignInEnabled = false
            project.anonymousSignInEnabled = false
            config.initialProjectConfig = project
        }) { h in
            let password = try await h.post(WirePaths.accounts("signUp"), SignUpRequest(email: "a@example.com", password: "secret1"))
            #expect(password.errorCode == "OPERATION_NOT_ALLOWED")
            let anonymous = try await h.post(WirePaths.accounts("signUp"), raw: "{}")
            #expect(anonymous.errorCode == "OPERATION_NOT_ALLOWED")
            let signIn = try await h.signIn(email: "a@example.com")
            #expect(signIn.errorCode == "OPERATION_NOT_ALLOWED")
        }
    }
}
