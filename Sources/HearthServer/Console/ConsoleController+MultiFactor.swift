import Foundation
import HearthCore
import HearthPages
import HearthStore
import HearthWire
import Hummingbird

/// Second factors in the console: the project's TOTP setting and clock check (Settings), and a user's factors with
/// their removal (the user's page).
extension ConsoleController {
    func registerSecondFactors(on router: Router<HearthRequestContext>) {
        router.post("/console/settings/mfa") { request, _ in
            try await action(request) { session, form in
                let text = form.text("adjacentIntervals") ?? ""
                guard let intervals = Int(text), TOTP.adjacentIntervalRange.contains(intervals) else {
                    throw HearthAPIError(.invalidConfig, "adjacent intervals must be a whole number from 0 to 10 ('\(text.prefix(20))' was sent)")
                }
                // The whole `mfa` setting, as the admin API's `updateMask=mfa`: checked and audited as `config.update`.
                // SMS as a second factor (issue 40, the Phone page) stays as it is.
                let phone = try await projectScope.config().isPhoneMFAEnabled
                try await service.updateProjectSettings(ProjectSettingChange.totp(enabled: form.flag("enabled"), adjacentIntervals: intervals, phone: phone),
                                                        by: principal(session), in: projectScope)
                return redirect("/console/settings?ok=mfa#mfa")
            }
        }
        router.post("/console/settings/clock-check") { request, _ in
            try await action(request) { session, form in
                let nonce = form["nonce"] ?? ""
                guard Self.isClockNonce(nonce) else {
                    throw HearthAPIError(.invalidArgument, "the clock check's form is incomplete; reload the Settings page and try again")
                }
                let result = try await clockCheckResult(code: form["code"] ?? "", nonce: nonce, session: session)
                let page = try await settings(session, clockNonce: nonce, clockResult: result)
                return html(await render(page, title: "Settings", current: "/console/settings", session: session))
            }
        }
        scopedAction(router, "/user/mfa/remove") { session, form, target in
            let uid = try AdminService.checkLocalId(form["uid"])
            let factor = form.text("factor")
            _ = try await service.removeSecondFactors(localId: uid, enrollmentIds: factor.map { [$0] }, by: principal(session), in: target.scope)
            return redirect(userHref(uid, in: target) + "&ok=\(factor == nil ? "mfa-removed-all" : "mfa-removed")#second-factors")
        }
    }

    // MARK: Settings card

    /// The card's view model: the project's setting, and a clock check with a throwaway key (a fresh one unless
    /// `nonce` names the one the admin scanned).
    func secondFactorsCard(_ project: ProjectConfig, session: ConsoleSession, nonce: String?,
                           result: SettingsPage.ClockCheck.Result?) throws -> SettingsPage.SecondFactors {
        let intervals = project.totpAdjacentIntervals
        let nonce = nonce ?? RandomID.token(byteCount: 16)
        let generator = Self.clockCheckGenerator(session: session, nonce: nonce)
        let issuer = Mailer.appName(project)
        let uri = OTPAuthURI.totp(generator, accountName: "clock-check", issuer: issuer)
        let qr = try QRCode(text: uri, errorCorrection: .medium)
        return SettingsPage.SecondFactors(
            enabled: project.totpEnabled, adjacentIntervals: intervals, window: Self.windowSentence(intervals),
            clock: SettingsPage.ClockCheck(qrSVG: qr.svg(label: "QR code of a throwaway authenticator key for the clock check", moduleSize: 4),
                                           uri: uri, key: Base32.encode(generator.secret), nonce: nonce, result: result))
    }

    /// What `adjacentIntervals` means, in seconds.
    static func windowSentence(_ intervals: Int) -> String {
        if intervals == 0 {
            return "Only the code of the server's current 30-second step is accepted: an app whose clock is off by more than a few seconds is refused now and then."
        }
        let steps = intervals == 1 ? "1 step" : "\(intervals) steps"
        return "Codes of the current 30-second step and of \(steps) before and after it are accepted: a window of ±\(intervals * 30) seconds "
            + "(\(2 * intervals + 1) codes) for the app's clock to differ from the server's. Each code is accepted once."
    }

