import HearthAuth
import HearthPages
import HearthWire

/// The page the CLI's loopback listener shows in the browser, in the look of Hearth's other pages.
enum LoopbackPages {
    @Sendable static func render(_ outcome: LoopbackOutcome) -> String {
        switch outcome {
        case .confirmed(let provider):
            Pages.message(title: "\(provider) confirmed who you are",
                          message: "Return to the terminal: hearth finishes the sign-in there and shows the result (signed in, or an existing account to link).\n\nYou can close this window.",
                          tone: .success, badge: "hearth CLI")
        case .signedIn(let provider, let email):
            Pages.message(title: "Signed in with \(provider)",
                          message: "\(email.map { "You are signed in as \($0)." } ?? "You are signed in.") The terminal shows the account.\n\nYou can close this window.",
                          tone: .success, badge: "hearth CLI")
        case .linked(let provider, let email):
            Pages.message(title: "\(provider) linked",
                          message: "\(email.map { "\(provider) is now linked to \($0)." } ?? "\(provider) is now linked to your account.") The terminal shows the account.\n\nYou can close this window.",
                          tone: .success, badge: "hearth CLI")
        case .accountExists(let provider, let email, let methods):
            Pages.message(title: "An account already exists for \(email ?? "this email")",
                          message: "\(provider) confirmed \(email ?? "the address"), but another account uses it, so no one was signed in. Sign in to that account first, then link \(provider); the terminal shows the commands.",
                          tone: .warning, facts: [("Existing account uses", methods.isEmpty ? "-" : methods.joined(separator: ", "))],
                          badge: "hearth CLI")
        case .cancelled(let provider, let message):
            Pages.message(title: "Sign-in with \(provider) cancelled", message: message + "\n\nRun hearth signin \(provider) again to retry.",
                          tone: .warning, badge: "hearth CLI")
        case .refused(let provider, let message):
            Pages.message(title: SignInRefusal.provider.title(provider: provider), message: message + "\n\nThe terminal shows the details.",
                          tone: .error, badge: "hearth CLI")
        case .notAllowed(let provider, let message):
            Pages.message(title: SignInRefusal.rules.title(provider: provider), message: message + "\n\nThe terminal shows what to do.",
                          tone: .error, badge: "hearth CLI")
        case .failed(let provider, let message):
            Pages.message(title: SignInRefusal.server.title(provider: provider), message: message + "\n\nThe terminal shows the details; the server log has more.",
                          tone: .error, badge: "hearth CLI")
        }
    }
}
