import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import SubscriptionService
@testable import WatchlistService

@Suite("Watchlists through the bus")
struct WatchlistMeshTests {
    /// Set once `configure` has built it (the fixture needs the mesh's buses).
    final class Holder: Sendable {
        let fixture = Locked<WatchlistFixture?>(nil)
    }

    @Test(
        "a user created over the bus gets a trial, is moved to Free, adds watchlists up to the limit, is refused the 6th, and a fast-forwarded clock shows 09:00-local checks publishing price changes and one threshold event per crossing",
        arguments: MeshShape.allCases
    )
    func wholeStory(shape: MeshShape) async throws {
        let holder = Holder()
        try await withTestMesh(shape, deadline: .seconds(20)) { server, client in
            // Subscription and search on the server (the hub when split); watchlists on the client's bus.
            holder.fixture.set(try WatchlistFixture(bus: server, watchlistBus: client))
        } body: { mesh in
            let fixture = try #require(holder.fixture.get())
            let priceChanges = mesh.clientBus.subscribe(PriceChanged.self)
            let crossings = mesh.clientBus.subscribe(ThresholdCrossed.self)
            try await fixture.running {
                var create = CreateUserRequest()
                create.email = "ana@example.com"
                create.timeZone = "America/New_York"
                let user = try await mesh.clientBus.request(create).user
                #expect(user.tier == .trial)
                var set = SetTierRequest()
                set.userID = user.userID
                set.tier = .free
                _ = try await mesh.clientBus.request(set)

                fixture.search.setPrice("JFK-NRT", 50_000)
                for destination in ["NRT", "LHR", "CDG", "SFO", "LAX"] {
                    fixture.search.setPrice("JFK-\(destination)", 50_000)
                    _ = try await mesh.clientBus.request(addRequest(user.userID, "JFK", destination) { $0.priceThreshold = usd(45_000) })
                }
                do throws(BusError) {
                    _ = try await mesh.clientBus.request(addRequest(user.userID, "JFK", "BOS"))
                    Issue.record("the 6th watchlist on Free was accepted")
                } catch {
                    #expect(error.kind == .remote && error.remoteCode == "watchlist-limit")
                }

                // Day 1, 09:00 New York (+ jitter): five checks, no crossing.
                try await Self.runNextSlot(fixture, user: user.userID, expect: 5)
                // Day 2: JFK-NRT falls to 440.00, below the 450.00 threshold: one crossing.
                fixture.search.setPrice("JFK-NRT", 44_000)
                try await Self.runNextSlot(fixture, user: user.userID, expect: 5)
                // Day 3: still below: no second crossing.
                fixture.search.setPrice("JFK-NRT", 43_000)
                try await Self.runNextSlot(fixture, user: user.userID, expect: 5)

                let changes = try await firstEvents(15, of: priceChanges)
                #expect(changes.filter { $0.destination == "NRT" }.map(\.check.lowestPrice.minorUnits) == [50_000, 44_000, 43_000])
                let crossed = try await firstEvents(1, of: crossings)
                #expect(crossed.map(\.destination) == ["NRT"] && crossed[0].check.lowestPrice.minorUnits == 44_000)
                var list = ListWatchlistsRequest()
                list.userID = user.userID
                let listed = try await mesh.clientBus.request(list)
                #expect(listed.activeCount == 5 && listed.activeLimit == 5)
                let nrt = try #require(listed.watchlists.first { $0.destination == "NRT" })
                #expect(nrt.lastCheck.belowThreshold && nrt.lastCheck.change == usd(-1_000))
            }
            // No second ThresholdCrossed was published (day 3): the subscription holds nothing more.
            #expect(crossings.bufferedCount == 0)
        }
    }

    /// Moves the clock to the user's next planned check and runs what is due.
    static func runNextSlot(_ fixture: WatchlistFixture, user: String, expect count: Int) async throws {
        let owner = try #require(try fixture.owner(user))
        let due = WatchlistService.date(owner.nextCheckAtUnixMs)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "America/New_York"))
        let local = calendar.dateComponents([.hour, .minute], from: due.addingTimeInterval(-Double(CheckSchedule.jitter(forUser: user))))
        #expect(local.hour == 9 && local.minute == 0, "Free: 09:00 local")
        fixture.clock.advance(by: due.timeIntervalSince(fixture.clock.now()))
        #expect(await fixture.watchlists.runDueChecks() == count)
    }
}
