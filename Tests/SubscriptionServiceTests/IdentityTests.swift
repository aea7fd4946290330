import FareLensBus
import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
import GRDB
import Testing
@testable import SubscriptionService

@Suite("Identity: password accounts, Apple subjects, refresh-token families")
struct IdentityTests {
    static func signUp(_ email: String = "ana@example.com", password: String = "correct horse battery") -> PasswordSignUpRequest {
        var request = PasswordSignUpRequest()
        request.email = email
        request.password = password
        request.timeZone = "Europe/Lisbon"
        return request
    }

    static func signIn(_ email: String = "ana@example.com", password: String = "correct horse battery") -> PasswordSignInRequest {
        var request = PasswordSignInRequest()
        request.email = email
        request.password = password
        return request
    }

    static func refresh(_ token: String) -> RefreshSessionRequest {
        var request = RefreshSessionRequest()
        request.refreshToken = token
        return request
    }

    @Test("sign-up creates a trial user and keeps only a bcrypt hash of the password and a SHA-256 digest of the refresh token")
    func signUpKeepsNoSecretInClear() async throws {
        let fixture = try SubscriptionFixture()
        let grant = try await fixture.service.passwordSignUp(Self.signUp(), context: nil)
        #expect(grant.created && grant.user.tier == .trial && grant.user.email == "ana@example.com")
        #expect(grant.refreshToken.count == 43, "256 bits in base64url: \(grant.refreshToken)")
        let (hash, digests) = try await fixture.database.writer.read { db in
            (try String.fetchOne(db, sql: "SELECT passwordHash FROM credential"), try String.fetchAll(db, sql: "SELECT digest FROM refreshToken"))
        }
        #expect(hash?.hasPrefix("$2") == true && hash?.contains("correct horse") == false)
        #expect(digests == [RefreshTokens.digest(grant.refreshToken)] && !digests.contains(grant.refreshToken))
    }

    @Test("a password under 10 characters or over bcrypt's 72 bytes is refused as weak-password, and no user is written", arguments: [
        "short", String(repeating: "é", count: 37),
    ])
    func weakPasswords(password: String) async throws {
        let fixture = try SubscriptionFixture()
        let error = await #expect(throws: SubscriptionError.self) { try await fixture.service.passwordSignUp(Self.signUp(password: password), context: nil) }
        #expect(error?.code == "weak-password" && error?.field == "password")
        #expect(try fixture.userCount() == 0)
    }

    @Test("sign-in answers the same invalid-credentials for a wrong password and an unknown email")
    func signInCredentials() async throws {
        let fixture = try SubscriptionFixture()
        let created = try await fixture.service.passwordSignUp(Self.signUp(), context: nil)
        let signedIn = try await fixture.service.passwordSignIn(Self.signIn(" ANA@example.com "))
        #expect(signedIn.grant.user.userID == created.user.userID && !signedIn.grant.created && signedIn.retryAfterMs == 0)
        #expect(signedIn.grant.familyID != created.familyID, "each sign-in is a family of its own")
        for request in [Self.signIn(password: "wrong password!"), Self.signIn("bo@example.com")] {
            let error = await #expect(throws: SubscriptionError.self) { try await fixture.service.passwordSignIn(request) }
            #expect(error?.code == "invalid-credentials")
            #expect(error?.message == SubscriptionError.invalidCredentials.message)
        }
    }

    @Test("five failed sign-ins throttle the account for 15 minutes, right password or not; then it signs in")
    func throttling() async throws {
        let fixture = try SubscriptionFixture()
        _ = try await fixture.service.passwordSignUp(Self.signUp(), context: nil)
        for _ in 1...5 {
            await #expect(throws: SubscriptionError.self) { try await fixture.service.passwordSignIn(Self.signIn(password: "wrong password!")) }
        }
        let throttled = try await fixture.service.passwordSignIn(Self.signIn())
        #expect(throttled.retryAfterMs == 15 * 60_000 && !throttled.hasGrant)
        fixture.sessionClock.advance(by: 15 * 60 - 1)
        #expect(try await fixture.service.passwordSignIn(Self.signIn()).retryAfterMs == 1000)
        fixture.sessionClock.advance(by: 1)
        #expect(try await fixture.service.passwordSignIn(Self.signIn()).hasGrant)
    }

    @Test("four failures spread beyond the 15-minute window do not throttle")
    func failuresOutsideTheWindow() async throws {
        let fixture = try SubscriptionFixture()
        _ = try await fixture.service.passwordSignUp(Self.signUp(), context: nil)
        for _ in 1...4 {
            await #expect(throws: SubscriptionError.self) { try await fixture.service.passwordSignIn(Self.signIn(password: "wrong password!")) }
        }
        fixture.sessionClock.advance(by: 16 * 60)
        for _ in 1...4 {
            await #expect(throws: SubscriptionError.self) { try await fixture.service.passwordSignIn(Self.signIn(password: "wrong password!")) }
        }
        #expect(try await fixture.service.passwordSignIn(Self.signIn()).hasGrant)
    }