    /// The clock check's key: derived from the console session's CSRF token and the form's nonce, so neither the
    /// key nor anything it is made from is stored, and a nonce from another session yields another key.
    static func clockCheckGenerator(session: ConsoleSession, nonce: String) -> TOTP {
        let seed = WireDigest.sha256("hearth.console.clock-check.v1\u{0}\(session.csrfToken)\u{0}\(nonce)")
        // 20 bytes of a SHA-256 digest: never empty, so the generator exists.
        return TOTP(secret: seed.prefix(TOTP.secretByteCount))!
    }

    /// A nonce as ``RandomID/token(byteCount:)`` makes them (base64url, bounded).
    static func isClockNonce(_ text: String) -> Bool {
        (16...64).contains(text.count) && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// Compares the typed code with the throwaway key over ±10 steps and says by how many 30-second steps the app
    /// and the server differ, and whether sign-ins accept that with the project's adjacent intervals.
    func clockCheckResult(code: String, nonce: String, session: ConsoleSession) async throws -> SettingsPage.ClockCheck.Result {
        let typed = code.filter { $0 != " " }
        let generator = Self.clockCheckGenerator(session: session, nonce: nonce)
        guard typed.count == generator.digits, typed.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return .init(ok: false, message: "Type the \(generator.digits) digits the app shows for the clock-check entry.")
        }
        let now = configuration.clock.now()
        let widest = TOTP.adjacentIntervalRange.upperBound
        guard let matched = generator.verify(typed, at: now, adjacentIntervals: widest) else {
            return .init(ok: false, message: "No match within ±\(widest) steps (±\(widest * 30 / 60) minutes) of the server's time "
                + "(\(Self.display(now)) UTC). Check that the app scanned this page's code (it changes when the page is reloaded) and that the phone sets its clock automatically.")
        }
        let offset = matched - generator.timeStep(at: now)
        let allowed = try await projectScope.config().totpAdjacentIntervals
        if offset == 0 {
            return .init(ok: true, message: "The code matches the server's current 30-second step: the app's clock and the server's agree.")
        }
        let steps = abs(offset) == 1 ? "1 step" : "\(abs(offset)) steps"
        let direction = offset > 0 ? "ahead of" : "behind"
        let verdict = abs(offset) <= Int64(allowed)
            ? "Sign-ins accept it (adjacent intervals: \(allowed))."
            : "Sign-ins refuse it: the adjacent intervals are \(allowed). Fix the phone's clock (set it automatically), or raise the intervals."
        return .init(ok: abs(offset) <= Int64(allowed),
                     message: "The code matches \(steps) (about \(abs(offset) * 30) seconds) \(direction) the server's clock. " + verdict)
    }

    // MARK: User page

    /// The user's factors for the user page (from the stored record: the recovery codes are not on the wire).
    func secondFactors(of localId: String, in target: ConsoleScope) async throws -> (factors: [UserPage.SecondFactor], recoveryCodes: String?) {
        guard let record = try await target.scope.store.user(localId: localId) else { return ([], nil) }
        let factors = record.mfa.factors.map { factor in
            UserPage.SecondFactor(displayName: factor.displayName.flatMap { $0.isEmpty ? nil : $0 } ?? "Authenticator app",
                                  enrolledAt: Self.display(factor.enrolledAt), enrollmentId: factor.enrollmentId)
        }
        let left = record.mfa.recoveryCodeHashes.count
        let codes: String? = left == 0 && record.mfa.recoveryCodesUsed == 0 ? nil
            : "\(left) recovery code\(left == 1 ? "" : "s") left" + (record.mfa.recoveryCodesUsed > 0 ? " (\(record.mfa.recoveryCodesUsed) used)" : "")
        return (factors, codes)
    }
}
