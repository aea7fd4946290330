import FareLensBus
import FareLensMessages
import Foundation
import GRDB

/// Sign-up, sign-in and sessions (Protos/identity.proto; docs/api.md): the
/// gateway asks, this service keeps every secret (bcrypt hashes, refresh
/// token digests) in its own database.
extension SubscriptionService {
    /// Failed sign-ins one account may have within ``failureWindowMs``
    /// before it is throttled for ``lockMs``.
    static let maximumFailures = 5
    static let failureWindowMs: Int64 = 15 * 60_000
    static let lockMs: Int64 = 15 * 60_000

    /// Creates a password account on a trial and signs it in.
    nonisolated func passwordSignUp(_ request: PasswordSignUpRequest, context: RequestContext?) async throws(SubscriptionError) -> SessionGrant {
        // The cheap checks first: no bcrypt for a request that fails anyway.
        _ = try UserValidator.email(request.email)
        try PasswordRules.check(request.password)
        let hash = await passwords.hash(request.password)
        var create = CreateUserRequest()
        create.email = request.email
        create.timeZone = request.timeZone
        create.homeAirport = request.homeAirport
        create.preferredAirports = request.preferredAirports
        let nowMs = Self.unixMs(sessionClock.now())
        let (user, (token, record)) = try await insertUser(create, context: context) { user, db throws(SubscriptionError) in
            try Self.catching {
                try CredentialRecord(userID: user.userID, passwordHash: hash, failures: 0, failureWindowStartUnixMs: 0, lockedUntilUnixMs: 0).insert(db)
                return try RefreshTokens.issue(for: user.userID, family: nil, nowMs: nowMs, in: db)
            }
        }
        logger.info("password account created", metadata: ["user": "\(user.userID)"])
        return RefreshTokens.grant(user, token: token, record: record, created: true)
    }

    /// Signs in with an email and password, or says how long the account is throttled.
    nonisolated func passwordSignIn(_ request: PasswordSignInRequest) async throws(SubscriptionError) -> PasswordSignInResponse {
        let email = request.email.trimmingCharacters(in: .whitespaces).lowercased()
        let nowMs = Self.unixMs(sessionClock.now())
        let found: (UserRecord, CredentialRecord)?
        do {
            found = try await database.awaitedRead { db -> (UserRecord, CredentialRecord)? in
                guard let user = try UserRecord.filter(Column("email") == email).fetchOne(db),
                      let credential = try CredentialRecord.fetchOne(db, key: user.userID)
                else { return nil }
                return (user, credential)
            }
        } catch {
            throw .storage(error)
        }
        if let credential = found?.1, credential.lockedUntilUnixMs > nowMs {
            var response = PasswordSignInResponse()
            response.retryAfterMs = credential.lockedUntilUnixMs - nowMs
            return response
        }
        // An unknown email is checked against a decoy hash: it takes as long as a wrong password.
        let matches = await passwords.verify(request.password, hash: found?.1.passwordHash)
        guard let (user, _) = found else { throw .invalidCredentials }
        guard matches else {
            try recordFailedSignIn(user.userID, nowMs: nowMs)
            throw .invalidCredentials
        }
        let (token, record) = try write { db throws(SubscriptionError) in
            try Self.catching {
                try CredentialRecord.filter(key: user.userID).updateAll(
                    db, Column("failures").set(to: 0), Column("failureWindowStartUnixMs").set(to: 0), Column("lockedUntilUnixMs").set(to: 0))
                return try RefreshTokens.issue(for: user.userID, family: nil, nowMs: nowMs, in: db)
            }
        }
        var response = PasswordSignInResponse()
        response.grant = RefreshTokens.grant(user, token: token, record: record, created: false)
        return response
    }

    /// Counts a failed sign-in; the ``maximumFailures``-th within the window throttles the account.
    private nonisolated func recordFailedSignIn(_ userID: String, nowMs: Int64) throws(SubscriptionError) {
        let locked = try write { db throws(SubscriptionError) -> Bool in
            try Self.catching {
                guard var credential = try CredentialRecord.fetchOne(db, key: userID) else { return false }
                if credential.failureWindowStartUnixMs == 0 || nowMs - credential.failureWindowStartUnixMs > Self.failureWindowMs {
                    credential.failures = 0
                    credential.failureWindowStartUnixMs = nowMs
                }
                credential.failures += 1
                let locks = credential.failures >= Self.maximumFailures
                if locks {
                    credential.lockedUntilUnixMs = nowMs + Self.lockMs
                    credential.failures = 0
                    credential.failureWindowStartUnixMs = 0
                }
                try credential.update(db)
                return locks
            }
        }
        if locked { logger.notice("sign-in throttled after repeated failures", metadata: ["user": "\(userID)"]) }
    }

