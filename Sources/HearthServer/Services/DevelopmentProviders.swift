import HearthCore
import Hummingbird

/// Sign-in providers served from memory for development and tests (`hearth serve --dev`). HearthServer knows them
/// only through this protocol; the composition roots (the `hearth` command, the test harness) hand it HearthDevIdP's.
/// Their settings are computed from the dev IdPs' current URL and never written to the store, so a real
/// registration is never replaced.
public protocol DevelopmentProviders: Sendable {
    /// The configurations of the providers they serve, used where nothing is stored for a provider id.
    func providerConfigs() -> [IdPConfig]
    /// Adds their routes (`/__dev/…`) to the router.
    func register<Context: RequestContext>(on router: Router<Context>)
}

extension DevelopmentProviders {
    func config(_ providerId: String) -> IdPConfig? { providerConfigs().first { $0.providerId == providerId } }
}
