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

    /// Issue 41, item 3: the recently decoded headers are reused by their exact text — many headers in turn (more
    /// than the few kept), a header differing by one character, a good header after a refused one, and a token
    /// whose header is known but whose parts are not three all get the answer a fresh decode gives.
    @Test func recentHeadersAnswerExactlyAsAFreshDecode() {
        let headers = (0..<20).map { segment(#"{"alg":"RS256","kid":"key-\#($0)","typ":"JWT"}"#) }
        for round in 0..<3 {
            for (index, header) in headers.enumerated() {
                let fields = JWTHeaderFields(token: header + ".e30.sig\(round)")
                #expect(fields?.kid == "key-\(index)" && fields?.alg == "RS256" && fields?.typ == "JWT")
            }
        }
        let known = segment(#"{"alg":"RS256","kid":"k1"}"#)
        let other = segment(#"{"alg":"RS256","kid":"k2"}"#)
        #expect(JWTHeaderFields(token: known + ".e30.sig")?.kid == "k1")
        #expect(JWTHeaderFields(token: other + ".e30.sig")?.kid == "k2")
        #expect(JWTHeaderFields(token: known + ".e30") == nil)
        #expect(JWTHeaderFields(token: known + ".e30.sig.more") == nil)
        #expect(JWTHeaderFields(token: "x" + known + ".e30.sig") == nil)
        #expect(JWTHeaderFields(token: segment(#"{"alg":7}"#) + ".e30.sig") == nil)
        #expect(JWTHeaderFields(token: known + ".e30.sig")?.kid == "k1")
    }
}
