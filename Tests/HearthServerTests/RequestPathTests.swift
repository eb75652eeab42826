import Foundation
@testable import HearthServer
import NIOCore
import Testing

/// Issue 41, item 3 (the per-request cost): the shortcuts on every request answer as the long way did.
@Suite struct RequestPathTests {
    /// Issue 41, item 3: a body without a zero byte or a backslash skips the escape walk; any body that has one is
    /// still walked, so `\u0000` and raw NUL are refused exactly as before and escaped backslashes are not.
    @Test func nulPrecheckSkipsOnlyBodiesThatCannotHoldNUL() {
        let cases: [(String, Bool)] = [
            (#"{"idToken":"eyJhbGciOiJSUzI1NiJ9.e30.sig"}"#, false),
            (#"{"a":"x\u0000y"}"#, true),
            (#"{"a":"x\\u0000y"}"#, false),
            ("{\"a\":\"x\0y\"}", true),
            (#"{"a":"\n\"quoted\""}"#, false),
            ("", false),
        ]
        for (text, nul) in cases {
            let buffer = ByteBuffer(string: text)
            let checked = HearthRequestDecoder.mayContainNUL(buffer) && HearthRequestDecoder.containsNUL(json: buffer.readableBytesView)
            #expect(checked == nul, "\(text)")
            #expect(checked == HearthRequestDecoder.containsNUL(json: buffer.readableBytesView), "\(text)")
            if !text.contains("\\") && !text.contains("\0") { #expect(!HearthRequestDecoder.mayContainNUL(buffer)) }
        }
    }

    /// Issue 41, item 3: counters and histograms reached through the handles made on first use keep counting, each
    /// label set on its own, and show in the exposition as before.
    @Test func metricHandlesMadeOnceKeepCounting() {
        let metrics = HearthMetrics()
        for _ in 0..<3 { metrics.count(.httpRequests, ["/a", "POST", "200"]) }
        metrics.count(.httpRequests, ["/a", "POST", "400"], by: 2)
        #expect(metrics.counterValue(.httpRequests, ["/a", "POST", "200"]) == 3)
        #expect(metrics.counterValue(.httpRequests, ["/a", "POST", "400"]) == 2)
        for _ in 0..<4 { metrics.record(.httpRequestDuration, ["/a", "POST", "200"], nanoseconds: 1_000_000) }
        let counts = metrics.exposition().split(separator: "\n").filter { $0.hasPrefix("hearth_http_request_duration_seconds_count") }
        #expect(counts.count == 1 && counts[0].contains(#"route="/a""#) && counts[0].hasSuffix(" 4"))
    }
}
