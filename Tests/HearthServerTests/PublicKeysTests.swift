import Foundation
import HearthCore
import HearthServer
import HearthTesting
import HearthWire
import JWTKit
import Testing
import X509

/// ID tokens verified the way third-party backends verify them: against the published x509 map and JWKS.
@Suite struct PublicKeysTests {
    @Test func idTokenVerifiesAgainstTheX509Map() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            let idToken = try #require(created.idToken)
            let reply = try await h.send(.get, WirePaths.x509Certificates)
            #expect(reply.status == 200)
            #expect(reply.headers[.cacheControl]?.contains("max-age=3600") == true)
            let map = try reply.decode([String: String].self)
            let kid = try #require(jwtHeader(idToken)?["kid"] as? String)
            #expect(jwtHeader(idToken)?["alg"] as? String == "RS256")
            let pem = try #require(map[kid])
            // The certificate parses as X.509 and holds an RSA key.
            let certificate = try Certificate(pemEncoded: pem)
            #expect(certificate.subject.description.contains("securetoken"))
            let keys = JWTKeyCollection()
            await keys.add(rsa: try Insecure.RSA.PublicKey(certificatePEM: pem), digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
            let claims = try await keys.verify(idToken, as: IDTokenClaims.self)
            #expect(claims.subject == created.localId)
            try claims.validate(projectId: "demo-hearth", now: h.clock.now)
        }
    }

    @Test func idTokenVerifiesAgainstTheJWKS() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            for path in [WirePaths.jwks, WirePaths.wellKnownJWKS] {
                let reply = try await h.send(.get, path)
                #expect(reply.status == 200)
                #expect(reply.headers[.cacheControl]?.contains("public") == true)
                let keys = JWTKeyCollection()
                try await keys.add(jwksJSON: reply.text)
                let claims = try await keys.verify(try #require(created.idToken), as: IDTokenClaims.self)
                #expect(claims.subject == created.localId)
            }
        }
    }

    @Test func forgedIDTokensAreRejected() async throws {
        try await HearthHarness.run { h in
            let created = try await h.signUp(email: "ada@example.com")
            let idToken = try #require(created.idToken)
            let parts = idToken.split(separator: ".").map(String.init)
            var payload = try #require(jwtPayload(idToken))
            let header = try #require(jwtHeader(idToken))

            // Tampered payload with the original signature.
            payload["sub"] = "someone-else"
            let tampered = try rawJWT(header: header, payload: payload).split(separator: ".")
            #expect(try await h.lookup("\(tampered[0]).\(tampered[1]).\(parts[2])").errorCode == "INVALID_ID_TOKEN")
            // alg none.
            #expect(try await h.lookup(try rawJWT(header: ["alg": "none", "kid": header["kid"]!], payload: jwtPayload(idToken)!)).errorCode == "INVALID_ID_TOKEN")
            // HS256 "signed" with the public certificate as the secret.
            let keys = try await h.store.signingKeys()
            let hmacKeys = JWTKeyCollection()
            await hmacKeys.add(hmac: HMACKey(from: keys[0].certificatePEM), digestAlgorithm: .sha256, kid: JWKIdentifier(string: keys[0].kid))
            let claims = try await JWTKeyCollection().unverified(idToken, as: IDTokenClaims.self)
            #expect(try await h.lookup(try await hmacKeys.sign(claims, kid: JWKIdentifier(string: keys[0].kid))).errorCode == "INVALID_ID_TOKEN")
            // Signed by an unknown key.
            let stranger = JWTKeyCollection()
            await stranger.add(rsa: try Insecure.RSA.PrivateKey(backing: .init(keySize: .bits2048)), digestAlgorithm: .sha256, kid: "unknown-kid")
            #expect(try await h.lookup(try await stranger.sign(claims, kid: "unknown-kid")).errorCode == "INVALID_ID_TOKEN")
            // Signed by an unknown key that claims Hearth's kid.
            let sameKid = JWTKeyCollection()
            await sameKid.add(rsa: try Insecure.RSA.PrivateKey(backing: .init(keySize: .bits2048)), digestAlgorithm: .sha256, kid: JWKIdentifier(string: keys[0].kid))
            #expect(try await h.lookup(try await sameKid.sign(claims, kid: JWKIdentifier(string: keys[0].kid))).errorCode == "INVALID_ID_TOKEN")
            // Hearth's own key, but for another project (wrong aud, wrong iss).
            let ours = JWTKeyCollection()
            await ours.add(rsa: try keys[0].jwtPrivateKey(), digestAlgorithm: .sha256, kid: JWKIdentifier(string: keys[0].kid))
            var otherAudience = claims
            otherAudience.audience = "other-project"
            #expect(try await h.lookup(try await ours.sign(otherAudience, kid: JWKIdentifier(string: keys[0].kid))).errorCode == "INVALID_ID_TOKEN")
            var otherIssuer = claims
            otherIssuer.issuer = IDTokenClaims.issuer(for: "other-project")
            #expect(try await h.lookup(try await ours.sign(otherIssuer, kid: JWKIdentifier(string: keys[0].kid))).errorCode == "INVALID_ID_TOKEN")
            // The genuine token still works.
            #expect(try await h.lookup(idToken).status == 200)
        }
    }
}

