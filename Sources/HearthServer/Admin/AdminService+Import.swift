import Foundation
import HearthCore
import HearthStore
import HearthWire
import NIOPosix

extension AdminService {
    /// `POST /v1/projects/{p}/accounts:batchCreate`: imports up to 1000 users with their password hashes. Each
    /// user is imported or reported in `error[]`; duplicate `localId`s within the batch reject the request.
    /// Imported users sign in with their old passwords and are re-hashed with Hearth's scrypt on first sign-in.
    public func importUsers(_ request: ImportUsersRequest, by principal: AdminPrincipal, in scope: Scope) async throws -> ImportUsersResponse {
        guard let users = request.users, !users.isEmpty else { throw HearthAPIError(.missingUserAccount) }
        // A user without a tenantId is imported into the request's scope (the Admin SDKs' tenant clients send none).
        for user in users where user.tenantId?.isEmpty == false { try scope.admit(tenantId: user.tenantId, in: "an imported user") }
        guard users.count <= 1000 else { throw HearthAPIError(.invalidArgument, "at most 1000 users per import") }
        var seen: Set<String> = []
        for user in users {
            if let localId = user.localId, !seen.insert(localId).inserted {
                throw HearthAPIError(.duplicateLocalId, localId)
            }
        }
        let template = try Self.hashTemplate(request, needed: users.contains { $0.passwordHash != nil })
        var failures: [ImportUsersResponse.Failure] = []
        var imported = 0
        let moment = now
        for (index, info) in users.enumerated() {
            do {
                try await importUser(info, template: template, allowOverwrite: request.allowOverwrite == true, now: moment, in: scope)
                imported += 1
            } catch let error as HearthAPIError {
                failures.append(.init(index: index, message: error.description))
            } catch let error as ImportedPasswordHash.Error {
                failures.append(.init(index: index, message: "INVALID_PASSWORD_HASH : \(error.description)"))
            } catch StoreError.backend, StoreError.unavailable {
                // Reported per user; the rest of the batch goes on and the audit entry is still written.
                failures.append(.init(index: index, message: "the user could not be stored; retry it"))
            } catch let error as StoreError {
                failures.append(.init(index: index, message: HearthAPIError(error).description))
            } catch {
                failures.append(.init(index: index, message: "the user could not be imported; retry it"))
            }
        }
        try await audit(principal, "accounts.batchCreate", target: "\(users.count) users",
                        detail: "imported \(imported), failed \(failures.count), hash \(request.hashAlgorithm ?? "none")", in: scope)
        return ImportUsersResponse(errors: failures)
    }

