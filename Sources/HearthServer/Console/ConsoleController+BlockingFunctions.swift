import Foundation
import HearthCore
import HearthPages
import HearthStore
import HearthWire
import Hummingbird

/// The console's Blocking functions page (issue 39): the project's function URL per event and the credentials
/// forwarded (saved through ``AdminService/updateProjectSettings(_:by:in:)`` — the URL policy, `updateTime` and the
/// audit entry are the admin API's), a test event per configured function with its answer, and each event's last
/// outcome from ``BlockingFunctionHealth`` so that a dead function is seen. The functions are the project's: in a
/// tenant the page shows them read-only and says that the tenant's users go through them.
extension ConsoleController {
    static let blockingFunctionsPath = "/console/blocking-functions"

    func registerBlockingFunctions(on router: Router<HearthRequestContext>) {
        scopedPage(router, "/blocking-functions", title: "Blocking functions") { _, _, target in
            try await blockingFunctionsPage(in: target)
        }
        router.post(RouterPath(Self.blockingFunctionsPath)) { request, _ in
            try await action(request) { session, form in
                let stored = try await projectScope.config().blockingFunctions ?? BlockingFunctionsConfig()
                let changes = Self.blockingFunctionChanges(form, stored: stored)
                guard !changes.isEmpty else { return redirect(Self.blockingFunctionsPath + "?ok=hooks-unchanged") }
                do {
                    try await service.updateProjectSettings(changes, by: principal(session), in: projectScope)
                } catch let error as HearthAPIError where error.httpStatus < 500 {
                    // The form again as typed, the refusal beside the URL it concerns.
                    let page = try await blockingFunctionsPage(in: ConsoleScope(scope: projectScope, base: "/console"), typed: form, refusal: error,
                                                               changed: changes)
                    return html(await render(page, title: "Blocking functions", current: Self.blockingFunctionsPath, session: session,
                                             in: ConsoleScope(scope: projectScope, base: "/console")), status: .badRequest)
                }
                return redirect(Self.blockingFunctionsPath + "?ok=hooks")
            }
        }
        router.post(RouterPath(Self.blockingFunctionsPath + "/test")) { request, _ in
            try await action(request) { session, form in
                guard let event = BlockingEventType(name: form["event"] ?? "") else {
                    throw HearthAPIError(.invalidArgument, "unknown event \(String((form["event"] ?? "").withoutControlCharacters.prefix(40))): the events are beforeCreate, beforeSignIn, beforeSendEmail and beforeSendSms")
                }
                let result = try await service.sendBlockingTestEvent(event, by: principal(session), in: projectScope)
                let target = ConsoleScope(scope: projectScope, base: "/console")
                let page = try await blockingFunctionsPage(in: target, test: (event, result))
                return html(await render(page, title: "Blocking functions", current: Self.blockingFunctionsPath, session: session, in: target))
            }
        }
    }

    /// The changes a save makes: each URL that differs from the stored one (empty: remove), and the forwarding
    /// flags when any differs. Unchanged URLs keep their `updateTime`.
    static func blockingFunctionChanges(_ form: ConsoleForm, stored: BlockingFunctionsConfig) -> [ProjectSettingChange] {
        var changes: [ProjectSettingChange] = []
        for event in BlockingEventType.allCases {
            let typed = form.text(event.rawValue) ?? ""
            let current = stored.trigger(for: event)?.functionUri ?? ""
            if typed != current { changes.append(.blockingFunctionTrigger(event, typed.isEmpty ? nil : typed)) }
        }
        let forward = stored.forwardInboundCredentials
        if form.flag("forwardIdToken") != (forward?.idToken == true) { changes.append(.blockingFunctionsForwardIdToken(form.flag("forwardIdToken"))) }
        if form.flag("forwardAccessToken") != (forward?.accessToken == true) {
            changes.append(.blockingFunctionsForwardAccessToken(form.flag("forwardAccessToken")))
        }
        if form.flag("forwardRefreshToken") != (forward?.refreshToken == true) {
            changes.append(.blockingFunctionsForwardRefreshToken(form.flag("forwardRefreshToken")))
        }
        return changes
    }

