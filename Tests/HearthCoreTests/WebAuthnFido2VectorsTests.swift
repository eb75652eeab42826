import Crypto
import Foundation
import HearthCore
import HearthWire
import Testing

/// Registrations and assertions made by fido2 (python-fido2, an independent implementation) with `cryptography`
/// keys: `Tests/e2e/webauthn_vectors.py --print` writes these rows and, without `--print`, re-verifies every row here
/// with fido2. Each row: algorithm, attestation format, flags (both ceremonies, without AT/ED), the registration's
/// counter (the assertion's is one more), rp id, origin, then base64url clientDataJSON + attestationObject of the
/// registration and clientDataJSON + authenticatorData + signature of the assertion.
@Suite struct WebAuthnFido2VectorsTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let alg: Int64, format: String, flags: UInt8, counter: UInt32, rpId: String, origin: String
        let create: String, attestation: String, get: String, authenticatorData: String, signature: String
        var testDescription: String { "\(alg) \(format) flags \(flags) counter \(counter)" }
    }

    static func V(_ alg: Int64, _ format: String, _ flags: UInt8, _ counter: UInt32, _ rpId: String, _ origin: String,
                  _ create: String, _ attestation: String, _ get: String, _ authenticatorData: String, _ signature: String) -> Row {
        Row(alg: alg, format: format, flags: flags, counter: counter, rpId: rpId, origin: origin, create: create,
            attestation: attestation, get: get, authenticatorData: authenticatorData, signature: signature)
    }

    static func bytes(_ text: String) throws -> Data { try #require(Data(base64URLEncoded: text)) }

    @Test(arguments: rows)
    func registrationThenAssertion(_ row: Row) throws {
        let rpIdHash = Data(SHA256.hash(data: Data(row.rpId.utf8)))
        let create = try Self.bytes(row.create)
        let clientData = try CollectedClientData(json: create)
        #expect(clientData.type == "webauthn.create" && clientData.origin == row.origin && !clientData.crossOrigin)
        #expect(clientData.challenge.count == 32)

        let object = try AttestationObject(bytes: Self.bytes(row.attestation))
        #expect(object.format == row.format)
        let verification = try object.verify(clientDataHash: Data(SHA256.hash(data: create)))
        #expect(verification == (row.format == "none" ? .noStatement : .selfAttestation))
        let registered = object.authData
        #expect(registered.rpIdHash == rpIdHash)
        #expect(registered.flags.rawValue & 0x3f == row.flags && registered.flags.contains(.at))
        #expect(registered.signCount == row.counter)
        #expect(registered.flags.contains(.ed) == (registered.extensions != nil))
        let credential = try #require(registered.attestedCredential)
        #expect(credential.publicKey.alg.rawValue == row.alg)
        #expect(try COSEKey(bytes: credential.publicKeyBytes).alg.rawValue == row.alg)
        // The self attestation is tied to this client data: another hash fails.
        if row.format == "packed" {
            #expect(throws: WebAuthnError.attestationSignatureInvalid) { try object.verify(clientDataHash: Data(count: 32)) }
        }

        let get = try Self.bytes(row.get)
        #expect(try CollectedClientData(json: get).type == "webauthn.get")
        let assertionBytes = try Self.bytes(row.authenticatorData)
        let assertion = try AuthenticatorData(bytes: assertionBytes)
        #expect(assertion.rpIdHash == rpIdHash && assertion.flags.rawValue == row.flags)
        #expect(assertion.signCount == row.counter &+ 1 && assertion.attestedCredential == nil)
        let message = assertionBytes + Data(SHA256.hash(data: get))
        let signature = try Self.bytes(row.signature)
        #expect(credential.publicKey.isValidSignature(signature, for: message))
        var tampered = signature
        tampered[tampered.count / 2] ^= 0x01
        #expect(!credential.publicKey.isValidSignature(tampered, for: message))
        var otherMessage = message
        otherMessage[32] ^= 0x04 // the UV flag
        #expect(!credential.publicKey.isValidSignature(signature, for: otherMessage))
    }

    static let rows: [Row] = [
        V(-7, "none", 0x05, 0, "localhost", "http://localhost:9099", "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoicUtoeEFRcDRjcWhFOE00NFhlUkJYUTVhQzdBWDAwRWllSG1zZkpTSVRFZyIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6OTA5OSIsImNyb3NzT3JpZ2luIjpmYWxzZX0", "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YViUSZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2NFAAAAAAAAAAAAAAAAAAAAAAAAAAAAELTx30nY9BcyudVeGPMVoFylAQIDJiABIVggNfKiVXTsb_QlO7MkzI6AxfLUdZbhgT_ZpT9BYuHWwl0iWCBWN6Ir7lysBfV4pwILbj5eHzibboqjJ9jsS5GMPYaQYw", "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiQ1JpalZJQTN2NkhoQVNSNXNRSFpxT2FJYXA2MkU5TzMxTWh3cS1wZkUxVSIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6OTA5OSIsImNyb3NzT3JpZ2luIjpmYWxzZX0", "SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAAAQ", "MEUCIDr0EzsmclHqc7WCZMkX9ozaf1oHFJ27HEqRRqoYvD1OAiEA5wPAl8bWfm0RK-VIGL0wGxlmAgndIFKl2ldYdaEw8K0"),
        V(-7, "packed", 0x01, 41, "example.com", "https://login.example.com", "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoial9YTTRYM1lFVVZyVmpucnVFNHdpQzRHc0ZJbkpwTW9EMV8xRkVIZTAtVSIsIm9yaWdpbiI6Imh0dHBzOi8vbG9naW4uZXhhbXBsZS5jb20iLCJjcm9zc09yaWdpbiI6ZmFsc2V9", "o2NmbXRmcGFja2VkZ2F0dFN0bXSiY2FsZyZjc2lnWEgwRgIhAMMPZVcOcTWJtNa3kyeQgxwQuuoOsCOsMBbQ_H-zzMIxAiEAnk15AAfNWL3zl4QAWsbthP2ZY1OMm_GEwpOCvyrywI5oYXV0aERhdGFYlqN5pvbur7mlXjeMEYA04nUeaC-rny0wqxPSElWGzhlHQQAAACniAEm9MEf94nuCyKFLPucsABIcTGVJwY5avwo41x9NG4w1XKClAQIDJiABIVggJEsKsD8qelzNOZ6VsReGI4hm5SAEpoxNyyVXfeKASAwiWCAN7LQ3MggBzjzRiKq31md8YgyJm9GsBbvC11kWtBMp1w", "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoieVpraFN0RHBDVS1pWjVTcktXa1JhdUZYNVZrSldmdWNRWVVSU1FONGdJYyIsIm9yaWdpbiI6Imh0dHBzOi8vbG9naW4uZXhhbXBsZS5jb20iLCJjcm9zc09yaWdpbiI6ZmFsc2V9", "o3mm9u6vuaVeN4wRgDTidR5oL6ufLTCrE9ISVYbOGUcBAAAAKg", "MEUCIQDtaObpWsA_ZjcU5CaoH9SCePxhqJTmnaGAm0n3E9AYigIgLciJLqTexa0iE4VrsWZ0UGuz9oNkufUUANSkYJGGucY"),
        V(-257, "none", 0x0d, 7, "localhost", "http://localhost:9099", "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoidGt5ZmloVi1WV25OT0pjeEFqSkFvaXdUcXFYMHpmVDVZaGZrVXFLYmxoayIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6OTA5OSIsImNyb3NzT3JpZ2luIjpmYWxzZX0", "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVkBW0mWDeWIDoxodDQXD2R2YFuP5K65ooYyx5lc87qDHZdjTQAAAAcAAAAAAAAAAAAAAAAAAAAAABS5gxREQYQbnwdmRq5FcJCbhUSvO6QBAwM5AQAgWQEAtY4x3o90TihpPpDqttBLGJJr-onT7rLpvVykepzESYq8O9d7OxfidOj6IZKQpGm9ibUwvGlK1jGWn9wXNHZPqohFHF4Cg03dJH-5jazcqmrnmop88dNwM6bYBSknOsBfaxLzTfwVPr_4LqIxKQNni91TqLWEpL7hwMk3DtXFHgdEYRzYh3WZWYvDTy1qUdJrNj_KtKAb-zt-ZLCr3of7uMx9qvKBEj3vso9qpzAL2DsxIjBv4SCBRIIAsN_k80WpZLngXZrU9wnjBVtWhTb-jOkuA2LTUhBfDs2vSJCPlzD_9qG0xU3fXDczIkw_M3FuXVSFxgnSRPLlhnRLZMux6SFDAQAB", "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiVG84SHBpM2x1WnZTWjRwWHhRcEltYTZleXJMOEY2SnIwZEVFbklvNHVEdyIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6OTA5OSIsImNyb3NzT3JpZ2luIjpmYWxzZX0", "SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MNAAAACA", "H7nOTSGZZ15OgTkAhkvOqtlCWJJsg4EhdR90WFCzUKfiK8ebstI17xmIMtSQhrTdLlJmsP66IDz5fQUKeFze_MSO24AC0x9ljscBA1Hz0exwCmWMsRCZl_N3trO4VM3rSTB5vyfaeJP97KVkPB-1pvQh_CGXmwlxplRMZpwooQaNlhHvLAM26LKE154UOYgGnirrRuCaIr4r4qk39_yCr9CdesuJzDQOsiKsFoEbYuNrnKLlyJgAcF0bzBy68OXfmUs8VDD7wDYCIC7vC_JjEgTiJXiU9JM6Svh6JtHukaMl7Up_LP1wW_ISnQjYvL3imftcN9jO4CIPiXetGJjeLw"),
        V(-257, "packed", 0x1d, 0, "example.com", "https://example.com", "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoibGN5T1BURUs0WURwSjQyRkJCeXFSV204MTlWWkZVOU9MYVlfNDg1U0NkYyIsIm9yaWdpbiI6Imh0dHBzOi8vZXhhbXBsZS5jb20iLCJjcm9zc09yaWdpbiI6ZmFsc2V9", "o2NmbXRmcGFja2VkZ2F0dFN0bXSiY2FsZzkBAGNzaWdZAQA3YWiyFQTXGVdZkfll0GxswgFZLYf_FatPigT0SZGMfpNp-7_xT35_BBFla5nDVafXAnZuHK3t-k0BC3Q8xpy_BGD1hBB0pH-TnsCLa5BMw8pdkMZJznW7-4GgTmjJ8DjIn0KOXWt6BaDGU4CQNiqyWUxwGcZ1VTYhSkNS6XX3b_hY9_ZmTZsSoHuSRgRdKngLV8hXO-3zRB5s7N73rY0Hn_rtHBIwNOEiRa91FVE-8pvnfXFv2O_7UWU9vQUlAqglphbY0j8ed-F_wTKuH7vQfSgjbSY1W7HruLNeeRL28Gyla8A9RulL_4GCSbsbbD-hj3RTlUnenTQJm5zMzMZgaGF1dGhEYXRhWQFdo3mm9u6vuaVeN4wRgDTidR5oL6ufLTCrE9ISVYbOGUddAAAAAGSgMqUBxNjp5W39p3tQBOIAFqLECsJZe3sj-t3d9s3EkpJL1PLdls6kAQMDOQEAIFkBAKToMtwIect9ZKwiYRDpJCghYpGcC-4E_TqYXwf1CtTOw5gDRgzzw7MR1ZfNa4-TFTkK99vy3v4pMdFh5-JloBpLCaG884cZ-zh8mZVbX0mFN0cxLVbB6pu0B7JfgpGhvRhbROa3m4jSBC3ZLqiaJeWR3fMGydoEv32Qe75q9PWGcckc6onQsRjfoelil9lxgWoHISp5UaKgPmr2WQrAgQxY0v7UESoN2-t32Z6K3LVNduphwiOYueYi04UriuiUEZMxLtCxmbxdDehNs0yhNIQfIyaBuAh6iWyH142Ao6-G65KLhID3vCYeOxdEaHScKkggDvybXDB71BOUTgksIuEhQwEAAQ", "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoienhrUFU3SjFBLVc0NVRvWjBZVXFsWVplWmdhNmNSbEhndzhDTERjaEh3OCIsIm9yaWdpbiI6Imh0dHBzOi8vZXhhbXBsZS5jb20iLCJjcm9zc09yaWdpbiI6ZmFsc2V9", "o3mm9u6vuaVeN4wRgDTidR5oL6ufLTCrE9ISVYbOGUcdAAAAAQ", "WiXUr-1hB4UqfqrRbhIbu74Y-enVled3VXVEQteoZelMXI6qnVtrg_nGTJvbyGa1e0CdMZYErYceS9cw2RP3Sj1p4TNgCFJslpmvNoNioekqgGrepl3roavxmOWLPm7bxUcOjJD43y-UdfOyXpZ6xVwUgJSJhkJ4LHyWVuIAaUPFMQZqgG8z9mjowrrYiafhiEN6BaFPElOf-EOnWgTIr7agr_vHBTNN2uIou4qfdsoF8wA2rnvSFb-2kGZ5a45A_RCKflHbJNcIee1oZfmCQmFGieB4KDum08mHF9uVPLVM6k-S3AFVC06Q8hFoKWdM1gRycQI7_13eBf5LrK3nrA"),
        V(-8, "none", 0x01, 1000, "localhost", "http://localhost:9099", "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiaFRISnFGalVRVlpNQ3BRR0FVczVaMm13OG1VOV9vOEJ0Q1YxdnRfQWV4dyIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6OTA5OSIsImNyb3NzT3JpZ2luIjpmYWxzZX0", "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVh5SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2NBAAAD6AAAAAAAAAAAAAAAAAAAAAAAGD58AFGbwKM5htq5sJCV8QvoWTjevZRarKQBAQMnIAYhWCAbH9soVr6bMVVdYJHXom_3mVBTKv65jWtWZxZ7R4-sLw", "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiZzUxWE5HZ2xuSzRyZ3VDaTFaR1ByUnQ3WDVVaEZlMUgwa3Q3TFZrTmdIdyIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6OTA5OSIsImNyb3NzT3JpZ2luIjpmYWxzZX0", "SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MBAAAD6Q", "wa1W_-1iFa-lyCucMdfU9_sNnylZ_kaTGH34ccNyoz7zqVKkjQjP3bmE5-JQLv2Thdl2wh_O61raKJ8dQ8SpDw"),
        V(-8, "packed", 0x05, 4294967294, "example.com", "https://example.com", "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiZmN3WDJtS2dIaDVDUU96TUoyYkdJMmxMQkN1MkRxamFPVm1OZXFxM2RFYyIsIm9yaWdpbiI6Imh0dHBzOi8vZXhhbXBsZS5jb20iLCJjcm9zc09yaWdpbiI6ZmFsc2V9", "o2NmbXRmcGFja2VkZ2F0dFN0bXSiY2FsZydjc2lnWECjFirGNUhTTIIz44oKes_mzudJpFpr77--GBbNPNiHDVwZJqT--Xxqu7Y5q_2BifqzTnL3qVvP_OjFxZXPW2YPaGF1dGhEYXRhWHujeab27q-5pV43jBGANOJ1Hmgvq58tMKsT0hJVhs4ZR0X____-CeBnJ37YAl6dnaURWVJBqgAaDUGP9jM05naurLGGJf7EOEpEbzUEW5GEhM6kAQEDJyAGIVgg-lQJ_oglRngRuYG3OCJpcusgnqr7IMHUPFltSy6V6Uk", "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiaUNXT2R1a2k1RWtqZU5LXzdhVHdHZ3NyYU1PQkV3VVREbTQ3WThmT1RRdyIsIm9yaWdpbiI6Imh0dHBzOi8vZXhhbXBsZS5jb20iLCJjcm9zc09yaWdpbiI6ZmFsc2V9", "o3mm9u6vuaVeN4wRgDTidR5oL6ufLTCrE9ISVYbOGUcF_____w", "T4gIpbH_TldX7tKom-1AF8IiHv4a2025x51XDNnZW-3UUjb1sExa2WdepGd6P9GLHoWt3RFSrHxK-HuBlSWzAQ"),
        V(-7, "packed", 0x1d, 12, "example.com", "ios:bundle-id:com.example.app", "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiSk5xYVNFU0tBc2d6OS1ZblMtU0pZYVlIZnVrRFFiSUQtTnN1RjBMX1NMRSIsIm9yaWdpbiI6ImlvczpidW5kbGUtaWQ6Y29tLmV4YW1wbGUuYXBwIiwiY3Jvc3NPcmlnaW4iOmZhbHNlfQ", "o2NmbXRmcGFja2VkZ2F0dFN0bXSiY2FsZyZjc2lnWEcwRQIgA5oUwhv05xT3alE7hgcIUsdrFtT0wf2DacyJf2fUcPcCIQDHytQKa0pF5t5Xe0cC5uTMfH0x7hLkmptEadoto8969mhhdXRoRGF0YViuo3mm9u6vuaVeN4wRgDTidR5oL6ufLTCrE9ISVYbOGUfdAAAADOa2I610whA2_suM5so7itkAHBthiiscvYYvF1AqTm4y3e1wRIrr2RUozdt8dxylAQIDJiABIVggfNrQU1OsHd4J15xLV2mHiXWW9GCm6F_1F_sAubmhFCIiWCCYVAHsKh0pXhnFeZeam-VPepUUfhJEkX8OmqnzKebf9qFrY3JlZFByb3RlY3QC", "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiZmtNeF9xWkZBQy0tVG9vak81bHpUMFl1UjZJVDZKalRxN1RqcUhWSXZZUSIsIm9yaWdpbiI6ImlvczpidW5kbGUtaWQ6Y29tLmV4YW1wbGUuYXBwIiwiY3Jvc3NPcmlnaW4iOmZhbHNlfQ", "o3mm9u6vuaVeN4wRgDTidR5oL6ufLTCrE9ISVYbOGUcdAAAADQ", "MEUCIBzjChvVX3NRgywJZ5z98J4HqFNy1qVs4UbQNnk1kmzeAiEAnja4QtJi30wXXbvUXbbPRmXDAuVDfx3cDq6CpiIiV4Y"),
        V(-8, "none", 0x05, 3, "localhost", "http://localhost:9099", "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiN2lSVkVlb09UWnlQZFphWFc0Mk5Gb0ZlVF9xYWxwZS1WQ25MdWxiZFhYdyIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6OTA5OSIsImNyb3NzT3JpZ2luIjpmYWxzZX0", "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YViNSZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2PFAAAAAwAAAAAAAAAAAAAAAAAAAAAAHpqQFod4OvMBWIiDy8XxrQwPrCHQ_VTBp33ptgtEz6QBAQMnIAYhWCAmNlO21CJobCIphHrP_K2R9jrcnQdX5b2SdzxmRKSCzqFrY3JlZFByb3RlY3QD", "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiZ3M1SGJwN0RzNFNmdDl6RVJGQW5DbWw5OXVaTGI5d3NjTDY0cXE2Um4zMCIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6OTA5OSIsImNyb3NzT3JpZ2luIjpmYWxzZX0", "SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAABA", "FhgoiEL-3k5SDWLZamyveSW7Gbtvu9JIpXSqDfpftaTdA5dY8ctXNsmqyKSvdgr8ezl8dF1zhQryCYetvKXZAA"),
    ]
}
