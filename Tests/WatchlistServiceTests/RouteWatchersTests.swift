import FareLensBus
import FareLensMessages
import FareLensTesting
import Testing
@testable import WatchlistService

/// `RouteWatchers`: who has an active watchlist on a route, for the alerts
/// service's queue score (SPEC § 2).
@Suite struct RouteWatchersTests {
    static func request(_ origins: [String], _ destinations: [String], cabin: Cabin = .unspecified, pageSize: Int32 = 0, after token: String = "") -> RouteWatchersRequest {
        var request = RouteWatchersRequest()
        request.origins = origins
        request.destinations = destinations
        request.cabin = cabin
        request.pageSize = pageSize
        request.pageToken = token
        return request
    }

    @Test("the users with an active watchlist whose ends are among the codes asked and whose cabin is the one asked (unspecified: economy), each once, in id order")
    func matches() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let byAirport = try await fixture.user("ana@example.com")
            let byMetro = try await fixture.user("bo@example.com")
            let business = try await fixture.user("cy@example.com")
            let inactive = try await fixture.user("di@example.com")
            let reversed = try await fixture.user("ed@example.com")
            _ = try await fixture.watchlists.create(addRequest(byAirport, "JFK", "NRT"))
            _ = try await fixture.watchlists.create(addRequest(byAirport, "NYC", "NRT") { $0.cabin = .economy })
            _ = try await fixture.watchlists.create(addRequest(byMetro, "NYC", "NRT"))
            _ = try await fixture.watchlists.create(addRequest(business, "JFK", "NRT") { $0.cabin = .business })
            let off = try await fixture.watchlists.create(addRequest(inactive, "JFK", "NRT")).watchlist.watchlistID
            var update = UpdateWatchlistRequest()
            (update.watchlistID, update.userID, update.active) = (off, inactive, false)
            _ = try await fixture.watchlists.update(update)
            _ = try await fixture.watchlists.create(addRequest(reversed, "NRT", "JFK"))

            let economy = try await fixture.watchlists.routeWatchers(Self.request(["jfk", "NYC"], ["NRT"]))
            #expect(economy.userIds == [byAirport, byMetro].sorted(), "each once; another cabin, an inactive watchlist and the way back are not watchers")
            #expect(economy.nextPageToken.isEmpty)
            #expect(try await fixture.watchlists.routeWatchers(Self.request(["JFK"], ["NRT"])).userIds == [byAirport], "a metro matches only when asked")
            #expect(try await fixture.watchlists.routeWatchers(Self.request(["JFK", "NYC"], ["NRT"], cabin: .business)).userIds == [business])
            #expect(try await fixture.watchlists.routeWatchers(Self.request(["LIS"], ["NRT"])).userIds.isEmpty)
        }
    }

    @Test("pages of page_size users in id order, the last page's token empty")
    func pages() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            var users: [String] = []
            for index in 0..<5 {
                let user = try await fixture.user("u\(index)@example.com")
                _ = try await fixture.watchlists.create(addRequest(user, "LIS", "SFO"))
                users.append(user)
            }
            var seen: [String] = []
            var token = ""
            var pages = 0
            repeat {
                let page = try await fixture.watchlists.routeWatchers(Self.request(["LIS"], ["SFO"], pageSize: 2, after: token))
                #expect(page.userIds.count <= 2)
                seen += page.userIds
                token = page.nextPageToken
                pages += 1
            } while !token.isEmpty && pages < 10
            #expect(seen == users.sorted())
            #expect(pages == 3)
        }
    }

    @Test("bad requests are refused with invalid-field naming the field", arguments: [
        (RouteWatchersTests.request([], ["NRT"]), "origins"),
        (RouteWatchersTests.request(["JFK"], []), "destinations"),
        (RouteWatchersTests.request(["JFK", "NYC", "LGA", "EWR", "JRB"], ["NRT"]), "origins"),
        (RouteWatchersTests.request(["JFK"], ["N1T"]), "destinations"),
        (RouteWatchersTests.request(["JFK"], ["NRT"], cabin: Cabin(rawValue: 42) ?? .unspecified), "cabin"),
        (RouteWatchersTests.request(["JFK"], ["NRT"], pageSize: -1), "page_size"),
        (RouteWatchersTests.request(["JFK"], ["NRT"], pageSize: 10_001), "page_size"),
    ])
    func refusals(request: RouteWatchersRequest, field: String) async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        do {
            _ = try await fixture.watchlists.routeWatchers(request)
            Issue.record("accepted a request with a bad \(field)")
        } catch {
            #expect(error.code == "invalid-field")
            #expect(error.field == field)
        }
    }

    @Test("asked over the bus, as the alerts service asks it")
    func overTheBus() async throws {
        let bus = MessageBus()
        let fixture = try WatchlistFixture(bus: bus)
        try await fixture.running {
            let user = try await fixture.user()
            _ = try await fixture.watchlists.create(addRequest(user, "JFK", "NRT"))
            #expect(try await bus.request(Self.request(["JFK"], ["NRT"])).userIds == [user])
            do {
                _ = try await bus.request(Self.request([], ["NRT"]))
                Issue.record("accepted a request with no origins")
            } catch {
                #expect((error as? BusError)?.remoteCode == "invalid-field")
            }
        }
    }
}