    /// Each event in words: its title and when it fires.
    static let blockingEventTexts: [BlockingEventType: (title: String, when: String)] = [
        .beforeCreate: ("Before a user is created",
                        "Every sign-up (password, the first email-link sign-in, a provider's first sign-in), before the user is stored. The function may refuse it or set the display name, photo, disabled flag, email verified and custom claims. Anonymous users and custom tokens do not fire it."),
        .beforeSignIn: ("Before a user signs in",
                        "Every sign-in (and right after beforeCreate: creating a user signs it in), after the second factor, before the session starts. The function may refuse it, disable the user, change the profile, or add session claims to this session's tokens."),
        .beforeSendEmail: ("Before an email is sent",
                           "Before a sign-in link, password reset, verification or email-change message is sent. The function may refuse it: the request then fails and no mail goes."),
        .beforeSendSms: ("Before an SMS is sent",
                         "Before every SMS code is sent (phone sign-in, SMS second-factor enrollment and sign-in), after the region policy, app verification, the limits and the budget. The function may refuse it: the request then fails and no SMS goes."),
    ]

    /// The page. `typed`/`refusal`/`changed`: a refused save's form again; `test`: a test event's answer.
    func blockingFunctionsPage(in target: ConsoleScope, typed: ConsoleForm? = nil, refusal: HearthAPIError? = nil, changed: [ProjectSettingChange] = [],
                               test: (BlockingEventType, BlockingTestResult)? = nil) async throws -> BlockingFunctionsPage {
        let functions = try await projectScope.config().blockingFunctions ?? BlockingFunctionsConfig()
        let health = service.blockingFunctionHealth
        let refusalField = refusal.flatMap { Self.refusedEvent($0, changed: changed, typed: typed) }
        var failing: [String] = []
        let events = BlockingEventType.allCases.map { event -> BlockingFunctionsPage.Event in
            let trigger = functions.trigger(for: event)
            let texts = Self.blockingEventTexts[event] ?? (event.rawValue, "")
            var entry = BlockingFunctionsPage.Event(
                name: event.rawValue, title: texts.title, when: texts.when,
                functionUri: typed.map { $0.text(event.rawValue) ?? "" } ?? trigger?.functionUri ?? "", configured: trigger != nil,
                updated: trigger?.updateTime.map { Self.display($0) })
            // The last call of the function configured now (an outcome of a URL since replaced says nothing of it).
            if let trigger, let outcome = health.last(event), outcome.functionUri == trigger.functionUri {
                entry.health = Self.healthLine(outcome)
                if outcome.isFailure { failing.append(event.rawValue) }
            }
            if let refusal, refusalField == event { entry.error = Self.sentence(refusal) }
            if let (tested, result) = test, tested == event { entry.test = Self.testLine(result) }
            return entry
        }
        let stored = functions.forwardInboundCredentials
        let tenantNote = target.tenant.map {
            "Blocking functions are the project's, not a tenant's: the users of tenant \($0.displayName) (\($0.id)) go through the project's functions below, and each event carries tenant_id \($0.id)."
        }
        var formError: String?
        if let refusal {
            formError = refusalField == nil ? "Nothing was saved: " + Self.sentence(refusal) : "Nothing was saved: correct the field marked below."
        }
        return BlockingFunctionsPage(
            events: events,
            forwardIdToken: typed?.flag("forwardIdToken") ?? (stored?.idToken == true),
            forwardAccessToken: typed?.flag("forwardAccessToken") ?? (stored?.accessToken == true),
            forwardRefreshToken: typed?.flag("forwardRefreshToken") ?? (stored?.refreshToken == true),
            editable: target.tenant == nil, tenantNote: tenantNote, projectHref: Self.blockingFunctionsPath,
            policy: Self.hookPolicy(configuration), formError: formError,
            outage: failing.isEmpty ? nil
                : "The last call to \(failing.joined(separator: " and ")) failed: "
                + "the operations that fire \(failing.count == 1 ? "it" : "them") fail until the function answers again (details below).")
    }