    /// Signs in with an Apple subject the gateway has verified; its first
    /// sign-in creates the user on a trial.
    func appleSignIn(_ request: AppleSignInRequest, context: RequestContext?) async throws(SubscriptionError) -> SessionGrant {
        let subject = request.appleSubject
        guard !subject.isEmpty, subject.utf8.count <= 255, !subject.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidField("apple_subject", "must be 1–255 bytes without control characters")
        }
        let nowMs = Self.unixMs(sessionClock.now())
        let known = try write { db throws(SubscriptionError) -> (UserRecord, String, RefreshTokenRecord)? in
            try Self.catching {
                guard let link = try AppleSubjectRecord.fetchOne(db, key: subject), let user = try UserRecord.fetchOne(db, key: link.userID) else { return nil }
                let issued = try RefreshTokens.issue(for: user.userID, family: nil, nowMs: nowMs, in: db)
                return (user, issued.token, issued.record)
            }
        }
        if let (user, token, record) = known { return RefreshTokens.grant(user, token: token, record: record, created: false) }
        var create = CreateUserRequest()
        // Apple gives an email only on the first sign-in, and a user may hide it: a placeholder no mail reaches stands in.
        create.email = request.email.isEmpty ? "apple-\(RefreshTokens.digest(subject).prefix(16))@appleid.invalid" : request.email
        create.timeZone = request.timeZone.isEmpty ? "UTC" : request.timeZone
        let (user, (token, record)) = try await insertUser(create, context: context) { user, db throws(SubscriptionError) in
            try Self.catching {
                try AppleSubjectRecord(subject: subject, userID: user.userID, linkedAtUnixMs: nowMs).insert(db)
                return try RefreshTokens.issue(for: user.userID, family: nil, nowMs: nowMs, in: db)
            }
        }
        logger.info("apple account created", metadata: ["user": "\(user.userID)"])
        return RefreshTokens.grant(user, token: token, record: record, created: true)
    }

    /// Exchanges a refresh token for its successor. A token already
    /// exchanged revokes its family: either it was stolen or the session was replayed.
    nonisolated func refreshSession(_ request: RefreshSessionRequest) throws(SubscriptionError) -> SessionGrant {
        let digest = RefreshTokens.digest(request.refreshToken)
        let nowMs = Self.unixMs(sessionClock.now())
        // A Result, not a throw, so that a reuse's revocation commits.
        let outcome = try write { db throws(SubscriptionError) -> Result<(UserRecord, String, RefreshTokenRecord), SubscriptionError> in
            try Self.catching {
                guard var presented = try RefreshTokenRecord.fetchOne(db, key: digest) else { return .failure(.invalidRefreshToken) }
                switch presented.state {
                case .revoked:
                    return .failure(.invalidRefreshToken)
                case .rotated:
                    try RefreshTokens.revokeFamily(presented.familyID, in: db)
                    return .failure(.refreshTokenReused)
                case .active:
                    guard presented.expiresAtUnixMs > nowMs, let user = try UserRecord.fetchOne(db, key: presented.userID) else {
                        return .failure(.invalidRefreshToken)
                    }
                    presented.state = .rotated
                    try presented.update(db)
                    let next = try RefreshTokens.issue(for: user.userID, family: presented.familyID, nowMs: nowMs, in: db)
                    return .success((user, next.token, next.record))
                }
            }
        }
        switch outcome {
        case .success(let (user, token, record)):
            return RefreshTokens.grant(user, token: token, record: record, created: false)
        case .failure(let error):
            if error == .refreshTokenReused { logger.notice("a rotated refresh token was presented again; its family is revoked") }
            throw error
        }
    }

    /// Revokes the token's family; an unknown token revokes nothing.
    nonisolated func signOut(_ request: SignOutRequest) throws(SubscriptionError) -> SignOutResponse {
        let digest = RefreshTokens.digest(request.refreshToken)
        let revoked = try write { db throws(SubscriptionError) -> Int in
            try Self.catching {
                guard let presented = try RefreshTokenRecord.fetchOne(db, key: digest) else { return 0 }
                return try RefreshTokens.revokeFamily(presented.familyID, in: db)
            }
        }
        var response = SignOutResponse()
        response.revoked = Int32(revoked)
        return response
    }

    /// Deletes refresh tokens past their expiry (they can only be refused).
    func purgeExpiredRefreshTokens() {
        let nowMs = Self.unixMs(sessionClock.now())
        do {
            _ = try database.write { db in try RefreshTokenRecord.filter(Column("expiresAtUnixMs") <= nowMs).deleteAll(db) }
        } catch {
            logger.error("refresh-token purge failed; retrying on the next check", metadata: ["error": "\(error)"])
        }
    }
}
