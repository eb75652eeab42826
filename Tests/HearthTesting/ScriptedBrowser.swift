import Synchronization
import Foundation
import HearthAuth

/// An `AuthUIDelegate` that acts as the user's browser, over real HTTP: follows the auth handler's redirect to the
/// dev IdP, fills its login form with `email` and `name` (or cancels), follows the callback back to Hearth (a
/// redirect, or Apple's `form_post` page submitted as its script would) and on to the app's loopback address, where
/// the SDK's listener receives it.
public struct ScriptedBrowserUIDelegate: AuthUIDelegate {
    public let email: String
    public let name: String
    public let cancel: Bool
    /// The hops taken, for assertions.
    public let visited = VisitLog()

    public init(email: String, name: String = "", cancel: Bool = false) {
        self.email = email
        self.name = name
        self.cancel = cancel
    }

    /// The URLs a scripted browser visited.
    public final class VisitLog: Sendable {
        let urls = Locked<[String]>([])
        let pages = Locked<[String]>([])
        public var all: [String] { urls.value }
        /// The body of the last page shown (e.g. the app's loopback page).
        public var lastPage: String? { pages.value.last }
        func append(_ url: String) { urls.mutate { $0.append(url) } }
        func show(_ body: String) { pages.mutate { $0.append(body) } }
    }

    public func open(_ url: URL) async throws {
        var next = url.absoluteString
        var posted = false
        for _ in 0..<10 {
            visited.append(next)
            let page = try await Browser.get(next)
            visited.show(page.body)
            if let location = page.location, page.status == 302 || page.status == 303 {
                next = location
                continue
            }
            if page.status == 200, !posted, let requestId = HearthHarness.capture(#"name="request_id" value="([^"]+)""#, in: page.body),
               let action = HearthHarness.capture(#"action="([^"]+)""#, in: page.body) {
                let base = URLComponents(string: next).map { "\($0.scheme ?? "http")://\($0.host ?? "127.0.0.1"):\($0.port ?? 80)" } ?? ""
                let submitted = try await Browser.post(action.hasPrefix("http") ? action : base + action,
                                                       form: [("request_id", requestId), ("email", email), ("name", name), ("action", cancel ? "cancel" : "login")])
                posted = true
                if let form = Browser.formPost(submitted) {
                    // Apple's `form_post` page: what its script submits.
                    visited.append(form.action)
                    let delivered = try await Browser.post(form.action, form: form.fields)
                    visited.show(delivered.body)
                    guard let location = delivered.location else { return }
                    next = location
                    continue
                }
                guard let location = submitted.location else { return }
                next = location
                continue
            }
            return
        }
    }
}

/// A tiny `Mutex`-protected box for test helpers.
public final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    public init(_ value: Value) { storage = Mutex(value) }
    public var value: Value { storage.withLock { $0 } }
    public func mutate(_ body: (inout Value) -> Void) { storage.withLock { body(&$0) } }
}
