import Foundation
import HearthCore
import HearthPages
import HearthWire
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /__/auth/passkey` and its script `GET /__/auth/passkey.js`: a WebAuthn bridge on Hearth's origin. The app
/// got options from `passkeySignIn:start` or `passkeyEnrollment:start` and opens
/// `?mode=signin|enroll&options=<base64url of the options JSON>&redirectUrl=…&state=…[&appId=…]`; the page, on a
/// click, runs `navigator.credentials.get|create` and returns `passkeyResponse=<base64url of the response JSON>` and
/// `state` (or `error`, `error_description` and `state`) to the app, which calls the finalize RPC. No token travels
/// in a URL; the return address is checked like the auth handler's.
struct PasskeyPageController {
    let federation: FederationService

    /// The most a page request's query may carry (options of ten credentials fit in well under half of it).
    static let maxQueryBytes = 8 * 1024

    func register(on router: Router<HearthRequestContext>) {
        router.get(RouterPath(WirePaths.passkeyScript)) { _, _ in
            Response(status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "no-cache",
                                            HTTPField.Name("X-Content-Type-Options")!: "nosniff"],
                     body: .init(byteBuffer: ByteBuffer(string: Pages.passkeyScript)))
        }
        router.get(RouterPath(WirePaths.passkeyPage)) { request, _ in try await page(request) }
    }

    func page(_ request: Request) async throws -> Response {
        let rawQuery = request.uri.query ?? ""
        guard rawQuery.utf8.count <= Self.maxQueryBytes else {
            return refusal("Request too large", "The passkey request is larger than this page takes (\(Self.maxQueryBytes / 1024) KB). Start again from the app.")
        }
        var query: [String: String] = [:]
        for (key, value) in FormQuery(rawQuery).fields { query[key] = value }
        let mode = query["mode"] ?? ""
        guard mode == "signin" || mode == "enroll" else {
            return refusal("Invalid passkey request", "The app must say mode=signin or mode=enroll. Start again from the app.")
        }
        let target: PasskeyPageReturn
        switch try await federation.passkeyPageReturn(redirectUrl: query[.redirectUrl] ?? "", appId: query[.appId] ?? query[.clientId], in: federation.accounts.scopes.project) {
        case .success(let value): target = value
        case .failure(let error): return AuthHandlerController.render(error.outcome)
        }
        guard let state = query["state"], (1...1024).contains(state.utf8.count), !state.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return refusal("Invalid passkey request", "The app must send a state (up to 1024 characters) that it checks when you return.")
        }
        let optionsText = query["options"] ?? ""
        guard let site = Self.site(ofOptions: optionsText, enroll: mode == "enroll") else {
            return refusal("Invalid passkey request", "The passkey options the app sent cannot be read. Start again from the app.")
        }
        let html = Pages.passkey(enroll: mode == "enroll", options: optionsText, returnURL: target.url, state: state, appName: target.appName,
                                 site: site, script: WirePaths.passkeyScript)
        return Response(status: .ok, headers: [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", .contentSecurityPolicy: Pages.passkeyContentSecurityPolicy,
            ActionHandlerController.referrerPolicy: "no-referrer", HTTPField.Name("X-Frame-Options")!: "DENY",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        ], body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    func refusal(_ title: String, _ message: String) -> Response {
        HTMLPage.message(title, message, tone: .error, status: .badRequest)
    }

    /// The relying party id the options name, when `text` is base64 (either alphabet) of options JSON of the mode's
    /// shape whose binary members are base64: the challenge (16 to 1024 bytes), the user handle (1 to 64 bytes), the
    /// credential ids. Nil for anything else.
    static func site(ofOptions text: String, enroll: Bool) -> String? {
        guard !text.isEmpty, let json = Data(base64URLEncoded: text) else { return nil }
        func validId(_ descriptor: PasskeyCredentialDescriptor) -> Bool { PasskeyBytes.decode(descriptor.id).map { (1...1023).contains($0.count) } ?? false }
        func validChallenge(_ challenge: String) -> Bool { PasskeyBytes.decode(challenge).map { (16...1024).contains($0.count) } ?? false }
        let rpId: String
        if enroll {
            guard let options = try? JSONDecoder().decode(PasskeyCreationOptions.self, from: json), validChallenge(options.challenge),
                  PasskeyBytes.decode(options.user.id).map({ (1...64).contains($0.count) }) ?? false,
                  !options.pubKeyCredParams.isEmpty, (options.excludeCredentials ?? []).allSatisfy(validId) else { return nil }
            rpId = options.rp.id
        } else {
            guard let options = try? JSONDecoder().decode(PasskeyRequestOptions.self, from: json), validChallenge(options.challenge),
                  (options.allowCredentials ?? []).allSatisfy(validId) else { return nil }
            rpId = options.rpId
        }
        guard (1...253).contains(rpId.utf8.count), rpId.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }) else { return nil }
        return rpId
    }
}
