import Foundation
import Hummingbird

/// `hearth-bench --floor-server PORT` (issue 41, item 3): the framework's floor — a minimal Hummingbird 2 app in its
/// own process, with one POST route that decodes a JSON body of an `accounts:lookup` request's shape and size (an
/// ID token) and answers a JSON body of a lookup reply's shape and size (~1 KB), with Hummingbird's default JSON
/// coders and no middleware. The scale run loads it exactly like lookup and reads its CPU from `/proc`; lookup's CPU
/// is reported as a ratio to (this floor + one OpenSSL RSA-2048 verify).
enum FloorServer {
    struct LookupRequest: Decodable, Sendable {
        var idToken: String
    }

    struct ProviderInfo: Codable, Sendable {
        var providerId: String
        var federatedId: String
        var email: String
        var rawId: String
        var displayName: String
        var photoUrl: String
    }

    struct UserInfo: Codable, Sendable {
        var localId: String
        var email: String
        var emailVerified: Bool
        var displayName: String
        var photoUrl: String
        var phoneNumber: String
        var providerUserInfo: [ProviderInfo]
        var passwordHash: String
        var passwordUpdatedAt: Double
        var validSince: String
        var disabled: Bool
        var lastLoginAt: String
        var createdAt: String
        var customAuth: Bool
        var lastRefreshAt: String
    }

    struct LookupReply: ResponseEncodable, Sendable {
        var kind: String
        var users: [UserInfo]
    }

    /// A reply of the size and shape of Hearth's lookup answer for a password user with a federated identity; the
    /// request's token length goes into it, so the body is built from the request as a real handler's is.
    static func reply(for request: LookupRequest) -> LookupReply {
        let localId = String(request.idToken.suffix(28))
        let email = "user\(request.idToken.utf8.count)@scale.example.com"
        let provider = ProviderInfo(providerId: "google.com", federatedId: "109876543210987654321", email: email, rawId: "109876543210987654321",
                                    displayName: "Scale User", photoUrl: "https://lh3.googleusercontent.com/a/" + localId)
        let password = ProviderInfo(providerId: "password", federatedId: email, email: email, rawId: email, displayName: "Scale User",
                                    photoUrl: "https://photos.example.com/\(localId).jpg")
        let user = UserInfo(localId: localId, email: email, emailVerified: true, displayName: "Scale User",
                            photoUrl: "https://photos.example.com/\(localId).jpg", phoneNumber: "+447000012345", providerUserInfo: [provider, password],
                            passwordHash: "UkVEQUNURUQ=", passwordUpdatedAt: 1_700_000_000_000, validSince: "1700000000", disabled: false,
                            lastLoginAt: "1700000000000", createdAt: "1600000000000", customAuth: true, lastRefreshAt: "2026-11-28T16:00:00.000Z")
        return LookupReply(kind: "identitytoolkit#GetAccountInfoResponse", users: [user])
    }

    /// Serves until SIGTERM or SIGINT; exits with status 1 at once when it cannot (e.g. the port is taken).
    static func run(port: Int) async throws {
        do {
            try await serve(port: port)
        } catch {
            FileHandle.standardError.write(Data("hearth-bench --floor-server \(port): \(error)\n".utf8))
            exit(1)
        }
    }

    static func serve(port: Int) async throws {
        let router = Router()
        router.post("/floor/lookup") { request, context -> LookupReply in
            reply(for: try await request.decode(as: LookupRequest.self, context: context))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
        try await app.runService()
    }
}
