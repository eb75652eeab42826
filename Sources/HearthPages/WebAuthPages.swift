import Foundation

// The pages of web sign-in with the Firebase JS SDK: the result page at the end of the provider's round trip (in
// the popup, or the tab of a redirect) and the helper iframe the SDK embeds in the app's page. Their scripts are
// files served from Hearth's origin (`Templates/web-result.js`, `Templates/iframe.js`), never inline; the result
// page's data rides in a JSON element.

extension Pages {
    /// The web result page: a message for people, and `data` (the event, the app's origin, apiKey, appName, where a
    /// redirect returns) for `web-result.js`, which `script` names.
    public static func webResult(title: String, message: String, tone: Tone, data: String, script: String) -> String {
        let page = Pages.message(title: title, message: message, tone: tone, badge: "web sign-in")
        // JSON in a script element: no "<" may end it early.
        let safe = data.replacingOccurrences(of: "<", with: "\\u003c").replacingOccurrences(of: ">", with: "\\u003e")
            .replacingOccurrences(of: "&", with: "\\u0026")
        let tail = """
            <p id="hearth-web-status" class="hearth-web-status" role="status"></p>
            <script type="application/json" id="hearth-web-result">\(safe)</script>
            <script src="\(script)"></script>
            </body>
            """
        guard let end = page.range(of: "</body>", options: .backwards) else { return page + tail }
        return page.replacingCharacters(in: end, with: tail)
    }

    /// The helper iframe's page: its own script first (it defines `gapi_onload`), then gapi from `gapiURL`.
    public static func webIframe(script: String, gapiURL: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Hearth</title></head>
        <body><script src="\(script)"></script><script src="\(gapiURL)"></script></body></html>
        """
    }

    /// `Templates/web-result.js`.
    public static var webResultScript: String { Templates.webResultScript }
    /// `Templates/iframe.js`.
    public static var webIframeScript: String { Templates.webIframeScript }
}
