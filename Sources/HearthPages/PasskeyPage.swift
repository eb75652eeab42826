import Foundation

// The passkey page (`/__/auth/passkey`): the one page with a script. The server checks the app's options and return
// address and renders them as data attributes; `Templates/passkey.js` (served from this origin, never inline) asks
// the browser for the passkey on a click and returns the authenticator's response to the app.

extension Pages {
    /// What `passkey.mustache` reads.
    struct PasskeyModel {
        let stylesheet = Pages.stylesheet
        let title: String
        let tone = Tone.info.rawValue
        let badge: String? = "passkey"
        let paragraphs: [String]
        let facts: [MessageModel.Fact]
        let mode: String
        let options: String
        let returnURL: String
        let state: String
        let appName: String
        let button: String
        let waiting = "Loading…"
        let note: String?
        let script: String
    }

    /// The passkey page: `enroll` (create a passkey) or sign in with one, for the app `appName`, on `site` (the rp
    /// id). `options` is the base64url options JSON as the app sent it (already checked), `returnURL` the checked
    /// return address, `script` the path of the page's script.
    public static func passkey(enroll: Bool, options: String, returnURL: String, state: String, appName: String, site: String,
                               script: String) -> String {
        let title = enroll ? "Create a passkey for \(site)" : "Sign in to \(site) with a passkey"
        let who = appName.prefix(1).uppercased() + appName.dropFirst()
        let message = enroll
            ? "\(who) asks you to create a passkey: your device keeps it, and your fingerprint, face or screen lock unlocks it."
            : "\(who) asks you to sign in with your passkey. Your fingerprint, face or screen lock unlocks it."
        return Templates.render(PasskeyModel(
            title: title, paragraphs: [message],
            facts: [MessageModel.Fact(label: "Requested by", value: who), MessageModel.Fact(label: "Passkey for", value: site)],
            mode: enroll ? "enroll" : "signin", options: options, returnURL: returnURL, state: state, appName: appName,
            button: enroll ? "Create passkey" : "Use passkey",
            note: "After the passkey, you return to \(appName). Only continue if you started this there.", script: script),
            PageTemplate.passkey.rawValue)
    }

    /// The passkey page's script (`Templates/passkey.js`).
    public static var passkeyScript: String { Templates.passkeyScript }

    /// The passkey page's `Content-Security-Policy`: its own script from this origin only (no inline script, no
    /// requests: the page's one exit is the navigation back to the app), inline styles, no forms, no framing.
    public static let passkeyContentSecurityPolicy =
        "default-src 'none'; script-src 'self'; connect-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}