    /// The request-level hash parameters, validated once (per-user hashes and salts are added later).
    public static func hashTemplate(_ request: ImportUsersRequest, needed: Bool) throws -> ImportedPasswordHash? {
        guard let name = request.hashAlgorithm, !name.isEmpty, name != "HASH_ALGORITHM_UNSPECIFIED" else {
            if needed { throw HearthAPIError(.missingHashAlgorithm, "users with a passwordHash need hashAlgorithm") }
            return nil
        }
        guard let algorithm = ImportedPasswordHash.Algorithm(rawValue: name) else {
            throw HearthAPIError(.invalidHashAlgorithm, "\(name) is not supported; use one of \(ImportedPasswordHash.Algorithm.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        func base64(_ text: String?, _ field: String) throws -> Data? {
            guard let text else { return nil }
            guard let data = ImportedPasswordHash.decodeBase64(text) else { throw HearthAPIError(.invalidArgument, "\(field) is not base64") }
            return data
        }
        let order = request.passwordHashOrder ?? "SALT_AND_PASSWORD"
        guard ["SALT_AND_PASSWORD", "PASSWORD_AND_SALT", "UNSPECIFIED_ORDER"].contains(order) else {
            throw HearthAPIError(.invalidArgument, "passwordHashOrder is SALT_AND_PASSWORD or PASSWORD_AND_SALT")
        }
        let template = ImportedPasswordHash(
            algorithm: algorithm, hash: Data([0]), salt: Data(), signerKey: try base64(request.signerKey, "signerKey"),
            saltSeparator: try base64(request.saltSeparator, "saltSeparator"), rounds: request.rounds.map { Int($0.value) },
            memoryCost: request.memoryCost.map { Int($0.value) }, cpuMemCost: request.cpuMemCost.map { Int($0.value) },
            parallelization: request.parallelization.map { Int($0.value) }, blockSize: request.blockSize.map { Int($0.value) },
            dkLen: request.dkLen.map { Int($0.value) }, passwordFirst: order == "PASSWORD_AND_SALT")
        if algorithm != .bcrypt {
            do {
                try template.validate()
            } catch let error as ImportedPasswordHash.Error {
                throw HearthAPIError(.invalidHashAlgorithm, error.description)
            }
        }
        return template
    }

    /// One imported user as a record: checked like an admin create. (Also used by `hearth users import`.)
    public static func importedRecord(_ info: ImportUserInfo, template: ImportedPasswordHash?, now: Date,
                                      hashPassword: (String) async throws -> String) async throws -> UserRecord {
        let localId = try checkLocalId(info.localId)
        let email = try info.email.map { try AccountService.normalizedEmail($0) }
        try AccountService.checkProfile(displayName: info.displayName, photoUrl: info.photoUrl)
        try checkMilliseconds(info.createdAt, info.lastLoginAt)
        let createdAt = info.createdAt.map { Date(timeIntervalSince1970: Double($0.value) / 1000) } ?? now
        var user = UserRecord(localId: localId, email: email, emailVerified: info.emailVerified ?? false,
                              displayName: info.displayName, photoUrl: info.photoUrl, disabled: info.disabled ?? false,
                              createdAt: createdAt, lastLoginAt: info.lastLoginAt.map { Date(timeIntervalSince1970: Double($0.value) / 1000) },
                              validSince: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)))
        user.phoneNumber = try info.phoneNumber.map(checkPhoneNumber)
        // SMS second factors (`mfaInfo[].phoneInfo`, issue 40): their numbers, ids, names and enrollment times.
        for factor in info.mfaInfo ?? [] where factor.phoneInfo != nil {
            user.mfa.factors.append(try phoneFactor(factor, among: user.mfa.factors, now: now))
        }
        if let claims = info.customAttributes { user.customClaims = try parseCustomAttributes(claims) }
        for provider in info.providerUserInfo ?? [] {
            guard let providerId = provider.providerId, !providerId.isEmpty, let rawId = provider.rawId, !rawId.isEmpty else {
                throw HearthAPIError(.invalidArgument, "providerUserInfo needs providerId and rawId")
            }
            if providerId == "password" || providerId == ProviderIdentity.phoneProviderId { continue }
            user.identities.append(ProviderIdentity(providerId: providerId, federatedId: rawId, email: provider.email.flatMap { EmailAddress.normalize($0) },
                                                    displayName: provider.displayName, photoUrl: provider.photoUrl))
        }
        if let hashText = info.passwordHash {
            guard var hash = template else { throw HearthAPIError(.missingHashAlgorithm) }
            guard let hashData = ImportedPasswordHash.decodeBase64(hashText), !hashData.isEmpty else {
                throw HearthAPIError(.invalidArgument, "passwordHash is not base64")
            }
            // BCRYPT: the hash is the modular crypt text itself (SDKs send its bytes base64-encoded).
            hash.hash = hashData
            if let saltText = info.salt {
                guard let salt = ImportedPasswordHash.decodeBase64(saltText) else { throw HearthAPIError(.invalidArgument, "salt is not base64") }
                hash.salt = salt
            }
            try hash.validate()
            user.passwordHash = hash.encoded
            user.passwordUpdatedAt = now
        } else if let raw = info.rawPassword {
            try AccountService.checkPasswordStrength(raw)
            user.passwordHash = try await hashPassword(raw)
            user.passwordUpdatedAt = now
        }
        return user
    }
}

extension ImportUsersRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> ImportUsersResponse { try await call.admin.importUsers(request, by: call.principal(), in: call.scope) }
}