@Suite struct KeyRotationTests {
    @Test func keysRotateAndRetiredKeysStayPublishedUntilTheirTokensExpire() async throws {
        try await HearthHarness.run(configure: {
            $0.keyRotation = KeyRotationPolicy(rotationInterval: 7_200, prepublish: 600, tokenLifetime: 3_600, leeway: 300)
        }) { h in
            func publishedKids() async throws -> Set<String> {
                Set(try await h.send(.get, WirePaths.x509Certificates).decode([String: String].self).keys)
            }
            let first = try await h.signUp(email: "ada@example.com")
            let firstKid = try #require(jwtHeader(first.idToken!)?["kid"] as? String)
            #expect(try await publishedKids() == [firstKid])
            #expect(try await h.send(.get, WirePaths.x509Certificates).headers[.cacheControl]?.contains("max-age=600") == true)

            // 10 minutes before rotation the next key is published but does not sign yet. Keys are made by the
            // background maintenance round (never on a request): run it as the service would.
            #expect(try await h.server.keyRing.published().keys.count == 1)
            h.clock.advance(by: 7_200 - 600)
            #expect(try await publishedKids() == [firstKid], "requests never rotate keys")
            try await h.server.keyRing.maintain()
            let kids = try await publishedKids()
            #expect(kids.count == 2)
            let early = try await h.signIn(email: "ada@example.com").decode(SignInWithPasswordResponse.self)
            #expect(jwtHeader(early.idToken!)?["kid"] as? String == firstKid)

            // After rotation, new tokens use the new key; the old key's last token still verifies.
            h.clock.advance(by: 600)
            try await h.server.keyRing.maintain()
            let late = try await h.signIn(email: "ada@example.com").decode(SignInWithPasswordResponse.self)
            let secondKid = try #require(jwtHeader(late.idToken!)?["kid"] as? String)
            #expect(secondKid != firstKid)
            #expect(kids.contains(secondKid))
            h.clock.advance(by: 3_000)
            try await h.server.keyRing.maintain()
            #expect(try await h.lookup(early.idToken!).status == 200)
            #expect(try await publishedKids().contains(firstKid))

            // Once every token of the old key has expired, the old key is no longer published.
            h.clock.advance(by: 1_000)
            try await h.server.keyRing.maintain()
            #expect(try await !publishedKids().contains(firstKid))
            let fresh = try await h.signIn(email: "ada@example.com").decode(SignInWithPasswordResponse.self)
            #expect(jwtHeader(fresh.idToken!)?["kid"] as? String == secondKid)
            #expect(try await h.lookup(fresh.idToken!).status == 200)
        }
    }
}
