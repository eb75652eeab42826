/// `GET /emulator/v1/projects/{p}/verificationCodes`: the codes in the dev SMS sink (the Auth emulator's endpoint).
public struct EmulatorVerificationCodesRequest: Codable, Sendable, Equatable {
    public init() {}
}

/// One code in the dev SMS sink, as the Auth emulator lists it.
public struct EmulatorVerificationCode: Codable, Sendable, Equatable {
    /// The number, E.164.
    public var phoneNumber: String
    /// The `sessionInfo` the code completes.
    public var sessionInfo: String
    /// The 6-digit code.
    public var code: String

    public init(phoneNumber: String, sessionInfo: String, code: String) {
        (self.phoneNumber, self.sessionInfo, self.code) = (phoneNumber, sessionInfo, code)
    }
}

/// The answer to `GET …/verificationCodes`, oldest first.
public struct EmulatorVerificationCodesResponse: Codable, Sendable, Equatable {
    public var verificationCodes: [EmulatorVerificationCode]
    public init(verificationCodes: [EmulatorVerificationCode]) { self.verificationCodes = verificationCodes }
}

/// `DELETE /emulator/v1/projects/{p}/verificationCodes`: empties the dev SMS sink (Hearth's addition).
public struct EmulatorClearVerificationCodesRequest: Codable, Sendable, Equatable {
    public init() {}
}

extension EmulatorVerificationCodesRequest: WireRPC {
    public typealias Response = EmulatorVerificationCodesResponse
    public static let method = RPCMethod(group: .emulator, v1: "verificationCodes", v3: nil,
                                         routes: [.init(WirePaths.emulatorVerificationCodes, ["GET"])])
}

extension EmulatorClearVerificationCodesRequest: WireRPC {
    public typealias Response = EmptyResponse
    public static let method = RPCMethod(group: .emulator, v1: "verificationCodes:clear", v3: nil,
                                         routes: [.init(WirePaths.emulatorVerificationCodes, ["DELETE"])])
}
