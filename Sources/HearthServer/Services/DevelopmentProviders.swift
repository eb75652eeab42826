import HearthCore
import Hummingbird

/// The dev IdPs' provider settings for this process (`--dev`): computed from the dev IdPs' current URL, never
/// written to the store, so that a real registration is never replaced.
/// Sign-in providers served from memory for development and tests (`hearth serve --dev`). HearthServer knows them
/// only through this protocol; the composition roots (the `hearth` command, the test harness) hand it HearthDevIdP's.
public protocol DevelopmentProviders: Sendable {
    /// The configurations of the providers they serve, used where nothing is stored for a provider id.
    func providerConfigs() -> [IdPConfig]
    /// Adds their routes (`/__dev/…`) to the router.
    func register<Context: RequestContext>(on router: Router<Context>)
}

extension DevelopmentProviders {
    func config(_ providerId: String) -> IdPConfig? { providerConfigs().first { $0.providerId == providerId } }
}
