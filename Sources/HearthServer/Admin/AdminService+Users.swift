import Foundation
import HearthCore
import HearthStore
import HearthWire
import Logging

extension AdminService {
    /// Most identifiers one lookup may carry.
    static let maxLookupIdentifiers = 1000
    /// Firebase's limit on the custom-claims JSON text.
    static let maxClaimsLength = 1000
    /// The last second of the year 9999: later timestamps are refused (they would overflow when written as
    /// milliseconds or as an `Int64`).
    static let maxSeconds: Int64 = 253_402_300_799

    /// `createdAt` / `lastLoginAt`: milliseconds since 1970, up to the year 9999.
    static func checkMilliseconds(_ stamps: FlexibleInt?...) throws {
        for stamp in stamps.compactMap({ $0 }) where !(0...maxSeconds * 1000 + 999).contains(stamp.value) {
            throw HearthAPIError(.invalidArgument, "createdAt and lastLoginAt are milliseconds since 1970, up to the year 9999")
        }
    }

    // MARK: Validation

    /// Custom claims from `customAttributes`: a JSON object of at most 1000 characters without reserved names.
    /// `""` clears them.
    public static func parseCustomAttributes(_ text: String) throws -> [String: JSONValue] {
        if text.trimmingCharacters(in: .whitespaces).isEmpty { return [:] }
        guard text.utf8.count <= maxClaimsLength else {
            throw HearthAPIError(.claimsTooLarge, "custom claims must be at most \(maxClaimsLength) bytes of JSON")
        }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)), case .object(let claims) = value else {
            throw HearthAPIError(.invalidClaims, "customAttributes must be a JSON object")
        }
        if let reserved = claims.keys.sorted().first(where: { IDTokenClaims.reservedClaimNames.contains($0) }) {
            throw HearthAPIError(.forbiddenClaim, "'\(reserved)' is a reserved claim")
        }
        return claims
    }

    /// An E.164 phone number: `+`, then 2 to 15 digits, the first not 0.
    /// The number in E.164 (``PhoneNumber/parse(_:)``: the one rule of the client RPCs, the console and the CLI),
    /// or `INVALID_PHONE_NUMBER : <what is wrong>; expected an E.164 number such as +15555550100`.
    public static func checkPhoneNumber(_ phone: String) throws -> String {
        do { return try PhoneNumber.parse(phone) } catch { throw HearthAPIError(.invalidPhoneNumber, error.detail) }
    }

    public static func checkLocalId(_ localId: String?) throws -> String {
        guard let localId, !localId.isEmpty else { throw HearthAPIError(.missingLocalId) }
        guard localId.utf8.count <= 128 else { throw HearthAPIError(.invalidLocalId, "a uid is at most 128 characters") }
        return localId
    }

    /// Hearth serves one project without tenants: a request naming a tenant is refused rather than applied to the
    /// project.

    // MARK: Create

    /// `POST /v1/projects/{p}/accounts`.
    public func createUser(_ request: AdminCreateUserRequest, by principal: AdminPrincipal, in scope: Scope) async throws -> SignUpResponse {
        let localId = try request.localId.map { try Self.checkLocalId($0) } ?? RandomID.localId()
        let email = try request.email.map { try AccountService.normalizedEmail($0) }
        try AccountService.checkProfile(displayName: request.displayName, photoUrl: request.photoUrl)
        let phone = try request.phoneNumber.map(Self.checkPhoneNumber)
        var user = accounts.newUser(localId: localId, signsIn: false)
        user.email = email
        user.emailVerified = request.emailVerified ?? false
        user.displayName = request.displayName.flatMap { $0.isEmpty ? nil : $0 }
        user.photoUrl = request.photoUrl.flatMap { $0.isEmpty ? nil : $0 }
        user.disabled = request.disabled ?? false
        user.phoneNumber = phone
        if let password = request.password {
            try AccountService.checkPasswordStrength(password)
            user.passwordHash = try await accounts.hashPassword(password)
            user.passwordUpdatedAt = user.createdAt
        }
        do {
            try await accounts.createAccount(user, origin: .administrator, in: scope)
        } catch StoreError.duplicateLocalId {
            // Taken, but not in this scope: by a user of another tenant or of the project.
            guard try await scope.store.user(localId: localId) != nil else {
                throw Self.uidInAnotherTenant(localId, scope: scope, then: "choose another uid")
            }
            throw StoreError.duplicateLocalId
        }
        try await audit(principal, "accounts.create", target: localId, detail: Self.fieldNames(of: request), in: scope)
        return SignUpResponse(localId: user.localId, email: user.email, displayName: user.displayName, tokens: nil)
    }

    // MARK: Read

    /// `POST /v1/projects/{p}/accounts:lookup`: users by uid, email, phone number or federated id; missing ones
    /// are skipped and `users` is omitted when nothing matched.
    public func lookup(_ request: AdminLookupRequest, in scope: Scope) async throws -> AdminLookupResponse {
        let count = (request.localId?.count ?? 0) + (request.email?.count ?? 0) + (request.phoneNumber?.count ?? 0)
            + (request.federatedUserId?.count ?? 0)
        if count == 0, let idToken = request.idToken {
            let (_, user) = try await accounts.authenticate(idToken: idToken, in: scope)
            return AdminLookupResponse(users: [try await accounts.userInfoWithPasskeys(user)])
        }
        guard count <= Self.maxLookupIdentifiers else {
            throw HearthAPIError(.invalidArgument, "at most \(Self.maxLookupIdentifiers) identifiers per lookup")
        }
        var found: [UserRecord] = []
        var seen: Set<String> = []
        func add(_ user: UserRecord?) {
            if let user, seen.insert(user.localId).inserted { found.append(user) }
        }
        for localId in request.localId ?? [] { add(try await scope.store.user(localId: localId)) }
        for raw in request.email ?? [] {
            add(try await scope.store.user(email: try AccountService.normalizedEmail(raw)))
        }
        for phone in request.phoneNumber ?? [] {
            add(try await scope.store.user(providerId: ProviderIdentity.phoneProviderId, federatedId: try Self.checkPhoneNumber(phone)))
        }
        for federated in request.federatedUserId ?? [] {
            guard let providerId = federated.providerId, !providerId.isEmpty, let rawId = federated.rawId, !rawId.isEmpty else {
                throw HearthAPIError(.invalidArgument, "federatedUserId needs providerId and rawId")
            }
            add(try await scope.store.user(providerId: providerId, federatedId: rawId))
        }
        var users: [UserInfo] = []
        for user in found { users.append(try await accounts.userInfoWithPasskeys(user)) }
        return AdminLookupResponse(users: users)
    }

    /// `GET /v1/projects/{p}/accounts:batchGet`: a page of users ordered by uid.
    public func batchGet(maxResults: String?, pageToken: String?, in scope: Scope) async throws -> BatchGetResponse {
        var limit = 20
        if let maxResults, !maxResults.isEmpty {
            guard let value = Int(maxResults), (1...1000).contains(value) else {
                throw HearthAPIError(.invalidPageSelection, "maxResults must be between 1 and 1000")
            }
            limit = value
        }
        var after: String?
        if let pageToken, !pageToken.isEmpty {
            guard let data = Data(base64URLEncoded: pageToken), let localId = String(data: data, encoding: .utf8), !localId.isEmpty else {
                throw HearthAPIError(.invalidPageSelection, "unknown nextPageToken")
            }
            after = localId
        }
        let users = try await scope.store.listUsers(after: after, limit: limit + 1)
        let page = Array(users.prefix(limit))
        let next = users.count > limit ? page.last.map { Data($0.localId.utf8).base64URLEncodedString() } : nil
        return BatchGetResponse(users: page.map(\.userInfo), nextPageToken: next)
    }

    /// `POST /v1/projects/{p}/accounts:query`.
    public func query(_ request: QueryUsersRequest, in scope: Scope) async throws -> QueryUsersResponse {
        let limit = Int(request.limit?.value ?? 500)
        guard (1...500).contains(limit) else { throw HearthAPIError(.invalidArgument, "limit must be between 1 and 500") }
        let offset = Int(request.offset?.value ?? 0)
        guard offset >= 0 else { throw HearthAPIError(.invalidArgument, "offset must not be negative") }
        var sortKey = UserSortKey.userId
        if let sortBy = request.sortBy, !sortBy.isEmpty, sortBy != "SORT_BY_FIELD_UNSPECIFIED" {
            guard let key = UserSortKey(rawValue: sortBy) else {
                throw HearthAPIError(.invalidArgument, "sortBy must be one of \(UserSortKey.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            sortKey = key
        }
        let order = request.order ?? "ASC"
        guard ["ASC", "DESC", "ORDER_UNSPECIFIED"].contains(order) else { throw HearthAPIError(.invalidArgument, "order must be ASC or DESC") }
        var query = UserQuery(sortBy: sortKey, ascending: order != "DESC", offset: offset, limit: limit)
        guard (request.expression ?? []).count <= 1000 else {
            throw HearthAPIError(.invalidArgument, "at most 1000 expressions in one query")
        }
        for expression in request.expression ?? [] {
            if let email = expression.email { query.emails.append(try AccountService.normalizedEmail(email)) }
            if let phone = expression.phoneNumber { query.phoneNumbers.append(try Self.checkPhoneNumber(phone)) }
            if let uid = expression.userId { query.localIds.append(uid) }
        }
        let (total, users) = try await scope.store.queryUsers(query)
        return QueryUsersResponse(recordsCount: total, userInfo: request.returnUserInfo == false ? nil : users.map(\.userInfo))
    }

    // MARK: Update

    /// `POST /v1/projects/{p}/accounts:update` (by `localId`): profile, email, password, phone, disabled,
    /// emailVerified, custom claims, `validSince`, attribute and provider deletion, provider linking. A new
    /// password or email, or a `validSince`, revokes the user's sessions.
    public func update(_ request: AdminUpdateRequest, by principal: AdminPrincipal, in scope: Scope) async throws -> AdminUpdateResponse {
        let localId = try Self.checkLocalId(request.localId)
        let deleteAttributes = Set(request.deleteAttribute ?? [])
        if let unknown = deleteAttributes.subtracting(["DISPLAY_NAME", "PHOTO_URL", "EMAIL", "PASSWORD"]).first {
            throw HearthAPIError(.invalidArgument, "unknown deleteAttribute \(unknown)")
        }
        let deleteProviders = Set(request.deleteProvider ?? [])
        try AccountService.checkProfile(displayName: request.displayName, photoUrl: request.photoUrl)
        let email = try request.email.map { try AccountService.normalizedEmail($0) }
        let phone = try request.phoneNumber.map(Self.checkPhoneNumber)
        let claims = try request.customAttributes.map(Self.parseCustomAttributes)
        if let validSince = request.validSince, !(0...Self.maxSeconds).contains(validSince.value) {
            throw HearthAPIError(.invalidArgument, "validSince must be seconds since 1970, at most \(Self.maxSeconds) (year 9999)")
        }
        try Self.checkMilliseconds(request.createdAt, request.lastLoginAt)
        var link: ProviderIdentity?
        if let info = request.linkProviderUserInfo {
            guard let providerId = info.providerId, !providerId.isEmpty, let rawId = info.rawId, !rawId.isEmpty else {
                throw HearthAPIError(.invalidArgument, "linkProviderUserInfo needs providerId and rawId")
            }
            guard providerId != "password", providerId != ProviderIdentity.phoneProviderId else {
                throw HearthAPIError(.invalidProviderId, "link a password or phone number with the password or phoneNumber fields")
            }
            link = ProviderIdentity(providerId: providerId, federatedId: rawId, email: info.email.flatMap { EmailAddress.normalize($0) },
                                    displayName: info.displayName, photoUrl: info.photoUrl)
        }
        var hash: String?
        if let password = request.password {
            try AccountService.checkPasswordStrength(password)
            hash = try await accounts.hashPassword(password)
        }
        let moment = now
        let revocation = accounts.revocationMoment
        var revokes = false
        let keptFactors = try request.mfa.map(Self.keptFactorIds)
        if let ids = request.deletePasskey, !ids.isEmpty {
            guard try await scope.store.user(localId: localId) != nil else { throw HearthAPIError(.userNotFound) }
            try await accounts.removePasskeys(ids, localId: localId, actor: principal.actor, in: scope)
        }
        var removedFactors: [MultiFactorEnrollment] = []
        let updated = try await accounts.modifyUser(localId: localId, revokingSessions: revokes, in: scope) { user in
            removedFactors = []
            if let keptFactors {
                removedFactors = try Self.keepFactors(keptFactors, of: &user, now: moment)
                // The user's sessions end (refresh refuses sessions older than validSince); the token vault stays.
                if !removedFactors.isEmpty { user.validSince = max(user.validSince, revocation) }
            }
            if let name = request.displayName { user.displayName = name.isEmpty ? nil : name }
            if let photo = request.photoUrl { user.photoUrl = photo.isEmpty ? nil : photo }
            if deleteAttributes.contains("DISPLAY_NAME") { user.displayName = nil }
            if deleteAttributes.contains("PHOTO_URL") { user.photoUrl = nil }
            if let email, email != user.email {
                user.email = email
                user.emailVerified = false
                revokes = true
            }
            if deleteAttributes.contains("EMAIL") { user.email = nil; user.emailVerified = false }
            if let verified = request.emailVerified { user.emailVerified = verified }
            if let hash {
                user.passwordHash = hash
                user.passwordUpdatedAt = moment
                revokes = true
            }
            if deleteAttributes.contains("PASSWORD") || deleteProviders.contains("password") {
                user.passwordHash = nil
                user.passwordUpdatedAt = nil
            }
            if let phone { user.phoneNumber = phone }
            user.identities.removeAll { deleteProviders.contains($0.providerId) }
            if let link {
                user.identities.removeAll { $0.providerId == link.providerId }
                user.identities.append(link)
            }
            if let disabled = request.disableUser { user.disabled = disabled }
            if let claims { user.customClaims = claims }
            if let createdAt = request.createdAt { user.createdAt = Date(timeIntervalSince1970: Double(createdAt.value) / 1000) }
            if let lastLoginAt = request.lastLoginAt { user.lastLoginAt = Date(timeIntervalSince1970: Double(lastLoginAt.value) / 1000) }
            if let validSince = request.validSince {
                // The Admin SDKs' revokeRefreshTokens sends the current second: that means "now", and now is the
                // next whole second (tokens minted earlier in this second end too; see revocationMoment).
                let requested = Date(timeIntervalSince1970: Double(validSince.value))
                user.validSince = requested <= moment && moment.timeIntervalSince(requested) < Self.revokeNowSlack ? revocation : requested
                revokes = true
            } else if revokes {
                user.validSince = max(user.validSince, revocation)
            }
        }
        try await audit(principal, "accounts.update", target: localId, detail: Self.fieldNames(of: request), in: scope)
        if !removedFactors.isEmpty { try await secondFactorsRemoved(removedFactors, of: updated, by: principal, in: scope) }
        return AdminUpdateResponse(user: try await accounts.userInfoWithPasskeys(updated))
    }

    /// A `validSince` at most this many seconds before now is a revocation "now" (an Admin SDK's clock reads the
    /// current second; a little skew between machines is allowed).
    static let revokeNowSlack: TimeInterval = 5

    // MARK: Second factors

    /// `mfa` of `accounts:update`, read: the factors to keep and the SMS factors to add.
    struct FactorUpdate: Sendable {
        /// The enrollment ids to keep, with their (new) display names.
        var kept: [String: String?] = [:]
        /// Entries with a `phoneInfo` and no id of an existing factor: SMS factors to add (issue 40; the Node Admin
        /// SDK's `updateUser(uid, {multiFactor: {enrolledFactors: [{phoneNumber, …}]}})`).
        var added: [MFAEnrollmentInfo] = []
    }

    /// `mfa` of `accounts:update`: the enrollment ids to keep with their (new) display names (`{}` keeps none), and
    /// the SMS factors given without an id (added; their numbers are checked when applied).
    static func keptFactorIds(_ update: AdminUpdateRequest.MFAUpdate) throws -> FactorUpdate {
        var result = FactorUpdate()
        for entry in update.enrollments ?? [] {
            if let name = entry.displayName, name.count > 256 { throw HearthAPIError(.invalidDisplayName, "a factor's display name is at most 256 characters") }
            guard !entry.mfaEnrollmentId.isEmpty else {
                guard entry.phoneInfo != nil else {
                    throw HearthAPIError(.missingMfaEnrollmentId, "each mfa.enrollments entry names an existing factor by mfaEnrollmentId, or adds an SMS factor with phoneInfo (a TOTP factor is enrolled by the user: mfaEnrollment:start)")
                }
                result.added.append(entry)
                continue
            }
            result.kept[entry.mfaEnrollmentId] = entry.displayName
            if entry.phoneInfo != nil { result.added.append(entry) } // added when the id is not the user's yet
        }
        return result
    }

    /// Keeps the listed factors (renamed when a name is given), removes the others, adds the new SMS factors
    /// (checked: an E.164 number, not one of the user's factors already, at most ``UserMultiFactor/maximumFactors``);
    /// returns those removed.
    static func keepFactors(_ update: FactorUpdate, of user: inout UserRecord, now: Date) throws -> [MultiFactorEnrollment] {
        let existing = Set(user.mfa.factors.map(\.enrollmentId))
        let additions = update.added.filter { !existing.contains($0.mfaEnrollmentId) }
        let addedIds = Set(additions.map(\.mfaEnrollmentId).filter { !$0.isEmpty })
        if let unknown = user.mfa.firstUnknown(update.kept.keys.filter { !addedIds.contains($0) }) {
            throw HearthAPIError(.mfaEnrollmentNotFound, "the user has no second factor \(unknown.prefix(64)); new factors are enrolled by the user (mfaEnrollment:start), or added as SMS factors with phoneInfo")
        }
        let removed = AccountService.removeFactors(existing.subtracting(update.kept.keys), from: &user)
        for index in user.mfa.factors.indices {
            if case .some(.some(let name)) = update.kept[user.mfa.factors[index].enrollmentId] {
                user.mfa.factors[index].displayName = name.isEmpty ? nil : name
            }
        }
        for entry in additions {
            user.mfa.factors.append(try phoneFactor(entry, among: user.mfa.factors, now: now))
        }
        return removed
    }

    /// An SMS factor from an `mfaInfo` / `mfa.enrollments` entry (admin update and import): its number parsed to
    /// E.164 (`INVALID_PHONE_NUMBER`), not a number of `factors` already (`SECOND_FACTOR_EXISTS`), the factor limit
    /// kept (`SECOND_FACTOR_LIMIT_EXCEEDED`); its id kept when given (else a new one), `enrolledAt` kept when it is
    /// an RFC 3339 time (else now).
    static func phoneFactor(_ entry: MFAEnrollmentInfo, among factors: [MultiFactorEnrollment], now: Date) throws -> MultiFactorEnrollment {
        guard let phone = entry.phoneInfo, entry.totpInfo == nil else {
            throw HearthAPIError(.invalidArgument, "an SMS factor carries phoneInfo (its number) and no totpInfo")
        }
        let number = try checkPhoneNumber(phone)
        guard !factors.contains(where: { $0.kind == .phone && $0.phoneNumber == number }) else {
            throw HearthAPIError(.secondFactorExists, "the user already has the SMS factor \(PhoneNumber.masked(number))")
        }
        guard factors.count < UserMultiFactor.maximumFactors else {
            throw HearthAPIError(.secondFactorLimitExceeded, "a user may have at most \(UserMultiFactor.maximumFactors) second factors")
        }
        let id = entry.mfaEnrollmentId
        guard id.utf8.count <= 128, !id.contains(where: { $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }) else {
            throw HearthAPIError(.invalidArgument, "a factor's mfaEnrollmentId is at most 128 characters, without control characters")
        }
        guard !factors.contains(where: { $0.enrollmentId == id }) else {
            throw HearthAPIError(.invalidArgument, "the user already has a second factor with mfaEnrollmentId \(id.prefix(64))")
        }
        let enrolledAt = entry.enrolledAt.flatMap { text in
            (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))) ?? (try? Date(text, strategy: .iso8601))
        } ?? now
        let name = entry.displayName.flatMap { $0.isEmpty ? nil : $0 }
        return MultiFactorEnrollment(enrollmentId: id.isEmpty ? RandomID.token(byteCount: 16) : id, displayName: name,
                                     enrolledAt: enrolledAt, phoneNumber: number)
    }

    /// Removes second factors of a user (all when `enrollmentIds` is nil): the user's sessions end, the user is
    /// told by email, the audit log records it. For the console and `hearth users mfa remove`.
    @discardableResult
    public func removeSecondFactors(localId: String, enrollmentIds: Set<String>?, by principal: AdminPrincipal, in scope: Scope) async throws -> UserRecord {
        let localId = try Self.checkLocalId(localId)
        var removed: [MultiFactorEnrollment] = []
        let updated = try await accounts.modifyUser(localId: localId, in: scope) { user in
            if let enrollmentIds, let unknown = user.mfa.firstUnknown(enrollmentIds) {
                throw HearthAPIError(.mfaEnrollmentNotFound, "the user has no second factor \(unknown.prefix(64))")
            }
            removed = AccountService.removeFactors(enrollmentIds, from: &user)
            if !removed.isEmpty { user.validSince = max(user.validSince, accounts.revocationMoment) }
        }
        if !removed.isEmpty { try await secondFactorsRemoved(removed, of: updated, by: principal, in: scope) }
        return updated
    }

    /// After an administrator removed factors: pending sign-ins end, the audit entry, the notice to the user.
    private func secondFactorsRemoved(_ removed: [MultiFactorEnrollment], of user: UserRecord, by principal: AdminPrincipal, in scope: Scope) async throws {
        try await scope.store.deleteMultiFactorSessions(localId: user.localId)
        try await audit(principal, "mfa.remove", target: user.localId,
                        detail: removed.map(\.enrollmentId).joined(separator: ",") + (user.mfa.factors.isEmpty ? " (none left)" : ""), in: scope)
        logger.notice("second factors removed by an administrator", metadata: ["uid": "\(user.localId)", "removed": "\(removed.count)"])
        await sendSecondFactorsRemovedNotice(removed, to: user, in: scope)
    }

    /// Tells the user their second factors were removed (best effort: the removal stands when no mail can go).
    private func sendSecondFactorsRemovedNotice(_ removed: [MultiFactorEnrollment], to user: UserRecord, in scope: Scope) async {
        guard let mailer, let email = user.email, let config = try? await scope.config() else { return }
        let app = Mailer.appName(config)
        let names = removed.map { $0.displayName ?? "an authenticator app" }.joined(separator: ", ")
        let left = user.mfa.factors.isEmpty
            ? "Your account no longer asks for a second factor when you sign in."
            : "Your other second factors still work."
        await mailer.sendNotice(to: user, subject: "Two-step verification was removed from your \(app) account", paragraphs: [
            "An administrator of \(app) removed two-step verification (\(names)) from your account \(email). \(left)",
            "You have been signed out everywhere. If you did not ask for this, contact the administrators of \(app).",
        ], kind: "mfaRemoved")
    }

    // MARK: Delete

    /// `POST /v1/projects/{p}/accounts:delete` (by `localId`).
    public func delete(_ request: AdminDeleteRequest, by principal: AdminPrincipal, in scope: Scope) async throws -> AdminDeleteResponse {
        let localId = try Self.checkLocalId(request.localId)
        guard try await accounts.deletingUsers([localId], in: scope, { try await scope.store.deleteUser(localId: localId) }) else {
            throw HearthAPIError(.userNotFound)
        }
        try await audit(principal, "accounts.delete", target: localId, in: scope)
        return AdminDeleteResponse()
    }

    /// `POST /v1/projects/{p}/accounts:batchDelete`: 1–1000 uids; unknown ones are ignored; enabled users are
    /// kept (`NOT_DISABLED`) unless `force`.
    public func batchDelete(_ request: BatchDeleteRequest, by principal: AdminPrincipal, in scope: Scope) async throws -> BatchDeleteResponse {
        guard let localIds = request.localIds, !localIds.isEmpty else { throw HearthAPIError(.missingLocalId) }
        guard localIds.count <= 1000 else { throw HearthAPIError(.localIdListExceedsLimit, "at most 1000 uids per call") }
        let (failures, deleted) = try await accounts.deletingUsers(localIds, in: scope) {
            try await deleteEach(localIds, force: request.force == true, in: scope)
        }
        try await audit(principal, "accounts.batchDelete", target: "\(localIds.count) uids",
                        detail: "deleted \(deleted), refused \(failures.count)\(request.force == true ? ", force" : "")", in: scope)
        return BatchDeleteResponse(errors: failures)
    }

    /// The deletions of a batch: each valid, existing uid, disabled or `force`d.
    private func deleteEach(_ localIds: [String], force: Bool, in scope: Scope) async throws -> ([BatchDeleteResponse.Failure], Int) {
        var failures: [BatchDeleteResponse.Failure] = []
        var deleted = 0
        for (index, localId) in localIds.enumerated() {
            guard !localId.isEmpty, localId.utf8.count <= 128 else {
                failures.append(.init(index: index, localId: localId, message: "INVALID_LOCAL_ID : a uid is 1 to 128 characters"))
                continue
            }
            guard let user = try await scope.store.user(localId: localId) else { continue }
            if !force, !user.disabled {
                failures.append(.init(index: index, localId: localId, message: "NOT_DISABLED : Disable the account before batch deletion."))
                continue
            }
            if try await scope.store.deleteUser(localId: localId) { deleted += 1 }
        }
        return (failures, deleted)
    }

    /// `DELETE /emulator/v1/projects/{p}/accounts`: every user.
    public func deleteAllUsers(by principal: AdminPrincipal, in scope: Scope) async throws -> EmptyResponse {
        let count = try await scope.store.deleteAllUsers()
        try await audit(principal, "emulator.deleteAllAccounts", target: configuration.projectId, detail: "deleted \(count)", in: scope)
        return EmptyResponse()
    }

    // MARK: Session cookies

    /// The issuer of session cookies for `projectId`.
    public static func sessionCookieIssuer(_ projectId: String) -> String { "https://session.firebase.google.com/\(projectId)" }

    /// `POST /v1/projects/{p}:createSessionCookie`: the ID token's claims with the session issuer and a
    /// lifetime of 5 minutes to 14 days, signed by Hearth's keys (published with the ID-token keys and at
    /// Google's session-cookie key URL). Revocation and disabling apply as for ID tokens.
    public func createSessionCookie(_ request: CreateSessionCookieRequest, in scope: Scope) async throws -> CreateSessionCookieResponse {
        let duration = request.validDuration?.value ?? 1_209_600
        guard (300...1_209_600).contains(duration) else {
            throw HearthAPIError(.invalidDuration, "validDuration must be between 300 seconds (5 minutes) and 1209600 seconds (14 days)")
        }
        var (claims, _) = try await accounts.authenticate(idToken: request.idToken, in: scope)
        let issuedAt = Int64(now.timeIntervalSince1970)
        claims.issuer = Self.sessionCookieIssuer(scope.projectId)
        claims.issuedAt = issuedAt
        claims.expiresAt = issuedAt + duration
        return CreateSessionCookieResponse(sessionCookie: try await accounts.keyRing.sign(payload: claims))
    }

    // MARK: Audit detail

    /// The names of the fields a request sets (never their values).
    static func fieldNames(of value: some Encodable) -> String? {
        guard let data = try? JSONEncoder().encode(value),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        let names = object.keys.filter { $0 != "localId" && $0 != "tenantId" }.sorted()
        return names.isEmpty ? nil : names.joined(separator: ",")
    }
}

extension AdminCreateUserRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> SignUpResponse { try await call.admin.createUser(request, by: call.principal(), in: call.scope) }
}

extension AdminLookupRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> AdminLookupResponse { try await call.admin.lookup(request, in: call.scope) }
}

extension AdminUpdateRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> AdminUpdateResponse { try await call.admin.update(request, by: call.principal(), in: call.scope) }
}

extension AdminDeleteRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> AdminDeleteResponse { try await call.admin.delete(request, by: call.principal(), in: call.scope) }
}

extension BatchDeleteRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> BatchDeleteResponse { try await call.admin.batchDelete(request, by: call.principal(), in: call.scope) }
}

extension QueryUsersRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> QueryUsersResponse { try await call.admin.query(request, in: call.scope) }
}

extension CreateSessionCookieRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> CreateSessionCookieResponse { try await call.admin.createSessionCookie(request, in: call.scope) }
}

extension BatchGetRequest: ServedRPC {
    static func serve(_ request: Self, _ call: RPCCall) async throws -> BatchGetResponse {
        try await call.admin.batchGet(maxResults: request.maxResults, pageToken: request.nextPageToken, in: call.scope)
    }
}