    @Test("a refresh rotates the token; presenting the old one again revokes the whole family, the successor included")
    func reuseRevokesFamily() async throws {
        let fixture = try SubscriptionFixture()
        let first = try await fixture.service.passwordSignUp(Self.signUp(), context: nil)
        let second = try fixture.service.refreshSession(Self.refresh(first.refreshToken))
        #expect(second.familyID == first.familyID && second.refreshToken != first.refreshToken && second.user.userID == first.user.userID)
        let reused = #expect(throws: SubscriptionError.self) { try fixture.service.refreshSession(Self.refresh(first.refreshToken)) }
        #expect(reused?.code == "refresh-token-reused")
        let successor = #expect(throws: SubscriptionError.self) { try fixture.service.refreshSession(Self.refresh(second.refreshToken)) }
        #expect(successor?.code == "invalid-refresh-token")
    }

    @Test("another sign-in's family is untouched when one family is revoked")
    func familiesAreSeparate() async throws {
        let fixture = try SubscriptionFixture()
        let phone = try await fixture.service.passwordSignUp(Self.signUp(), context: nil)
        let tablet = try await fixture.service.passwordSignIn(Self.signIn()).grant
        var signOut = SignOutRequest()
        signOut.refreshToken = phone.refreshToken
        #expect(try fixture.service.signOut(signOut).revoked == 1)
        #expect(try fixture.service.signOut(signOut).revoked == 0, "signing out twice is fine")
        let refused = #expect(throws: SubscriptionError.self) { try fixture.service.refreshSession(Self.refresh(phone.refreshToken)) }
        #expect(refused?.code == "invalid-refresh-token")
        #expect(try fixture.service.refreshSession(Self.refresh(tablet.refreshToken)).user.userID == phone.user.userID)
    }

    @Test("a refresh token stops working 7 days after it was issued, and is purged")
    func expiry() async throws {
        let fixture = try SubscriptionFixture()
        let grant = try await fixture.service.passwordSignUp(Self.signUp(), context: nil)
        #expect(grant.refreshExpiresAtUnixMs == Int64(fixture.sessionClock.now().timeIntervalSince1970 * 1000) + 7 * 86_400_000)
        fixture.sessionClock.advance(by: 7 * 86_400)
        let error = #expect(throws: SubscriptionError.self) { try fixture.service.refreshSession(Self.refresh(grant.refreshToken)) }
        #expect(error?.code == "invalid-refresh-token")
        await fixture.service.purgeExpiredRefreshTokens()
        #expect(try await fixture.database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM refreshToken") } == 0)
    }

    @Test("deleting the user ends every session and sign-in")
    func deletionRevokes() async throws {
        let fixture = try SubscriptionFixture()
        let grant = try await fixture.service.passwordSignUp(Self.signUp(), context: nil)
        var delete = DeleteUserRequest()
        delete.userID = grant.user.userID
        _ = try await fixture.service.deleteUser(delete)
        let refresh = #expect(throws: SubscriptionError.self) { try fixture.service.refreshSession(Self.refresh(grant.refreshToken)) }
        #expect(refresh?.code == "invalid-refresh-token")
        let signIn = await #expect(throws: SubscriptionError.self) { try await fixture.service.passwordSignIn(Self.signIn()) }
        #expect(signIn?.code == "invalid-credentials")
        let rows = try await fixture.database.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT (SELECT COUNT(*) FROM credential) + (SELECT COUNT(*) FROM refreshToken) + (SELECT COUNT(*) FROM appleSubject)")
        }
        #expect(rows == 0)
    }

    @Test("an Apple subject's first sign-in creates its user; later ones sign the same user in")
    func appleSubjects() async throws {
        let fixture = try SubscriptionFixture()
        var request = AppleSignInRequest()
        request.appleSubject = "001234.abcdef.0042"
        let first = try await fixture.service.appleSignIn(request, context: nil)
        #expect(first.created && first.user.tier == .trial && first.user.timeZone == "UTC" && first.user.email.hasSuffix("@appleid.invalid"))
        let again = try await fixture.service.appleSignIn(request, context: nil)
        #expect(!again.created && again.user.userID == first.user.userID && again.familyID != first.familyID)
        request.appleSubject = ""
        let error = await #expect(throws: SubscriptionError.self) { try await fixture.service.appleSignIn(request, context: nil) }
        #expect(error?.code == "invalid-field" && error?.field == "apple_subject")
    }

    @Test("16 concurrent refreshes of one token: exactly one succeeds, and the family ends revoked")
    func concurrentRefreshes() async throws {
        let fixture = try SubscriptionFixture()
        let grant = try await fixture.service.passwordSignUp(Self.signUp(), context: nil)
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    do { return "ok:" + (try fixture.service.refreshSession(Self.refresh(grant.refreshToken))).refreshToken } catch { return (error as? SubscriptionError)?.code ?? "other" }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        let successes = outcomes.filter { $0.hasPrefix("ok:") }
        #expect(successes.count == 1, "\(outcomes)")
        #expect(outcomes.filter { $0 == "refresh-token-reused" || $0 == "invalid-refresh-token" }.count == 15, "\(outcomes)")
        let successor = String(successes[0].dropFirst(3))
        let error = #expect(throws: SubscriptionError.self) { try fixture.service.refreshSession(Self.refresh(successor)) }
        #expect(error?.code == "invalid-refresh-token")
    }
}
