import FareLensBus
import FareLensMessages
import Testing
@testable import WatchlistService

/// A neighbour that cannot answer: the refusal names the neighbour in its
/// code, and keeps the bus's own error as its cause (issue #64, "errors keep
/// their cause"), not only as text in its message.
@Suite("Watchlist: a neighbour that cannot answer")
struct NeighbourAwayTests {
    @Test("search away: a create is refused search-unavailable, its cause the bus's service-unavailable for search")
    func searchAway() async throws {
        // Subscription answers beside watchlist; search is on another bus.
        let bus = MessageBus()
        let fixture = try WatchlistFixture(bus: bus, watchlistBus: bus, searchBus: MessageBus())
        let user = try await fixture.user()
        let refusal = await Self.refusal { () async throws(WatchlistError) in _ = try await fixture.watchlists.create(addRequest(user)) }
        #expect(refusal?.code == "search-unavailable", "\(String(describing: refusal))")
        let cause = try #require(refusal?.underlying as? BusError, "the cause, not its text: \(String(describing: refusal?.underlying))")
        #expect(cause.kind == .serviceUnavailable)
        #expect(refusal?.message.hasPrefix("airport codes cannot be checked now: ") == true, "\(String(describing: refusal?.message))")
    }

    @Test("subscription away: a create is refused subscription-unavailable, its cause the bus's service-unavailable for subscription")
    func subscriptionAway() async throws {
        // Search answers beside watchlist; subscription is on another bus.
        let watchlistBus = MessageBus()
        let fixture = try WatchlistFixture(bus: MessageBus(), watchlistBus: watchlistBus, searchBus: watchlistBus)
        let refusal = await Self.refusal { () async throws(WatchlistError) in _ = try await fixture.watchlists.create(addRequest("u-away")) }
        #expect(refusal?.code == "subscription-unavailable", "\(String(describing: refusal))")
        let cause = try #require(refusal?.underlying as? BusError, "the cause, not its text: \(String(describing: refusal?.underlying))")
        #expect(cause.kind == .serviceUnavailable)
    }

    @Test("search away during a flexible range's check: search-unavailable, its cause the bus's service-unavailable, and nothing recorded")
    func searchAwayDuringRange() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user()
            let id = try await fixture.watchlists.create(WatchlistRangeTests.oneWayRange(user, "2026-10-01", "2026-10-03")).watchlist.watchlistID
            fixture.search.away.set(true)
            let refusal = await Self.refusal { () async throws(WatchlistError) in
                _ = try await fixture.watchlists.checkNow(WatchlistRangeTests.checkRequest(user, id))
            }
            #expect(refusal?.code == "search-unavailable", "\(String(describing: refusal))")
            let cause = try #require(refusal?.underlying as? BusError, "the cause, not its text: \(String(describing: refusal?.underlying))")
            #expect(cause.kind == .serviceUnavailable)
            #expect(try fixture.rows(user).first?.lastPriceMinorUnits == nil)
        }
    }

    /// The error `body` throws; nil when it succeeds.
    static func refusal(_ body: () async throws(WatchlistError) -> Void) async -> WatchlistError? {
        do throws(WatchlistError) {
            try await body()
            return nil
        } catch {
            return error
        }
    }
}
