import Foundation
@testable import HearthAuth
import Testing

/// Issue 39, item 3: how HearthAuth words a blocking function's refusal (BlockingFunctionAuthSDKTests in
/// HearthAdminTests runs it against a real server).
@Suite struct BlockingFunctionErrorTests {
    /// Issue 39, item 3: the description of a `BLOCKING_FUNCTION_ERROR_RESPONSE` is the function's own `error.message`
    /// when the server relays its answer, and the server's words when the function failed (a timeout, unreachable)
    /// or answered something that is not Firebase's error body.
    @Test func theDescriptionIsTheFunctionsMessageOrTheServers() {
        #expect(AuthErrorUtils.blockingFunctionMessage(#"HTTP Cloud Function returned an error: {"error":{"message":"Only acme.com","status":"PERMISSION_DENIED"}}"#)
                == "Only acme.com")
        let timeout = "the beforeCreate function at https://hooks.example.com/x did not answer within 7 seconds"
        #expect(AuthErrorUtils.blockingFunctionMessage(timeout) == timeout)
        let odd = #"HTTP Cloud Function returned an error: {"error":{"status":"INTERNAL"}}"#
        #expect(AuthErrorUtils.blockingFunctionMessage(odd) == odd)
        #expect(AuthErrorUtils.blockingFunctionMessage("answered {not json") == "answered {not json")
    }
}
