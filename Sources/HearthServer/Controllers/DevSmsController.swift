import Foundation
import HearthCore
import HearthPages
import HearthWire
import Hummingbird

/// `/__dev/sms` (only with the dev SMS sink: `--dev`, `demo-*` projects): the text messages the server sent, newest
/// first, with their codes and sessions (the emulator's `verificationCodes` lists the same), every value escaped.
struct DevSmsController {
    let sink: DevSmsSink
    let publicURL: PublicBaseURL
    /// Where messages go besides the sink, for the page's summary.
    let summary: String

    func register(on router: Router<HearthRequestContext>) {
        DevSinkPage(path: WirePaths.devSms, cookieName: "hearth_dev_sms", publicURL: publicURL, clear: sink.clear) { [sink, summary] clear in
            let messages = sink.messages.reversed().map { entry in
                Pages.DevSms(time: entry.at.formatted(.iso8601), to: entry.phoneNumber, kind: entry.purpose.rawValue, tenant: entry.tenantId,
                             code: entry.code, sessionInfo: entry.sessionInfo, text: entry.text)
            }
            return Pages.devSms(Array(messages), summary: "\(messages.count) message(s), kept in memory only. Messages go to \(summary).",
                                clear: clear("Clear the messages"))
        }.register(on: router)
    }
}

extension EmulatorVerificationCodesRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> EmulatorVerificationCodesResponse {
        EmulatorVerificationCodesResponse(verificationCodes: (call.accounts.sms.devSink?.messages ?? []).map {
            EmulatorVerificationCode(phoneNumber: $0.phoneNumber, sessionInfo: $0.sessionInfo, code: $0.code)
        })
    }
}

extension EmulatorClearVerificationCodesRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> EmptyResponse {
        call.accounts.sms.devSink?.clear()
        return EmptyResponse()
    }
}
