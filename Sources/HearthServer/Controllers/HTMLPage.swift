import Foundation
import HearthCore
import HearthPages
import HearthWire
import Hummingbird
import NIOCore

/// The server's HTML responses, rendered with the shared page templates.
enum HTMLPage {
    static func response(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status,
                 headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                           .contentSecurityPolicy: Pages.contentSecurityPolicy],
                 body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// A message page.
    static func message(_ title: String, _ message: String, tone: Pages.Tone, status: HTTPResponse.Status = .ok,
                        facts: [(String, String)] = [], items: [String] = [], detail: String? = nil, links: [Pages.Link] = [],
                        badge: String? = nil) -> Response {
        response(Pages.message(title: title, message: message, tone: tone, facts: facts, items: items, detail: detail, links: links,
                               badge: badge), status: status)
    }

    /// `/` for a browser: what this server is and where its endpoints are.
    static func index(configuration: HearthServerConfiguration, dev: Bool, devMail: Bool = false, devSms: Bool = false) -> Response {
        let base = configuration.publicURL.url
        var links: [Pages.Link] = [Pages.Link("Open the console", href: "/console")]
        if dev {
            links.append(Pages.Link("Try Microsoft sign-in", href: "/__dev/try?provider=microsoft.com"))
            links.append(Pages.Link("Try Yahoo sign-in", href: "/__dev/try?provider=yahoo.com"))
            links.append(Pages.Link("Try Sign in with Apple", href: "/__dev/try?provider=apple.com"))
            links.append(Pages.Link("Try Google sign-in", href: "/__dev/try?provider=google.com"))
            links.append(Pages.Link("Try web sign-in (the JS SDK's popup flow)", href: DevTryController.webPath))
        }
        if devMail { links.append(Pages.Link("Dev mailbox", href: WirePaths.devMail)) }
        if devSms { links.append(Pages.Link("Dev SMS", href: WirePaths.devSms)) }
        return message(
            "Hearth is running", "A Firebase Authentication–compatible identity server for project \(configuration.projectId).",
            tone: .success,
            facts: [
                ("Project", configuration.projectId),
                ("Accounts API", base + WirePaths.identityToolkitV1 + "/accounts:…"),
                ("Token refresh", base + WirePaths.secureToken),
                ("Public keys", base + WirePaths.wellKnownJWKS),
                ("Auth handler", configuration.publicURL.authHandlerURL),
                ("Emulator host", base.replacingOccurrences(of: "http://", with: "").replacingOccurrences(of: "https://", with: "")),
            ],
            detail: "Send Accept: application/json for this as JSON.", links: links, badge: dev ? "dev mode" : nil)
    }
}
