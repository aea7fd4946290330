import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import SubscriptionService

@Suite("Trials")
struct TrialTests {
    @Test("one day before its end a trial gets TrialEnding(ONE_DAY_LEFT); at its end EXPIRED, the tier becomes Free and TierChanged says why; each once")
    func trialRunsItsCourse() async throws {
        let fixture = try SubscriptionFixture()
        let endings = fixture.bus.subscribe(TrialEnding.self)
        let changes = fixture.bus.subscribe(TierChanged.self)
        try await fixture.running {
            let user = try await fixture.service.createUser(SubscriptionFixture.create()).user
            _ = try await firstEvents(1, of: changes)  // TRIAL_STARTED
            fixture.clock.advance(by: 13 * 86_400 - 1)
            #expect(await fixture.service.advanceTrials() == 0)
            fixture.clock.advance(by: 1)
            #expect(await fixture.service.advanceTrials() == 1)
            #expect(await fixture.service.advanceTrials() == 0, "the reminder is sent once")
            let reminder = try #require(try await firstEvents(1, of: endings).first)
            #expect(reminder.userID == user.userID && reminder.stage == .oneDayLeft && reminder.trialEndsAtUnixMs == user.trialEndsAtUnixMs)

            fixture.clock.advance(by: 86_400)
            #expect(await fixture.service.advanceTrials() == 1)
            #expect(await fixture.service.advanceTrials() == 0, "the expiry happens once")
            #expect(try await firstEvents(1, of: endings).first?.stage == .expired)
            let change = try #require(try await firstEvents(1, of: changes).first)
            #expect(change.previous == .trial && change.current == .free && change.cause == .trialExpired)
            #expect(change.entitlements == TierEntitlements.of(.free))
            var get = GetEntitlementsRequest()
            get.userID = user.userID
            #expect(try await fixture.service.entitlements(get).entitlements.activeWatchlists == 5)
        }
    }

    @Test("a trial that ended while the service was down gets only the expiry, once")
    func missedReminder() async throws {
        let fixture = try SubscriptionFixture()
        let endings = fixture.bus.subscribe(TrialEnding.self)
        try await fixture.running {
            _ = try await fixture.service.createUser(SubscriptionFixture.create())
            fixture.clock.advance(by: 20 * 86_400)
            #expect(await fixture.service.advanceTrials() == 1)
            #expect(await fixture.service.advanceTrials() == 0)
            #expect(try await firstEvents(1, of: endings).map(\.stage) == [.expired])
            #expect(endings.bufferedCount == 0)
        }
    }

    @Test("a downgrade keeps its promises (issue #60): a trial ending with three preferred airports keeps the first chosen at weight 1.0, names the removed ones in TierChanged and publishes the airports kept")
    func downgradeTrimsPreferredAirports() async throws {
        let fixture = try SubscriptionFixture()
        let changes = fixture.bus.subscribe(TierChanged.self)
        let preferences = fixture.bus.subscribe(UserPreferencesChanged.self)
        try await fixture.running {
            let user = try await fixture.service.createUser(SubscriptionFixture.create { $0.preferredAirports = preferred(("LIS", 0.6), ("OPO", 0.3), ("LHR", 0.1)) }).user
            _ = try await firstEvents(1, of: changes)  // TRIAL_STARTED
            _ = try await firstEvents(1, of: preferences)  // the user's first preferences
            fixture.clock.advance(by: 15 * 86_400)
            #expect(await fixture.service.advanceTrials() == 1)
            let change = try #require(try await firstEvents(1, of: changes).first)
            #expect(change.current == .free && change.removedPreferredAirports == ["OPO", "LHR"])
            let kept = try #require(try await firstEvents(1, of: preferences).first)
            #expect(kept.preferredAirports.map(\.code) == ["LIS"] && kept.preferredAirports.first?.weight == 1.0)
            var get = GetUserRequest()
            get.userID = user.userID
            let stored = try await fixture.service.user(get).user
            #expect(stored.preferredAirports.map(\.code) == ["LIS"] && stored.preferredAirports.first?.weight == 1.0)
        }
    }

    @Test("an operator's move to Free trims the same way and answers with the airports kept; a move to Pro trims nothing")
    func operatorDowngradeTrims() async throws {
        let fixture = try SubscriptionFixture()
        let user = try await fixture.service.createUser(SubscriptionFixture.create { $0.preferredAirports = preferred(("JFK", 0.5), ("LGA", 0.5)) }).user
        var pro = SetTierRequest()
        pro.userID = user.userID
        pro.tier = .pro
        pro.product = .monthly
        #expect(try await fixture.service.setTier(pro).user.preferredAirports.count == 2)
        var free = SetTierRequest()
        free.userID = user.userID
        free.tier = .free
        let answer = try await fixture.service.setTier(free).user
        #expect(answer.preferredAirports.map(\.code) == ["JFK"] && answer.preferredAirports.first?.weight == 1.0)
    }

    @Test("after the trial a Free user may keep only one preferred airport")
    func freeAirportLimit() async throws {
        let fixture = try SubscriptionFixture()
        let user = try await fixture.service.createUser(SubscriptionFixture.create()).user
        fixture.clock.advance(by: 15 * 86_400)
        await fixture.service.advanceTrials()
        var update = UpdateUserRequest()
        update.userID = user.userID
        update.preferredAirports.airports = preferred(("LIS", 0.5), ("OPO", 0.5))
        let error = await #expect(throws: SubscriptionError.self) { try await fixture.service.updateUser(update) }
        #expect(error?.code == "airport-limit")
        #expect(error?.message == "preferred_airports: 2 given; Free allows 1")
    }
}
