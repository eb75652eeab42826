extension Pages {
    /// One message of the dev SMS sink.
    public struct DevSms: Sendable {
        public let time: String
        public let to: String
        /// The code's purpose: `sign_in`, `mfa_enrollment`, `mfa_sign_in`.
        public let kind: String
        /// The tenant, or a word for the project's own users.
        public let tenant: String
        public let code: String
        public let sessionInfo: String
        public let text: String

        public init(time: String, to: String, kind: String, tenant: String?, code: String, sessionInfo: String, text: String) {
            (self.time, self.to, self.kind, self.code, self.sessionInfo, self.text) = (time, to, kind, code, sessionInfo, text)
            self.tenant = nonEmpty(tenant) ?? "(the project's own users)"
        }
    }

    /// `/__dev/sms`: the text messages, newest first, and a form (`clear`) that empties the sink.
    public static func devSms(_ messages: [DevSms], summary: String, clear: Form) -> String {
        DevSinkModel.render(.devSms, title: "Dev SMS", messages: messages, summary: summary, clear: clear)
    }
}
