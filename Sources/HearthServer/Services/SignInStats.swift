import Foundation
import HearthCore
import HearthStore
import HearthWire
import Hummingbird

/// The kind of a sign-in RPC, as the console's overview and the `hearth_sign_ins_total` metric count it.
enum SignInKind: String, Sendable {
    case password, idp, custom, signUp, secondFactor, passkey, phone
}

/// The console overview's daily sign-in figures and the sign-in metrics: started sessions by provider, refused
/// sign-ins by error code. Best effort: counting never fails or changes an answer.
struct SignInStats: Sendable {
    let store: any HearthStore
    let clock: WallClock
    let metrics: HearthMetrics

    /// One started session (counted where sessions are issued).
    func countSignIn(provider: String, at time: Date) async {
        try? await store.incrementDailyCount(day: DailyCount.day(of: time), kind: "signIn", key: provider)
    }

    /// One refused sign-in of `kind`, by its error code, in `tenant` (empty: the project's own users, or a refusal
    /// made before the call's tenant was resolved).
    func countRefusal(_ kind: SignInKind, reason: String, tenant: String = "") async {
        try? await store.incrementDailyCount(day: DailyCount.day(of: clock.now()), kind: "refused", key: reason)
        metrics.count(.refusedSignIns, [reason])
        metrics.count(.signIns, [kind.rawValue, "refused", tenant])
    }
}
