import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import SubscriptionService
@testable import WatchlistService

@Suite("Watchlist checks")
struct WatchlistCheckTests {
    func checkRequest(_ user: String, _ id: String) -> CheckWatchlistNowRequest {
        var request = CheckWatchlistNowRequest()
        request.userID = user
        request.watchlistID = id
        return request
    }

    @Test("a check records the lowest price, its change since the last check (amount and percent) and when, and publishes PriceChanged each time")
    func priceChanges() async throws {
        let bus = MessageBus()
        let fixture = try WatchlistFixture(bus: bus)
        let changes = bus.subscribe(PriceChanged.self)
        try await fixture.running {
            let user = try await fixture.user()
            let id = try await fixture.watchlists.create(addRequest(user)).watchlist.watchlistID
            fixture.search.setPrice("JFK-NRT", 80_000)
            let first = try await fixture.watchlists.checkNow(checkRequest(user, id)).watchlist.lastCheck
            #expect(first.lowestPrice == usd(80_000) && !first.hasChange && !first.hasChangeBasisPoints)
            #expect(first.checkedAtUnixMs == WatchlistService.unixMs(fixture.clock.now()))
            fixture.clock.advance(by: 3600)
            fixture.search.setPrice("JFK-NRT", 70_000)
            let second = try await fixture.watchlists.checkNow(checkRequest(user, id)).watchlist.lastCheck
            #expect(second.change == usd(-10_000) && second.changeBasisPoints == -1250)
            let events = try await firstEvents(2, of: changes)
            #expect(events.map(\.check.lowestPrice.minorUnits) == [80_000, 70_000])
            #expect(!events[0].hasPreviousPrice && events[1].previousPrice == usd(80_000))
            #expect(Set(events.map(\.checkID)).count == 2)
            let search = try #require(fixture.search.requests.get().last)
            #expect(search.purpose == .proWatchlist && search.userID == user && search.flexibleDays == 3)
        }
    }

    @Test("crossing below the threshold publishes ThresholdCrossed once; a price wobbling within the hysteresis cannot alert again; rising above it re-arms")
    func thresholdOncePerCrossing() async throws {
        let bus = MessageBus()
        let fixture = try WatchlistFixture(bus: bus)
        let crossings = bus.subscribe(ThresholdCrossed.self)
        let changes = bus.subscribe(PriceChanged.self)
        try await fixture.running {
            let user = try await fixture.user()
            let id = try await fixture.watchlists.create(addRequest(user) { $0.priceThreshold = usd(45_000) }).watchlist.watchlistID
            // 450.00 USD threshold; re-arms only above 459.00 (2%).
            var crossed: [Bool] = []
            for price: Int64 in [50_000, 45_000, 44_000, 45_100, 44_900, 45_900, 44_000, 46_000, 44_500] {
                fixture.search.setPrice("JFK-NRT", price)
                crossed.append(try await fixture.watchlists.checkNow(checkRequest(user, id)).thresholdCrossed)
            }
            #expect(crossed == [false, true, false, false, false, false, false, false, true])
            let events = try await firstEvents(2, of: crossings)
            #expect(events.map(\.check.lowestPrice.minorUnits) == [45_000, 44_500])
            #expect(events.allSatisfy { $0.priceThreshold == usd(45_000) && $0.watchlistID == id })
            _ = try await firstEvents(9, of: changes)
        }
    }

    @Test("a check's events carry each end's city and metro as search's directory gave them when the route was set, and a new route's after an update (alerts words the alert with them, asking search nothing)")
    func eventsCarryPlaces() async throws {
        let bus = MessageBus()
        let fixture = try WatchlistFixture(bus: bus)
        let crossings = bus.subscribe(ThresholdCrossed.self)
        let changes = bus.subscribe(PriceChanged.self)
        try await fixture.running {
            let user = try await fixture.user()
            let id = try await fixture.watchlists.create(addRequest(user) { $0.priceThreshold = usd(45_000) }).watchlist.watchlistID
            fixture.search.setPrice("JFK-NRT", 44_000)
            #expect(try await fixture.watchlists.checkNow(checkRequest(user, id)).thresholdCrossed)
            let crossing = try #require(try await firstEvents(1, of: crossings).first)
            let change = try #require(try await firstEvents(1, of: changes).first)
            for (city, metro, destinationCity, destinationMetro) in [
                (crossing.originCity, crossing.originMetro, crossing.destinationCity, crossing.destinationMetro),
                (change.originCity, change.originMetro, change.destinationCity, change.destinationMetro),
            ] {
                // The test directory knows JFK's city and metro; NRT it knows with neither.
                #expect(city == "New York" && metro == "NYC" && destinationCity == "" && destinationMetro == "")
            }
            var update = UpdateWatchlistRequest()
            update.userID = user
            update.watchlistID = id
            update.origin = "LHR"
            _ = try await fixture.watchlists.update(update)
            fixture.search.setPrice("LHR-NRT", 44_000)
            _ = try await fixture.watchlists.checkNow(checkRequest(user, id))
            let moved = try #require(try await firstEvents(1, of: changes).first)
            #expect(moved.origin == "LHR" && moved.originCity == "London" && moved.originMetro == "LON")
        }
    }