    /// The overview's banner: the configured functions whose last call failed, in a sentence (nil: none).
    func blockingOutage() async throws -> String? {
        guard let functions = try await projectScope.config().blockingFunctions else { return nil }
        let health = service.blockingFunctionHealth
        let failing = BlockingEventType.allCases.compactMap { event -> (BlockingEventType, BlockingFunctionHealth.Outcome)? in
            guard let trigger = functions.trigger(for: event), let outcome = health.last(event), outcome.functionUri == trigger.functionUri,
                  outcome.isFailure else { return nil }
            return (event, outcome)
        }
        guard !failing.isEmpty else { return nil }
        return failing.map { event, outcome in
            let calls = outcome.consecutiveFailures <= 1 ? "The last call to \(event.rawValue) failed"
                : "\(outcome.consecutiveFailures) calls in a row to \(event.rawValue) failed, the last"
            return "\(calls) at \(Self.display(outcome.at)): \(outcome.message)"
        }
            .joined(separator: " ") + " Until it answers, the operations that fire it fail."
    }

    /// What URLs this server accepts, in one sentence.
    static func hookPolicy(_ configuration: HearthServerConfiguration) -> String {
        let settings = configuration.blockingFunctions
        let allowPrivate = settings.allowPrivateNetworks
        return "URLs must be https://" + (settings.development ? " (or http:// to a loopback host: this server runs with --dev)" : "")
            + (allowPrivate ? "; private and loopback addresses are allowed (hooks.allow.private.networks is on)."
                            : "; hosts on private, loopback or link-local networks are refused (the hooks.allow.private.networks setting allows them).")
    }

    /// The event a refusal concerns: the one changed URL it names (or the only URL changed).
    static func refusedEvent(_ error: HearthAPIError, changed: [ProjectSettingChange], typed: ConsoleForm?) -> BlockingEventType? {
        let message = error.description
        let events: [BlockingEventType] = changed.compactMap { change in
            if case .blockingFunctionTrigger(let event, let url) = change, url != nil { return event }
            return nil
        }
        if let named = events.first(where: { event in
            message.contains(event.rawValue) || (typed?.text(event.rawValue)).map { !$0.isEmpty && message.contains($0) } == true
        }) {
            return named
        }
        return events.count == 1 ? events[0] : nil
    }

    /// A refusal as people read it: its message without the wire code or the configuration path, capitalized.
    static func sentence(_ error: HearthAPIError) -> String {
        var detail = error.detail ?? error.description
        if detail.hasPrefix("blockingFunctions."), let colon = detail.range(of: ": ") { detail = String(detail[colon.upperBound...]) }
        return detail.prefix(1).uppercased() + detail.dropFirst()
    }

    /// An event's last outcome in one line, with the error when it failed.
    static func healthLine(_ outcome: BlockingFunctionHealth.Outcome) -> BlockingFunctionsPage.Health {
        let at = display(outcome.at)
        let took = BlockingTestResult.words(outcome.duration)
        let status = outcome.httpStatus.map { "HTTP \($0) " } ?? ""
        if !outcome.isFailure {
            return .init(ok: true, summary: outcome.succeeded ? "Answered \(status)in \(took) at \(at)."
                                                                : "Refused the last event (\(status)in \(took)) at \(at).")
        }
        let failures = outcome.consecutiveFailures <= 1 ? "The last call failed" : "\(outcome.consecutiveFailures) calls in a row failed, the last"
        let why = switch outcome.outcome {
        case "timeout": "no answer in time"
        case "unreachable": "not reached"
        case "invalid_answer": outcome.httpStatus.map { "HTTP \($0), not an answer" } ?? "not an answer"
        default: outcome.httpStatus.map { "HTTP \($0)" } ?? outcome.outcome
        }
        return .init(ok: false, summary: "\(failures) at \(at) after \(took) (\(why)).",
                     lastError: outcome.message,
                     lastSuccess: outcome.lastSuccess.map { "Last worked at \(display($0))." } ?? "It has not worked since the server started.")
    }

    /// A test event's answer for the page (never the JWT: ``BlockingTestResult/shortAnswer`` hides one the function echoed).
    static func testLine(_ result: BlockingTestResult) -> BlockingFunctionsPage.TestResult {
        .init(ok: result.answered, status: result.httpStatus.map { "HTTP \($0)" } ?? "No answer", duration: BlockingTestResult.words(result.duration),
              summary: result.verdict, detail: result.shortAnswer)
    }
}
