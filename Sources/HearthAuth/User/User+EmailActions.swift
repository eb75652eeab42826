import Foundation
import HearthWire

// Verification emails of the signed-in user (Firebase's names).
extension User {
    /// Sends the user's address a verification link; `Auth.applyActionCode(_:)` with its code (or the server's
    /// action page) marks the email verified.
    public func sendEmailVerification(with actionCodeSettings: ActionCodeSettings? = nil) async throws {
        try await sendOobCode(.verifyEmail, newEmail: nil, actionCodeSettings)
    }

    /// Sends `email` a link that, once opened (or applied with `Auth.applyActionCode(_:)`), makes it the user's
    /// email; the old address is then told and sent a link to undo the change.
    public func sendEmailVerification(beforeUpdatingEmail email: String, actionCodeSettings: ActionCodeSettings? = nil) async throws {
        try await sendOobCode(.verifyAndChangeEmail, newEmail: email, actionCodeSettings)
    }

    private func sendOobCode(_ type: OobRequestType, newEmail: String?, _ settings: ActionCodeSettings?) async throws {
        let token = try await getIDToken()
        do {
            _ = try await auth.send(SendOobCodeRequest(requestType: type, newEmail: newEmail, idToken: token, settings: settings?.wire), tenantID: tenantID)
        } catch {
            auth.signOutIfTokenIsInvalid(error, user: self)
            throw error
        }
    }

    // Completion-handler forms, as Firebase has them.

    public func sendEmailVerification(completion: (@Sendable ((any Error)?) -> Void)?) {
        Task { do { try await sendEmailVerification(); completion?(nil) } catch { completion?(error) } }
    }

    public func sendEmailVerification(with actionCodeSettings: ActionCodeSettings, completion: (@Sendable ((any Error)?) -> Void)?) {
        Task { do { try await sendEmailVerification(with: actionCodeSettings); completion?(nil) } catch { completion?(error) } }
    }

    public func sendEmailVerification(beforeUpdatingEmail email: String, actionCodeSettings: ActionCodeSettings? = nil,
                                      completion: (@Sendable ((any Error)?) -> Void)?) {
        Task {
            do { try await sendEmailVerification(beforeUpdatingEmail: email, actionCodeSettings: actionCodeSettings); completion?(nil) } catch { completion?(error) }
        }
    }
}
