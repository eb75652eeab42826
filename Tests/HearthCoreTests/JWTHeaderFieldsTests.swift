import Foundation
import HearthCore
import Testing

@Suite struct JWTHeaderFieldsTests {
    func segment(_ json: String) -> String { Data(json.utf8).base64URLEncodedString() }

    @Test func readsAlgKidAndType() throws {
        let header = try #require(JWTHeaderFields(token: segment(#"{"alg":"RS256","kid":"k1","typ":"JWT"}"#) + ".e30.sig"))
        #expect(header == JWTHeaderFields(token: segment(#"{"typ":"JWT","kid":"k1","alg":"RS256"}"#) + ".x.y"))
        #expect(header.alg == "RS256")
        #expect(header.kid == "k1")
        #expect(header.typ == "JWT")
        #expect(JWTHeaderFields(token: segment(#"{"alg":"none"}"#) + ".e30.")?.alg == "none")
    }

    @Test func refusesWhatIsNotACompactJWS() {
        let good = segment(#"{"alg":"RS256"}"#)
        for token in ["", "abc", good, good + ".e30", good + ".e30.sig.extra", "!!!.e30.sig", segment("[1]") + ".e30.sig",
                      segment(#"{"alg":5}"#) + ".e30.sig", segment("not json") + ".a.b"] {
            #expect(JWTHeaderFields(token: token) == nil, "\(token)")
        }
    }
}
