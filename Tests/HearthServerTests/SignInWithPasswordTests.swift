import Foundation
import HearthServer
import HearthTesting
import HearthWire
import Testing

@Suite struct SignInWithPasswordTests {
    @Test func rightPasswordSignsIn() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            let reply = try await h.signIn(email: "ADA@example.com ")
            #expect(reply.status == 200)
            let body = try reply.decode(SignInWithPasswordResponse.self)
            #expect(body.localId == created.localId)
            #expect(body.registered)
            #expect(body.idToken != nil)
            #expect(reply.json?["kind"] as? String == "identitytoolkit#VerifyPasswordResponse")
            let v3 = try await h.post(WirePaths.v3("verifyPassword"), SignInWithPasswordRequest(email: "ada@example.com", password: "correct horse"))
            #expect(v3.status == 200)
        }
    }

    @Test func wrongPasswordAndUnknownEmailLookTheSame() async throws {
        try await HearthHarness.run { h in
            _ = try await h.signUp(email: "ada@example.com")
            let wrong = try await h.signIn(email: "ada@example.com", password: "wrong password")
            let unknown = try await h.signIn(email: "nobody@example.com", password: "wrong password")
            #expect(wrong.status == 400)
            #expect(wrong.errorCode == "INVALID_LOGIN_CREDENTIALS")
            #expect(unknown.errorCode == "INVALID_LOGIN_CREDENTIALS")
            #expect(wrong.text == unknown.text)
        }
    }

    @Test(arguments: [
        (#"{"password":"x"}"#, "INVALID_EMAIL"),
        (#"{"email":"bad","password":"x"}"#, "INVALID_EMAIL"),
        (#"{"email":"ada@example.com"}"#, "MISSING_PASSWORD"),
    ])
    func inputErrors(_ body: String, _ code: String) async throws {
        try await HearthHarness.run { h in
            let reply = try await h.post(WirePaths.accounts("signInWithPassword"), raw: body)
            #expect(reply.status == 400)
            #expect(reply.errorCode == code)
        }
    }

    @Test func disabledUserCannotSignIn() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            var user = try #require(try await h.store.user(localId: created.localId))
            user.disabled = true
            try await h.store.updateUser(user)
            let reply = try await h.signIn(email: "ada@example.com")
            #expect(reply.errorCode == "USER_DISABLED")
            // A wrong password does not reveal that the account is disabled.
            #expect(try await h.signIn(email: "ada@example.com", password: "nope-nope").errorCode == "INVALID_LOGIN_CREDENTIALS")
        }
    }

    @Test func repeatedFailuresAreThrottledPerAccount() async throws {
        try await HearthHarness.run(configure: { $0.throttle = ThrottleConfiguration(maxFailuresPerAccount: 3, maxFailuresPerAddress: 100, window: 60) }) { h in
            _ = try await h.signUp(email: "ada@example.com")
            for _ in 0..<3 {
                #expect(try await h.signIn(email: "ada@example.com", password: "guess-guess").errorCode == "INVALID_LOGIN_CREDENTIALS")
            }
            // Even the right password is refused while throttled.
            let throttled = try await h.signIn(email: "ada@example.com")
            #expect(throttled.status == 400)
            #expect(throttled.errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
            // Another account from the same address is not affected.
            _ = try await h.signUp(email: "bob@example.com")
            #expect(try await h.signIn(email: "bob@example.com").status == 200)
            // After the window the account works again.
            h.clock.advance(by: 61)
            #expect(try await h.signIn(email: "ada@example.com").status == 200)
        }
    }

    @Test func repeatedFailuresAreThrottledPerAddress() async throws {
        try await HearthHarness.run(configure: { $0.throttle = ThrottleConfiguration(maxFailuresPerAccount: 100, maxFailuresPerAddress: 4, window: 60) }) { h in
            _ = try await h.signUp(email: "ada@example.com")
            for index in 0..<4 {
                _ = try await h.signIn(email: "victim\(index)@example.com", password: "guess-guess")
            }
            #expect(try await h.signIn(email: "ada@example.com").errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
        }
    }
}

@Suite struct FormBodyTests {
    @Test func formBodiesKeepStringsAndReadBooleans() async throws {
        try await HearthHarness.run { h in
            // A display name that reads like a boolean stays a string; returnSecureToken=true is a boolean.
            let signUp = try await h.send(.post, WirePaths.accounts("signUp") + "?key=k",
                                          body: "email=form%40example.com&password=secret+1&displayName=true&returnSecureToken=true",
                                          contentType: "application/x-www-form-urlencoded")
            #expect(signUp.status == 200, "\(signUp.text)")
            #expect(try signUp.decode(SignUpResponse.self).displayName == "true")
            #expect(try signUp.decode(SignUpResponse.self).idToken != nil)
            let signIn = try await h.send(.post, WirePaths.accounts("signInWithPassword") + "?key=k", body: "email=form%40example.com&password=secret+1",
                                          contentType: "application/x-www-form-urlencoded")
            #expect(signIn.status == 200)
            let wrongType = try await h.send(.post, WirePaths.accounts("signUp") + "?key=k", body: "returnSecureToken=maybe",
                                             contentType: "application/x-www-form-urlencoded")
            #expect(wrongType.errorCode == "INVALID_JSON_PAYLOAD")
        }
    }
}