    @Test("a check that fails (provider down, quota, no fares) publishes nothing and keeps the last price")
    func failedCheck() async throws {
        let bus = MessageBus()
        let fixture = try WatchlistFixture(bus: bus)
        let changes = bus.subscribe(PriceChanged.self)
        try await fixture.running {
            let user = try await fixture.user()
            let id = try await fixture.watchlists.create(addRequest(user)).watchlist.watchlistID
            fixture.search.setPrice("JFK-NRT", 60_000)
            _ = try await fixture.watchlists.checkNow(checkRequest(user, id))
            fixture.search.failure.set("quota-exhausted")
            do throws(WatchlistError) {
                _ = try await fixture.watchlists.checkNow(checkRequest(user, id))
                Issue.record("a failed search was reported as a check")
            } catch {
                #expect(error.code == "quota-exhausted", "search's code passes through")
            }
            fixture.search.failure.set(nil)
            fixture.search.prices.set([:])
            await #expect(throws: WatchlistError.passedThrough(code: "no-fares-available", message: "no fares")) {
                try await fixture.watchlists.checkNow(checkRequest(user, id))
            }
            #expect(try fixture.rows(user).first?.lastPriceMinorUnits == 60_000)
            fixture.search.setPrice("JFK-NRT", 61_000)
            _ = try await fixture.watchlists.checkNow(checkRequest(user, id))
            let events = try await firstEvents(2, of: changes)
            #expect(events.map(\.check.lowestPrice.minorUnits) == [60_000, 61_000], "nothing was published in between")
        }
    }

    @Test("an inactive watchlist is not checked on demand: watchlist-inactive")
    func inactiveNotChecked() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user()
            let id = try await fixture.watchlists.create(addRequest(user)).watchlist.watchlistID
            var update = UpdateWatchlistRequest()
            update.watchlistID = id
            update.userID = user
            update.active = false
            _ = try await fixture.watchlists.update(update)
            await #expect(throws: WatchlistError.watchlistInactive(id)) { try await fixture.watchlists.checkNow(checkRequest(user, id)) }
            #expect(fixture.search.requests.get().isEmpty)
        }
    }

    @Test("WatchedRoutes answers the distinct routes on active watchlists, most watched first")
    func watchedRoutes() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let ana = try await fixture.user()
            let bo = try await fixture.user("bo@example.com")
            _ = try await fixture.watchlists.create(addRequest(ana, "JFK", "NRT"))
            _ = try await fixture.watchlists.create(addRequest(bo, "JFK", "NRT"))
            _ = try await fixture.watchlists.create(addRequest(bo, "LIS", "SFO") { $0.cabin = .business })
            let off = try await fixture.watchlists.create(addRequest(bo, "BOS", "CDG")).watchlist.watchlistID
            var update = UpdateWatchlistRequest()
            update.watchlistID = off
            update.userID = bo
            update.active = false
            _ = try await fixture.watchlists.update(update)
            let routes = try await fixture.watchlists.watchedRoutes(WatchedRoutesRequest()).routes
            #expect(routes.map { "\($0.origin)-\($0.destination)/\($0.cabin)/\($0.watchlistCount)" } == ["JFK-NRT/economy/2", "LIS-SFO/business/1"])
        }
    }

    @Test("a deleted user's watchlists are erased (UserDeleted)")
    func userDeleted() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user()
            _ = try await fixture.watchlists.create(addRequest(user))
            var delete = DeleteUserRequest()
            delete.userID = user
            _ = try await fixture.subscription.deleteUser(delete)
            try await waitUntil("the deletion reached the watchlists") { (try? fixture.rows(user).isEmpty) == true }
            #expect(try fixture.owner(user) == nil)
        }
    }
}
