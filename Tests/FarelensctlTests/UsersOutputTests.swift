import FareLensMessages
import Testing
@testable import farelensctl

/// `farelensctl users show|list|tier` (issue #63: a user moved to Free still showed a trial end).
@Suite("farelensctl users output")
struct UsersOutputTests {
    static func user(_ tier: Tier) -> User {
        var user = User()
        user.userID = "u-0000000000000001"
        user.email = "a@example.com"
        user.timeZone = "Europe/London"
        user.tier = tier
        user.trialEndsAtUnixMs = 1_796_083_200_000  // the service keeps when the trial ended, whatever the tier now
        return user
    }

    @Test("a user moved to Free or Pro shows no trial end, in the table or the JSON; a user on trial does")
    func trialEndOnlyOnTrial() {
        for tier in [Tier.free, .pro] {
            let user = Self.user(tier)
            #expect(UserOutput.row(user, Entitlements()).trialEnds == nil, "\(tier)")
            #expect(UserOutput.ListRow(user).trialEnds == nil, "\(tier)")
            #expect(UserOutput.trialEnds(user) == nil, "\(tier)")
        }
        let trial = Self.user(.trial)
        #expect(UserOutput.row(trial, Entitlements()).trialEnds == "2026-12-01T00:00:00Z")
        #expect(UserOutput.ListRow(trial).trialEnds == "2026-12-01T00:00:00Z")
    }
}
