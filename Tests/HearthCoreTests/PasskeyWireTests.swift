import Foundation
import HearthWire
import Testing

/// The passkey RPCs' JSON as Firebase's preview SDKs send and read it (shapes: docs/design-notes/issue-23.md).
@Suite struct PasskeyWireTests {
    @Test func pathsAreTheV2Methods() {
        #expect(WirePaths.passkeyEnrollmentStart == "/identitytoolkit.googleapis.com/v2/accounts/passkeyEnrollment:start")
        #expect(WirePaths.passkeySignInFinalize == "/identitytoolkit.googleapis.com/v2/accounts/passkeySignIn:finalize")
    }

    /// The JS SDK sends unpadded base64url; the Apple SDK standard padded base64. Both name the same credential.
    @Test func credentialIdsInEitherAlphabetNormalizeToOneForm() throws {
        let raw: [UInt8] = [0xfb, 0xff, 0x3e, 0x00, 0x01]
        let url = PasskeyBytes.url(raw)
        let standard = PasskeyBytes.standard(raw)
        #expect(url == "-_8-AAE")
        #expect(standard == "+/8+AAE=")
        #expect(PasskeyBytes.normalizedCredentialId(standard) == url)
        #expect(PasskeyBytes.normalizedCredentialId(url) == url)
        #expect(PasskeyBytes.normalizedCredentialId(url + "=") == url)
        #expect(PasskeyBytes.decode("not base64!") == nil)
    }

    @Test func finalizeRequestsDecodeAsTheSDKsSendThem() throws {
        let js = #"""
        {"idToken":"t","name":"Laptop","displayName":"Laptop","authenticatorRegistrationResponse":{"id":"-_8-AAE","rawId":"-_8-AAE",
         "type":"public-key","authenticatorAttachment":"platform","response":{"clientDataJSON":"eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0",
         "attestationObject":"o2NmbXRkbm9uZQ","transports":["internal"]}}}
        """#
        let enrollment = try JSONDecoder().decode(FinalizePasskeyEnrollmentRequest.self, from: Data(js.utf8))
        #expect(enrollment.name == "Laptop")
        #expect(enrollment.authenticatorRegistrationResponse?.response?.transports == ["internal"])
        let ios = #"{"authenticatorAuthenticationResponse":{"id":"+/8+AAE=","response":{"clientDataJSON":"e30=","authenticatorData":"AAAA","signature":"MEU=","userHandle":"dXNlcg=="}}}"#
        let signIn = try JSONDecoder().decode(FinalizePasskeySignInRequest.self, from: Data(ios.utf8))
        #expect(PasskeyBytes.decode(signIn.authenticatorAuthenticationResponse?.response?.userHandle ?? "") == Array("user".utf8))
        // The Apple SDK's start without a tenant has no body; an empty object decodes.
        #expect(try JSONDecoder().decode(StartPasskeySignInRequest.self, from: Data("{}".utf8)) == StartPasskeySignInRequest())
    }

    /// What the server answers: the challenge and user handle in standard padded base64, the full WebAuthn
    /// dictionary (the JS SDK hands it to navigator.credentials.create).
    @Test func creationOptionsEncodeAsBrowsersTakeThem() throws {
        let options = PasskeyCreationOptions(
            rp: .init(id: "localhost", name: "Hearth"), user: .init(id: PasskeyBytes.standard([1, 2, 3, 4, 250]), name: "ada", displayName: "Ada"),
            challenge: PasskeyBytes.standard(Array(repeating: 0xfb, count: 32)), pubKeyCredParams: [.init(alg: -7), .init(alg: -8), .init(alg: -257)],
            timeout: 300_000, excludeCredentials: [.init(id: "-_8-AAE", transports: ["internal"])],
            authenticatorSelection: .init(residentKey: "required", requireResidentKey: true, userVerification: "required"), attestation: "none")
        let json = try #require(try JSONSerialization.jsonObject(with: WireJSON.encoder.encode(StartPasskeyEnrollmentResponse(credentialCreationOptions: options))) as? [String: Any])
        let creation = try #require(json["credentialCreationOptions"] as? [String: Any])
        #expect((creation["user"] as? [String: Any])?["id"] as? String == "AQIDBPo=")
        #expect((creation["challenge"] as? String)?.hasSuffix("=") == true)
        #expect((creation["challenge"] as? String)?.contains("+") == true)
        #expect((creation["pubKeyCredParams"] as? [[String: Any]])?.map { $0["alg"] as? Int } == [-7, -8, -257])
        #expect((creation["pubKeyCredParams"] as? [[String: Any]])?.allSatisfy { $0["type"] as? String == "public-key" } == true)
    }

    @Test func passkeyErrorStringsAreFirebases() {
        #expect(ServerErrorCode.invalidAuthenticatorResponse.rawValue == "INVALID_AUTHENTICATOR_RESPONSE")
        #expect(ServerErrorCode.passkeyEnrollmentNotFound.httpStatus == 400)
        #expect(ServerErrorCode(rawValue: "PASSKEY_CHALLENGE_TIMEOUT") == .passkeyChallengeTimeout)
    }
}
