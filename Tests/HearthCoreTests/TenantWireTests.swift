import Foundation
import HearthCore
import HearthWire
import Testing

/// Issue 38, item 1: the tenant resource's wire (Identity Platform's v2 `projects.tenants`) and the tenant model —
/// the bodies the Admin SDKs and google-api-python-client send, the fields refused by name, update masks, the
/// display-name rule, tenant ids in Identity Platform's form, and a new tenant's defaults.
@Suite struct TenantWireTests {
    func json(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    func object(_ value: some Encodable) throws -> [String: Any] {
        let data = try WireJSON.encoder.encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The refusal `body` gets from ``Tenant/decodeBody(_:)``.
    func refusal(_ body: String) throws -> TenantWireError {
        let value = try json(body)
        return try #require(throws: TenantWireError.self) { try Tenant.decodeBody(value) }
    }

    let created = Date(timeIntervalSince1970: 1_800_000_000)

    /// Issue 38, item 1: what firebase-admin-python's `create_tenant` and `update_tenant` send, what the Node and Go
    /// SDKs add (`enableAnonymousUser`, `mfaConfig` with TOTP), and a resource google-api-python-client got and sends
    /// back (`name` included) are read field by field.
    @Test func bodiesTheSDKsSendAreRead() throws {
        let python = try Tenant.decodeBody(json(#"{"displayName":"acme-corp","allowPasswordSignup":true,"enableEmailLinkSignin":false}"#))
        #expect(python == Tenant(displayName: "acme-corp", allowPasswordSignup: true, enableEmailLinkSignin: false))
        let node = try Tenant.decodeBody(json("""
            {"displayName":"Globex","enableAnonymousUser":true,"disableAuth":false,
             "mfaConfig":{"state":"ENABLED","enabledProviders":[],"providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":5}}]}}
            """))
        #expect(node.enableAnonymousUser == true && node.disableAuth == false)
        #expect(node.mfaConfig?.isTOTPEnabled == true)
        #expect(node.mfaConfig?.totp?.totpProviderConfig?.adjacentIntervals == 5)
        let roundTrip = try Tenant.decodeBody(json(#"{"name":"projects/p/tenants/acme-x7k2p","displayName":"acme","disableAuth":true}"#))
        #expect(roundTrip.name == "projects/p/tenants/acme-x7k2p" && roundTrip.disableAuth == true)
        // null is "no value" (a patch resets the field), not a type error.
        #expect(try Tenant.decodeBody(json(#"{"mfaConfig":null,"displayName":null}"#)) == Tenant())
    }

    /// Issue 38, item 1: the fields of Identity Platform's tenant that Hearth cannot honour are refused by name, each
    /// with its reason, never dropped; so are fields a tenant does not have (a typo, the emulator's `tenantId`).
    @Test func fieldsHearthCannotHonourAreRefusedByName() throws {
        for field in ["testPhoneNumbers", "smsRegionConfig", "recaptchaConfig", "passwordPolicyConfig", "emailPrivacyConfig",
                      "inheritance", "client", "autodeleteAnonymousUsers", "monitoring", "mobileLinksConfig", "hashConfig"] {
            let error = try refusal(#"{"displayName":"acme","\#(field)":{}}"#)
            #expect(error.code == .invalidArgument, "\(field)")
            #expect(error.detail.contains("'\(field)'") && error.detail.contains("does not support"), "\(error.detail)")
            let reason = try #require(Tenant.unsupportedFields[field])
            #expect(error.detail.contains(reason))
        }
        let typo = try refusal(#"{"displayName":"acme","allowPasswordSignUp":true}"#)
        #expect(typo.code == .invalidArgument)
        #expect(typo.detail.contains("'allowPasswordSignUp' is not a field of a tenant") && typo.detail.contains("allowPasswordSignup"))
        let emulatorId = try refusal(#"{"displayName":"acme","tenantId":"my-tenant"}"#)
        #expect(emulatorId.detail.contains("'tenantId' is not a field of a tenant") && emulatorId.detail.contains("chosen by the server"))
        // Inside mfaConfig too: SMS settings and unknown factor configs are named by their path.
        let nested = try refusal(#"{"mfaConfig":{"state":"ENABLED","factorIds":["PHONE_SMS"]}}"#)
        #expect(nested.detail.contains("'mfaConfig.factorIds'"))
        let provider = try refusal(#"{"mfaConfig":{"providerConfigs":[{"state":"ENABLED","phoneSmsConfig":{}}]}}"#)
        #expect(provider.detail.contains("'mfaConfig.providerConfigs[0].phoneSmsConfig'") && provider.detail.contains("TOTP"))
        let totp = try refusal(#"{"mfaConfig":{"providerConfigs":[{"totpProviderConfig":{"adjacentIntervals":1,"digits":8}}]}}"#)
        #expect(totp.detail.contains("'mfaConfig.providerConfigs[0].totpProviderConfig.digits'"))
        // A name with a bidi override or a long run is quoted without format characters and cut at 64.
        let hostile = try refusal("{\"a\u{202E}b\(String(repeating: "x", count: 200))\":1}")
        #expect(!hostile.detail.unicodeScalars.contains("\u{202E}") && !hostile.detail.contains(String(repeating: "x", count: 65)))
    }

    /// Issue 38, item 1: a value of the wrong type is refused naming the field, and a body that is not an object is
    /// `INVALID_JSON_PAYLOAD`.
    @Test func wrongTypesAreRefusedNamingTheField() throws {
        let flag = try refusal(#"{"allowPasswordSignup":"yes"}"#)
        #expect(flag.code == .invalidArgument && flag.detail == "'allowPasswordSignup' must be true or false")
        let name = try refusal(#"{"displayName":42}"#)
        #expect(name.detail == "'displayName' must be a string")
        let mfa = try refusal(#"{"mfaConfig":{"state":"SOMETIMES"}}"#)
        #expect(mfa.code == .invalidArgument && mfa.detail.hasPrefix("'mfaConfig' must be"))
        let notObject = try refusal(#"["displayName"]"#)
        #expect(notObject.code == .invalidJSONPayload)
        #expect(notObject.description.hasPrefix("INVALID_JSON_PAYLOAD : "))
    }

    /// Issue 38, item 1: `updateMask` paths as the SDKs build them (leaves: `mfaConfig.providerConfigs,mfaConfig.state`)
    /// are accepted; a path Hearth cannot change is `INVALID_UPDATE_MASK` naming it (with the reason for Identity
    /// Platform's fields); without a mask the fields present in the body change, null included.
    @Test func updateMasks() throws {
        let body = try json(#"{"displayName":"acme","allowPasswordSignup":true}"#)
        #expect(try Tenant.updatePaths(updateMask: "allowPasswordSignup,displayName,enableEmailLinkSignin", body: body)
                == ["allowPasswordSignup", "displayName", "enableEmailLinkSignin"])
        #expect(try Tenant.updatePaths(updateMask: " mfaConfig.providerConfigs , mfaConfig.state,name,mfaConfig.state", body: body)
                == ["mfaConfig.providerConfigs", "mfaConfig.state"])
        let unsupported = try #require(throws: TenantWireError.self) {
            try Tenant.updatePaths(updateMask: "displayName,testPhoneNumbers", body: body)
        }
        #expect(unsupported.code == .invalidUpdateMask)
        #expect(unsupported.detail.contains("'testPhoneNumbers'") && unsupported.detail.contains("the project's test phone numbers"))
        let unknown = try #require(throws: TenantWireError.self) { try Tenant.updatePaths(updateMask: "signIn.email.enabled", body: body) }
        #expect(unknown.detail.contains("'signIn.email.enabled'") && unknown.detail.contains("no such field"))
        let deep = try #require(throws: TenantWireError.self) { try Tenant.updatePaths(updateMask: "mfaConfig.providerConfigs.state", body: body) }
        #expect(deep.code == .invalidUpdateMask && deep.detail.contains("mfaConfig.providerConfigs.state"))
        // No mask: what the body holds, in the resource's order; `name` is never a change.
        let maskless = try json(#"{"name":"projects/p/tenants/t","mfaConfig":null,"disableAuth":true}"#)
        #expect(try Tenant.updatePaths(updateMask: nil, body: maskless) == ["disableAuth", "mfaConfig"])
        #expect(try Tenant.updatePaths(updateMask: "", body: maskless) == ["disableAuth", "mfaConfig"])
    }

    /// Issue 38, item 1: a new tenant's sign-in flags are off unless the create body sets them (Identity Platform's
    /// defaults), the display name is required and checked, and the id is made from it.
    @Test func aNewTenantHasEverythingOff() throws {
        let record = try TenantRecord.creating(Tenant(displayName: "Acme-Corp"), at: created)
        #expect(record.settings == TenantSettings(allowPasswordSignup: false, enableEmailLinkSignin: false, enableAnonymousUser: false,
                                                  disableAuth: false, mfa: nil))
        #expect(record.displayName == "Acme-Corp" && record.createdAt == created)
        #expect(record.id.hasPrefix("acme-corp-") && record.id.count == "acme-corp-".count + 5)
        let chosen = try TenantRecord.creating(Tenant(displayName: "Globex", allowPasswordSignup: true, enableAnonymousUser: true),
                                               id: "globex-abcde", at: created)
        #expect(chosen.id == "globex-abcde")
        #expect(chosen.settings.allowPasswordSignup && chosen.settings.enableAnonymousUser)
        #expect(!chosen.settings.enableEmailLinkSignin && !chosen.settings.disableAuth)
        let missing = try #require(throws: TenantWireError.self) { try TenantRecord.creating(Tenant(allowPasswordSignup: true), at: created) }
        #expect(missing.code == .invalidDisplayName && missing.detail.contains("needs a displayName"))
    }

    /// Issue 38, item 1: the display-name rule the Admin SDKs check — a letter first, letters, digits and hyphens,
    /// 4 to 20 characters — with a message that says it.
    @Test func displayNameRule() throws {
        for good in ["abcd", "Acme-Corp", "a123", "admin-python-tenant", String(repeating: "x", count: 20), "ab--"] {
            #expect(TenantDisplayName.isValid(good), "\(good)")
        }
        for bad in ["", "foo", "1test", "foo bar", "-abc", String(repeating: "x", count: 21), "acmé-corp", "acme_corp", "a\u{202E}bcd"] {
            #expect(!TenantDisplayName.isValid(bad), "\(bad)")
            let error = try #require(throws: TenantWireError.self) { try TenantDisplayName.check(bad) }
            #expect(error.code == .invalidDisplayName && error.detail.contains("starts with a letter and has 4 to 20"))
        }
        #expect(try TenantDisplayName.check("Acme") == "Acme")
    }

    /// Issue 38, item 1: tenant ids in Identity Platform's form — the display name in lower case, `-`, five random
    /// `a-z0-9` — different each time, and always valid ids; the validator refuses everything else.
    @Test func tenantIds() throws {
        let ids = (0..<200).map { _ in TenantRecord.newId(displayName: "Acme-Corp") }
        #expect(Set(ids).count > 190)
        for id in ids {
            #expect(id.hasPrefix("acme-corp-") && TenantRecord.isValidId(id), "\(id)")
            #expect(id.dropFirst("acme-corp-".count).allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber) }, "\(id)")
        }
        // Every suffix character turns up: the alphabet is a-z0-9, drawn uniformly.
        let suffixes = Set((0..<400).flatMap { _ in TenantRecord.newId(displayName: "abcd").suffix(5) })
        #expect(suffixes.count == 36)
        // A name outside the rule still makes a valid id.
        #expect(TenantRecord.newId(displayName: "Über Café").hasPrefix("tenant-"))
        #expect(TenantRecord.newId(displayName: "Acme Corp!").hasPrefix("acme-corp--"))
        #expect(TenantRecord.isValidId(TenantRecord.newId(displayName: "1 2 3")))
        #expect(TenantRecord.newId(displayName: "1 2 3").hasPrefix("tenant-"))
        #expect(TenantRecord.newId(displayName: String(repeating: "Z", count: 40)).count == 26)
        for valid in ["acme-corp-x7k2p", "tenant1-624h4", "abcd", "a-b-c-d", String(repeating: "a", count: 32)] {
            #expect(TenantRecord.isValidId(valid), "\(valid)")
        }
        for invalid in ["", "abc", "Acme-x7k2p", "1acme-x7k2p", "acme-", "acme_x7k2p", "acme x7k2p", String(repeating: "a", count: 33),
                        "acme/../x", "acmé-x7k2p", "acme-x7k2p\u{202E}"] {
            #expect(!TenantRecord.isValidId(invalid), "\(invalid)")
        }
    }

    /// Issue 38, item 1: a patch sets each named field from the body and resets a named field the body leaves out;
    /// `mfaConfig`'s own fields change one at a time; the display name cannot be removed or broken.
    @Test func patches() throws {
        let totp = MultiFactorAuthConfig.ProviderConfig(state: .enabled, totpProviderConfig: .init(adjacentIntervals: 2))
        let record = TenantRecord(id: "acme-x7k2p", displayName: "acme",
                                  settings: TenantSettings(allowPasswordSignup: true, enableEmailLinkSignin: true,
                                                           mfa: MultiFactorAuthConfig(state: .enabled, providerConfigs: [totp])),
                                  createdAt: created)
        let patched = try record.patched(with: Tenant(displayName: "acme-two", disableAuth: true),
                                         paths: ["displayName", "disableAuth", "allowPasswordSignup", "mfaConfig.state"])
        #expect(patched.displayName == "acme-two" && patched.settings.disableAuth)
        #expect(!patched.settings.allowPasswordSignup, "named in the mask, absent from the body: reset to off")
        #expect(patched.settings.enableEmailLinkSignin, "not named: kept")
        #expect(patched.settings.mfa == MultiFactorAuthConfig(state: nil, providerConfigs: [totp]))
        #expect(patched.id == record.id && patched.createdAt == created)
        let cleared = try patched.patched(with: Tenant(), paths: ["mfaConfig.providerConfigs"])
        #expect(cleared.settings.mfa == nil, "nothing left set")
        let whole = try record.patched(with: Tenant(mfaConfig: MultiFactorAuthConfig(state: .disabled)), paths: ["mfaConfig"])
        #expect(whole.settings.mfa == MultiFactorAuthConfig(state: .disabled))
        let removed = try #require(throws: TenantWireError.self) { try record.patched(with: Tenant(), paths: ["displayName"]) }
        #expect(removed.code == .invalidDisplayName)
        let broken = try #require(throws: TenantWireError.self) { try record.patched(with: Tenant(displayName: "a b"), paths: ["displayName"]) }
        #expect(broken.code == .invalidDisplayName)
        let unknown = try #require(throws: TenantWireError.self) { try record.patched(with: Tenant(), paths: ["hashConfig"]) }
        #expect(unknown.code == .invalidUpdateMask)
    }

    /// Issue 38, item 1: the resource the API answers — Google's field names, `name` as
    /// `projects/{p}/tenants/{t}` (the SDKs take the id from its last segment), every flag written out, no `tenantId`;
    /// a list page without `tenants` when empty.
    @Test func theResourceAnswered() throws {
        let record = TenantRecord(id: "acme-x7k2p", displayName: "acme", settings: TenantSettings(enableAnonymousUser: true), createdAt: created)
        let resource = try object(record.resource(projectId: "my-app"))
        #expect(resource["name"] as? String == "projects/my-app/tenants/acme-x7k2p")
        #expect(Set(resource.keys) == ["name", "displayName", "allowPasswordSignup", "enableEmailLinkSignin", "enableAnonymousUser", "disableAuth"])
        #expect(resource["allowPasswordSignup"] as? Bool == false && resource["enableAnonymousUser"] as? Bool == true)
        let withMFA = TenantRecord(id: "acme-x7k2p", displayName: "acme", settings: TenantSettings(mfa: MultiFactorAuthConfig(state: .enabled)),
                                   createdAt: created)
        let mfa = try object(withMFA.resource(projectId: "p"))["mfaConfig"] as? [String: Any]
        #expect(mfa?["state"] as? String == "ENABLED")
        #expect(try object(ListTenantsResponse(tenants: [], nextPageToken: nil)).isEmpty)
        let page = try object(ListTenantsResponse(tenants: [record.resource(projectId: "p")], nextPageToken: "acme-x7k2p"))
        #expect((page["tenants"] as? [Any])?.count == 1 && page["nextPageToken"] as? String == "acme-x7k2p")
    }

    /// Issue 38, item 1: stored settings decode with defaults for fields they lack, so settings added later read old
    /// rows; a round trip keeps everything.
    @Test func storedSettings() throws {
        let empty = try JSONDecoder().decode(TenantSettings.self, from: Data("{}".utf8))
        #expect(empty == TenantSettings())
        let full = TenantSettings(allowPasswordSignup: true, enableEmailLinkSignin: true, enableAnonymousUser: true, disableAuth: true,
                                  mfa: MultiFactorAuthConfig(state: .enabled, enabledProviders: ["PHONE_SMS"]))
        #expect(try JSONDecoder().decode(TenantSettings.self, from: JSONEncoder().encode(full)) == full)
    }
}
