import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import SubscriptionService
@testable import WatchlistService

@Suite("Watchlist limits from the tier")
struct WatchlistLimitTests {
    @Test("a Free user keeps 5 active watchlists; the 6th is refused with watchlist-limit saying the limit and that Pro removes it")
    func freeLimit() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user(tier: .free)
            for trip in 0 ..< 5 { _ = try await fixture.watchlists.create(tripRequest(user, trip)) }
            do throws(WatchlistError) {
                _ = try await fixture.watchlists.create(tripRequest(user, 5))
                Issue.record("the 6th watchlist on Free was accepted")
            } catch {
                #expect(error.code == "watchlist-limit")
                #expect(error.message.contains("Free allows 5 active watchlists") && error.message.contains("Pro has no limit"))
            }
            #expect(try fixture.rows(user).count == 5, "nothing half-written")
        }
    }

    @Test("a trial user (Pro's entitlements) is not limited")
    func trialUnlimited() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user()
            for trip in 0 ..< 8 { _ = try await fixture.watchlists.create(tripRequest(user, trip)) }
            var list = ListWatchlistsRequest()
            list.userID = user
            let listed = try await fixture.watchlists.list(list)
            #expect(listed.activeCount == 8 && !listed.hasActiveLimit)
        }
    }

    @Test("on a downgrade the newest watchlists beyond the limit become inactive (over-tier-limit), none is deleted; on an upgrade they return")
    func downgradeAndUpgrade() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user()
            var created: [String] = []
            for trip in 0 ..< 7 {
                created.append(try await fixture.watchlists.create(tripRequest(user, trip)).watchlist.watchlistID)
                fixture.clock.advance(by: 1)
            }
            var byUser = UpdateWatchlistRequest()
            byUser.watchlistID = created[0]
            byUser.userID = user
            byUser.active = false
            _ = try await fixture.watchlists.update(byUser)

            var set = SetTierRequest()
            set.userID = user
            set.tier = .free
            _ = try await fixture.subscription.setTier(set)
            try await waitUntil("the downgrade reached the watchlists") { (try? fixture.rows(user).count(where: { !$0.active })) == 2 }
            let rows = try fixture.rows(user)
            #expect(rows.count == 7, "nothing is deleted")
            let over = Set(rows.filter { $0.inactiveReason == Watchlist.InactiveReason.overTierLimit.rawValue }.map(\.watchlistID))
            #expect(over == [created[6]], "the newest beyond Free's 5 active: \(over)")
            #expect(rows.first { $0.watchlistID == created[0] }?.inactiveReason == Watchlist.InactiveReason.byUser.rawValue)
            #expect(rows.count(where: \.active) == 5)

            set.tier = .pro
            set.product = .annual
            _ = try await fixture.subscription.setTier(set)
            try await waitUntil("the upgrade reached the watchlists") { (try? fixture.rows(user).count(where: \.active)) == 6 }
            #expect(try fixture.rows(user).first { $0.watchlistID == created[0] }?.active == false, "one the user switched off stays off")
        }
    }

    /// Runs `body` with subscription publishing its events and watchlist's own loop not running: the test
    /// applies the tier changes it hears (`changes`) itself.
    func withTierChanges(_ body: @escaping @Sendable (WatchlistFixture, EventSubscription<TierChanged>) async throws -> Void) async throws {
        let bus = MessageBus()
        let fixture = try WatchlistFixture(bus: bus)
        let changes = bus.subscribe(TierChanged.self)
        let subscriptionTask = Task { try await fixture.subscription.run() }
        defer { subscriptionTask.cancel() }
        try await withTimeLimit("the test body finished") { try await body(fixture, changes) }
    }

    /// The first change to `tier` that `changes` hears.
    static func firstChange(to tier: Tier, in changes: EventSubscription<TierChanged>) async throws -> Delivery<TierChanged> {
        for await delivery in changes where delivery.event.current == tier { return delivery }
        throw WaitTimedOut(what: "a change to \(tier)")
    }

    @Test("a tier change older than what the watchlists know leaves the newer tier: a trial's TierChanged arriving after the user was set to Free keeps them Free")
    func staleTierChangeKeepsTheNewer() async throws {
        try await withTierChanges { fixture, changes in
            // Created on a trial, then set to Free; the watchlist is created as Free's (subscription's answer).
            let user = try await fixture.user(tier: .free)
            _ = try await fixture.watchlists.create(addRequest(user))
            #expect(try fixture.owner(user)?.tierValue == .free)
            // The trial's start, delivered late.
            _ = await fixture.watchlists.apply(try await Self.firstChange(to: .trial, in: changes))
            let owner = try #require(try fixture.owner(user))
            #expect(owner.tierValue == .free && owner.datePairLimit == 8 && owner.activeLimit == 5)
        }
    }

    @Test("a redelivered TierChanged is applied once (the inbox)")
    func tierChangeOnce() async throws {
        try await withTierChanges { fixture, changes in
            let user = try await fixture.user()
            for trip in 0 ..< 6 { _ = try await fixture.watchlists.create(tripRequest(user, trip)) }
            var set = SetTierRequest()
            set.userID = user
            set.tier = .free
            _ = try await fixture.subscription.setTier(set)
            let delivery = try await Self.firstChange(to: .free, in: changes)
            #expect(await fixture.watchlists.apply(delivery)?.count == 1)
            #expect(await fixture.watchlists.apply(delivery) == nil, "the second delivery of the same event changes nothing")
            #expect(try fixture.rows(user).count(where: \.active) == 5)
        }
    }

    @Test("activating a watchlist beyond the tier's limit is refused with watchlist-limit and changes nothing")
    func activationLimit() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user(tier: .free)
            let first = try await fixture.watchlists.create(tripRequest(user, 10)).watchlist.watchlistID
            var update = UpdateWatchlistRequest()
            update.watchlistID = first
            update.userID = user
            update.active = false
            _ = try await fixture.watchlists.update(update)
            for trip in 0 ..< 5 { _ = try await fixture.watchlists.create(tripRequest(user, trip)) }
            update.active = true
            do throws(WatchlistError) {
                _ = try await fixture.watchlists.update(update)
                Issue.record("a 6th active watchlist on Free was activated")
            } catch {
                #expect(error.code == "watchlist-limit")
            }
            #expect(try fixture.rows(user).first { $0.watchlistID == first }?.active == false)
        }
    }
}
