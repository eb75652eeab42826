import Foundation

// `/__dev/try/web` (`--dev` only): the web flow of the Firebase JS SDK's `signInWithPopup`, run by Hearth's own page
// and script (`Templates/dev-try-web.js`, served from this origin, never inline): the auth handler in a popup with the
// SDK's query, the auth event back from the result page, `accounts:signInWithIdp` with its `urlResponse` and
// `sessionId`. The server renders what the script needs as data attributes.

extension Pages {
    /// What `dev-try-web.mustache` reads.
    struct DevTryWebModel {
        struct Provider {
            let id: String
            let selected: Bool
        }

        let stylesheet = Pages.stylesheet
        let title = "Try web sign-in"
        let tone = Tone.info.rawValue
        let badge: String? = "dev try page"
        let providers: [Provider]
        let customParameters: String
        let scopes: String
        let apiKey: String
        let origin: String
        let handler: String
        let signIn: String
        let warning: String?
        let links: [MessageModel.LinkModel]
        let script: String
    }

    /// The dev try page of the web flow. `origin` is Hearth's public origin (the page works only there: the result
    /// page hands the event to a same-origin opener), `handler` the auth handler URL the popup opens, `signIn` the
    /// `accounts:signInWithIdp` URL with the API key, `warning` a problem to show before anyone clicks (this
    /// server's host is not an authorized domain), `script` the path of the page's script.
    public static func devTryWeb(providers: [String], selected: String, customParameters: String, scopes: String, apiKey: String,
                                 origin: String, handler: String, signIn: String, warning: String?, links: [Link],
                                 script: String) -> String {
        Templates.render(DevTryWebModel(
            providers: providers.map { DevTryWebModel.Provider(id: $0, selected: $0 == selected) },
            customParameters: customParameters, scopes: scopes, apiKey: apiKey, origin: origin, handler: handler, signIn: signIn,
            warning: nonEmpty(warning),
            links: links.map { MessageModel.LinkModel(label: $0.label, href: $0.href, secondary: true) }, script: script),
            PageTemplate.devTryWeb.rawValue)
    }

    /// The dev try web page's script (`Templates/dev-try-web.js`).
    public static var devTryWebScript: String { Templates.devTryWebScript }

    /// The dev try web page's `Content-Security-Policy`: its own script from this origin, requests to this origin
    /// only (`accounts:signInWithIdp`), inline styles, no forms, no framing. No `Cross-Origin-Opener-Policy` goes
    /// with it: the result page in the popup hands the event back through `window.opener`.
    public static let devTryWebContentSecurityPolicy =
        "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}
