import Foundation
import HearthCore
import HearthStore
import HearthWire
import Hummingbird

/// `GET /.well-known/apple-app-site-association`: the `webcredentials` of the registered Apple apps that have a team id
/// (`hearth apps add-apple --team-id`, the console), so an app with `webcredentials:<this host>` in its Associated
/// Domains may use passkeys (and shared web credentials) whose relying party is this host. Apple fetches the file over
/// HTTPS from the domain itself (no redirect, `application/json`).
///
/// With no such app the answer is **404** (the error envelope saying what to register, `no-store`): Apple treats a
/// missing file as "no association", which is the truth, and an operator checking the URL sees why rather than an
/// empty list.
struct AppleAppSiteAssociationController {
    let store: any HearthStore

    /// The file's shape: `{"webcredentials":{"apps":["ABCDE12345.com.example.notes"]}}`.
    struct Association: Codable, Sendable, Equatable {
        struct WebCredentials: Codable, Sendable, Equatable {
            var apps: [String]
        }

        var webcredentials: WebCredentials
    }

    /// How long Apple's CDN and other caches may keep the file: registrations take effect within five minutes.
    static let cacheControl = "public, max-age=300"

    /// The association for `apps`: each Apple app with a team id and a bundle id, as `TEAMID.bundle.id`, sorted and
    /// without repeats; nil when there is none.
    static func association(for apps: [AppRegistration]) -> Association? {
        let identifiers = Set(apps.compactMap(\.appleAppIdentifier)).sorted()
        return identifiers.isEmpty ? nil : Association(webcredentials: .init(apps: identifiers))
    }

    func register(on router: Router<HearthRequestContext>) {
        router.get(RouterPath(WirePaths.appleAppSiteAssociation)) { _, _ -> Response in
            guard let association = Self.association(for: try await store.apps()) else {
                let refusal = HearthAPIError(.configurationNotFound,
                                             "no Apple app with a team id is registered (hearth apps add-apple --bundle-id … --team-id …)",
                                             httpStatus: 404)
                return try HearthResponseEncoder.response(refusal.envelope, status: .notFound)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            // Exactly `application/json` (Apple's requirement), no charset parameter.
            return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: Self.cacheControl],
                            body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(association))))
        }
    }
}
