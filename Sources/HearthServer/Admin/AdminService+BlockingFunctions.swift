import Foundation
import HearthCore
import HearthWire

/// Blocking functions for administrators (issue 39): the test event the console's "Send a test event" button and
/// `hearth project hooks test` send, and the last outcome of each event's function. The configuration itself is
/// changed by ``updateProjectSettings(_:by:in:)`` (``ProjectSettingChange/blockingFunctionTrigger(_:_:)`` …).
extension AdminService {
    /// Sends a test event (a made-up user, uid `hearth-test-event`, never stored) to the function configured for
    /// `event` and reports its answer (``BlockingFunctions/sendTestEvent(_:in:)``); nothing is applied. Audited as
    /// `blockingFunctions.test` (the event is signed with the server's keys and sent out). A command's service loads
    /// the store's signing keys first (it has not loaded them: ``commandLine(store:projectId:publicURL:mail:blockingFunctions:)``).
    public func sendBlockingTestEvent(_ event: BlockingEventType, by principal: AdminPrincipal, in scope: Scope) async throws -> BlockingTestResult {
        guard try await scope.config().blockingFunctions?.trigger(for: event) != nil else {
            throw HearthAPIError(.configurationNotFound, "no \(event.rawValue) function is configured: set its URL first")
        }
        if !accounts.keyRing.hasActiveKey { try await accounts.keyRing.loadKeys() }
        let result = await accounts.blockingFunctions.sendTestEvent(event, in: scope)
        try await audit(principal, "blockingFunctions.test", target: event.rawValue,
                        detail: result.succeeded ? "answered" : "failed", in: scope)
        return result
    }

    /// The last outcome of each event's function in this process (empty in a command's service, which calls none).
    public var blockingFunctionHealth: BlockingFunctionHealth { accounts.blockingFunctions.health }
}

extension BlockingTestResult {
    /// The function answered and decided (allowed, or refused with a 4xx status): it works. False for a timeout, an
    /// unreachable function, a 5xx or an answer that is not one.
    public var answered: Bool {
        succeeded || (httpStatus.map { (400..<500).contains($0) } ?? false)
    }

    /// What the answer means, in one sentence.
    public var verdict: String {
        let text = message.prefix(1).uppercased() + message.dropFirst()
        if succeeded { return text.hasSuffix(".") ? text : text + "." }
        if answered { return "The function refused the event (it works; a real event like this one would be refused): \(message)" }
        return "Failed: \(message)"
    }

    /// The answer's body on one line, at most 400 characters, with any JWT in it replaced (a function echoing the
    /// event must not put it on a page or a terminal); nil when there was none.
    public var shortAnswer: String? {
        guard let answer else { return nil }
        var text = answer.replacingOccurrences(of: #"eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*"#, with: "[a JWT]", options: .regularExpression)
        text = String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 }).withoutControlCharacters.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        return text.count > 400 ? String(text.prefix(400)) + "…" : text
    }

    /// "84 ms", "7.0 s".
    public static func words(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return milliseconds >= 1000 ? String(format: "%.1f s", Double(milliseconds) / 1000) : "\(milliseconds) ms"
    }
}

extension BlockingFunctionHealth.Outcome {
    /// The function is down or broken: no answer in time, unreachable, an answer that is not one, or a 5xx status. A
    /// refusal with a 4xx status is the function working (it decided).
    public var isFailure: Bool {
        !(succeeded || (outcome == "refused" && (httpStatus ?? 500) < 500))
    }
}
