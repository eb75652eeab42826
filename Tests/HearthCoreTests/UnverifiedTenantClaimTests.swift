import Foundation
@testable import HearthWire
import Testing

/// Issue 38, item 2: the tenant an ID token claims, read before its signature is checked (to pick the scope the
/// token is then verified in). It runs on every lookup and update, so it is a byte reader; these pin what it reads.
@Suite struct UnverifiedTenantClaimTests {
    func token(payload: String, header: String = #"{"alg":"RS256","kid":"k"}"#, signature: String = "c2ln") -> String {
        Data(header.utf8).base64URLEncodedString() + "." + Data(payload.utf8).base64URLEncodedString() + "." + signature
    }

    @Test func readsTheTenantOfATenantsToken() {
        let claim = UnverifiedTenantClaim.of(token(payload: #"{"sub":"u1","firebase":{"sign_in_provider":"password","tenant":"acme-x7k2p"}}"#))
        #expect(claim == "acme-x7k2p")
    }

    @Test func aProjectTokenHasNone() {
        #expect(UnverifiedTenantClaim.of(token(payload: #"{"sub":"u1","firebase":{"sign_in_provider":"password"}}"#)) == nil)
    }

    /// `"tenant"` elsewhere (a claim's name or value) is not the tenant: only `firebase.tenant` counts.
    @Test func tenantOutsideFirebaseIsNotTheTenant() {
        #expect(UnverifiedTenantClaim.of(token(payload: #"{"sub":"u1","tenant":"evil","role":"\"tenant\"","firebase":{}}"#)) == nil)
        #expect(UnverifiedTenantClaim.of(token(payload: #"{"firebase":{"tenant":42}}"#)) == nil)
    }

    /// Base64url's `-` and `_` (a payload whose bytes need them) and a payload without padding decode.
    @Test func base64URLAlphabetAndNoPadding() throws {
        let payload = #"{"firebase":{"tenant":"t-1"},"x":"~~~???>>>"}"#
        let encoded = Data(payload.utf8).base64URLEncodedString()
        #expect(encoded.contains("-") || encoded.contains("_"))
        #expect(!encoded.contains("="))
        #expect(UnverifiedTenantClaim.of("e30." + encoded + ".sig") == "t-1")
    }

    @Test func malformedTokensHaveNone() {
        let good = token(payload: #"{"firebase":{"tenant":"t-1"}}"#)
        #expect(UnverifiedTenantClaim.of(good) == "t-1")
        #expect(UnverifiedTenantClaim.of("") == nil)
        #expect(UnverifiedTenantClaim.of("a.b") == nil)
        #expect(UnverifiedTenantClaim.of(good + ".extra") == nil)
        #expect(UnverifiedTenantClaim.of("..") == nil)
        #expect(UnverifiedTenantClaim.of("e30.!!!!.sig") == nil)
        #expect(UnverifiedTenantClaim.of("e30.\u{0}\u{0}.sig") == nil)
        #expect(UnverifiedTenantClaim.of(token(payload: #"{"firebase":{"tenant":"t-1""#)) == nil)
        // An oversized payload is not read at all.
        let huge = #"{"firebase":{"tenant":"t-1"},"pad":""# + String(repeating: "a", count: 20_000) + #""}"#
        #expect(UnverifiedTenantClaim.of(token(payload: huge)) == nil)
    }

    @Test func byteSearch() {
        let data = Data("xx\"tenant\"yy".utf8)
        #expect(UnverifiedTenantClaim.contains(data, Array("\"tenant\"".utf8)))
        #expect(!UnverifiedTenantClaim.contains(Data("\"tenan".utf8), Array("\"tenant\"".utf8)))
        #expect(UnverifiedTenantClaim.contains(Data("\"tenant\"".utf8), Array("\"tenant\"".utf8)))
        #expect(!UnverifiedTenantClaim.contains(Data(), Array("a".utf8)))
        #expect(UnverifiedTenantClaim.contains(Data("aab".utf8), Array("ab".utf8)))
    }
}
