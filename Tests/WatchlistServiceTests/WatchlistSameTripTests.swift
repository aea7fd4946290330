import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import WatchlistService

/// A user watches a trip (route, dates, cabin) once: a second watchlist of
/// it (a client's retried create, a double tap) would check and alert the
/// same fares twice and use up a Free user's limit.
@Suite("One watchlist per trip")
struct WatchlistSameTripTests {
    @Test("a second create of the same trip is refused with watchlist-exists naming the first; another cabin, dates or route, or another user, is not")
    func secondCreateRefused() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user()
            let first = try await fixture.watchlists.create(addRequest(user)).watchlist.watchlistID
            do throws(WatchlistError) {
                _ = try await fixture.watchlists.create(addRequest(user) { $0.priceThreshold = usd(45_000) })
                Issue.record("a second watchlist of the same trip was created")
            } catch {
                #expect(error.code == "watchlist-exists")
                #expect(error.message.contains("'\(first)'") && error.message.contains("JFK→NRT") && error.message.contains("update that one"), "\(error.message)")
            }
            _ = try await fixture.watchlists.create(addRequest(user) { $0.cabin = .business })
            _ = try await fixture.watchlists.create(addRequest(user) { $0.dates.flexible.maxTripDays = 10 })
            _ = try await fixture.watchlists.create(addRequest(user, "JFK", "LHR"))
            let other = try await fixture.user("bo@example.com")
            _ = try await fixture.watchlists.create(addRequest(other))
            #expect(try fixture.rows(user).count == 4)
        }
    }

    @Test("the same trip as an inactive watchlist is refused too, saying to activate that one")
    func inactiveOneCounts() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user()
            let first = try await fixture.watchlists.create(addRequest(user)).watchlist.watchlistID
            var off = UpdateWatchlistRequest()
            off.watchlistID = first
            off.userID = user
            off.active = false
            _ = try await fixture.watchlists.update(off)
            do throws(WatchlistError) {
                _ = try await fixture.watchlists.create(addRequest(user))
                Issue.record("the trip of an inactive watchlist was created again")
            } catch {
                #expect(error.code == "watchlist-exists")
                #expect(error.message.contains("(inactive)") && error.message.contains("activate"), "\(error.message)")
            }
        }
    }

    @Test("an update that would make a watchlist another's trip is refused and changes nothing; an update of its own other fields is not")
    func updateIntoAnotherTrip() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user()
            let tokyo = try await fixture.watchlists.create(addRequest(user)).watchlist.watchlistID
            let london = try await fixture.watchlists.create(addRequest(user, "JFK", "LHR")).watchlist.watchlistID
            var move = UpdateWatchlistRequest()
            move.watchlistID = london
            move.userID = user
            move.destination = "NRT"
            do throws(WatchlistError) {
                _ = try await fixture.watchlists.update(move)
                Issue.record("two watchlists of one trip after an update")
            } catch {
                #expect(error.code == "watchlist-exists")
                #expect(error.message.contains("'\(tokyo)'"), "\(error.message)")
            }
            #expect(try fixture.rows(user).first { $0.watchlistID == london }?.destination == "LHR")
            var threshold = UpdateWatchlistRequest()
            threshold.watchlistID = tokyo
            threshold.userID = user
            threshold.priceThreshold = usd(60_000)
            threshold.destination = "NRT"
            _ = try await fixture.watchlists.update(threshold)
        }
    }
}
