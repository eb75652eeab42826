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
        let batch = try await importBatch(users, template: template, allowOverwrite: request.allowOverwrite == true, now: now, in: scope)
        let failures = batch.failures.map { ImportUsersResponse.Failure(index: $0.index, message: $0.message) }
        let imported = batch.imported
        try await audit(principal, "accounts.batchCreate", target: "\(users.count) users",
                        detail: "imported \(imported), failed \(failures.count), hash \(request.hashAlgorithm ?? "none")", in: scope)
        return ImportUsersResponse(errors: failures)
    }

    /// A user of an import batch that was not imported: its index in the batch and the API's message for it.
    public struct ImportFailure: Sendable, Equatable {
        /// The user's index in the batch.
        public var index: Int
        /// What `accounts:batchCreate` answers for it (`CODE : detail`).
        public var message: String
        /// The uid belongs to a user of the import's scope and the import does not overwrite (the CLI says how to).
        public var uidExistsHere: Bool

        public init(index: Int, message: String, uidExistsHere: Bool = false) {
            self.index = index
            self.message = message
            self.uidExistsHere = uidExistsHere
        }
    }

    /// What ``importBatch(_:template:allowOverwrite:now:in:)`` did.
    public struct ImportBatchOutcome: Sendable {
        /// How many users were created or replaced.
        public var imported: Int
        /// The users that were not, by index, in order.
        public var failures: [ImportFailure]
    }

    /// One batch of an import (issue 41), the one used by `accounts:batchCreate` (≤ 1000 users) and by
    /// `hearth users import` (batches of its streamed file): each user checked and built by
    /// ``importedRecord(_:template:now:hashPassword:)`` (an imported hash is kept as it is: no hashing), the uids that
    /// exist found with one query for the batch, the new users created together through the one exit for new users
    /// (``AccountService/createAccounts(_:origin:in:)``, which answers each user alone when the batch conflicts), and
    /// with `allowOverwrite` the users of this scope whose uid exists replaced one at a time (their sessions end).
    /// The answers are those of importing the users one at a time: `DUPLICATE_LOCAL_ID`, `EMAIL_EXISTS`, … per user.
    /// Writes no audit entry (the caller writes one for the whole import).
    public func importBatch(_ users: [ImportUserInfo], template: ImportedPasswordHash?, allowOverwrite: Bool, now moment: Date,
                            in scope: Scope) async throws -> ImportBatchOutcome {
        var failed: [Int: ImportFailure] = [:]
        func fail(_ index: Int, _ error: any Error, uidExistsHere: Bool = false) {
            failed[index] = ImportFailure(index: index, message: Self.importMessage(error), uidExistsHere: uidExistsHere)
        }
        var records: [(index: Int, user: UserRecord)] = []
        records.reserveCapacity(users.count)
        for (index, info) in users.enumerated() {
            do {
                records.append((index, try await importCheckedRecord(info, template: template, now: moment)))
            } catch {
                fail(index, error)
            }
        }
        let here = scope.tenantId ?? ""
        var existing: [String: String] = [:]
        do {
            existing = try await scope.store.tenantsOfUsers(localIds: records.map(\.user.localId))
        } catch {
            for record in records { fail(record.index, error) }
            records = []
        }
        var fresh: [(index: Int, user: UserRecord)] = []
        var replaced: [(index: Int, user: UserRecord)] = []
        for record in records {
            switch existing[record.user.localId] {
            case nil: fresh.append(record)
            case here? where allowOverwrite: replaced.append(record)
            case here?: fail(record.index, Self.uidExistsHere, uidExistsHere: true)
            case _?: fail(record.index, Self.uidInAnotherTenant(record.user.localId, scope: scope, then: Self.importElsewhere))
            }
        }
        var imported = 0
        let answers = await accounts.createAccounts(fresh.map(\.user), origin: .imported, in: scope)
        for (record, answer) in zip(fresh, answers) {
            switch answer {
            case nil: imported += 1
            case StoreError.duplicateLocalId?:
                // Taken since the query (a concurrent import) or earlier in this batch (a file naming a uid twice):
                // answered as when it existed before.
                replaced.append(record)
            case let error?: fail(record.index, error)
            }
        }
        for record in replaced.sorted(by: { $0.index < $1.index }) {
            do {
                try await importReplacing(record.user, allowOverwrite: allowOverwrite, in: scope)
                imported += 1
            } catch let error as HearthAPIError where error.code == .duplicateLocalId && error.detail == Self.uidExistsHere.detail {
                fail(record.index, error, uidExistsHere: true)
            } catch {
                fail(record.index, error)
            }
        }
        return ImportBatchOutcome(imported: imported, failures: failed.keys.sorted().compactMap { failed[$0] })
    }

    /// A user of an import checked and built: a TOTP factor refused, then ``importedRecord(_:template:now:hashPassword:)``.
    private func importCheckedRecord(_ info: ImportUserInfo, template: ImportedPasswordHash?, now moment: Date) async throws -> UserRecord {
        // SMS factors (a number, no secret) are imported (issue 40); a TOTP factor's secret is never exported.
        if let factors = info.mfaInfo, factors.contains(where: { $0.phoneInfo == nil }) {
            throw HearthAPIError(.invalidArgument, "second factors (mfaInfo) cannot be imported: their secrets are never exported; import the user without mfaInfo and have them enroll again")
        }
        return try await Self.importedRecord(info, template: template, now: moment, hashPassword: accounts.hashPassword)
    }

    /// An imported user whose uid exists: with `allowOverwrite` replacing the user of this scope (its sessions end),
    /// else `DUPLICATE_LOCAL_ID`; a uid held outside the scope is never replaced.
    private func importReplacing(_ record: UserRecord, allowOverwrite: Bool, in scope: Scope) async throws {
        guard let existing = try await scope.store.user(localId: record.localId) else {
            guard try await scope.store.tenantsOfUsers(localIds: [record.localId]).isEmpty else {
                throw Self.uidInAnotherTenant(record.localId, scope: scope, then: Self.importElsewhere)
            }
            // Deleted since: created after all.
            if let error = await accounts.createAccounts([record], origin: .imported, in: scope).first ?? nil { throw error }
            return
        }
        guard allowOverwrite else { throw Self.uidExistsHere }
        var replacement = record
        replacement.version = existing.version
        // The imported credentials replace the old ones: the old sessions end in the same transaction.
        _ = try await scope.store.updateUser(replacement, revokingSessions: true)
    }

    /// `DUPLICATE_LOCAL_ID` for an imported uid held by a user of the import's scope (without `allowOverwrite`).
    static let uidExistsHere = HearthAPIError(.duplicateLocalId, "localId belongs to an existing account - can not overwrite")
    static let importElsewhere = "import these users into another Hearth server, or give them new uids (allowOverwrite cannot replace a user of another tenant)"

    /// An import's per-user answer for `error` (what `accounts:batchCreate` reports in `error[]`).
    static func importMessage(_ error: any Error) -> String {
        switch error {
        case let error as HearthAPIError: error.description
        case let error as ImportedPasswordHash.Error: "INVALID_PASSWORD_HASH : \(error.description)"
        // Reported per user; the rest of the batch goes on and the audit entry is still written.
        case StoreError.backend, StoreError.unavailable: "the user could not be stored; retry it"
        case let error as StoreError: HearthAPIError(error).description
        default: "the user could not be imported; retry it"
        }
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
