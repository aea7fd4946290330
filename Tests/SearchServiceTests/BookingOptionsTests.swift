import FareLensMessages
import FareLensTesting
@testable import SearchService
import Testing

@Suite("Booking options")
struct BookingOptionsTests {
    let builder = BookingOptionsBuilder(affiliates: ["travelpayouts", "agency"])

    func quote(_ provider: String, _ cents: Int64) -> BookingQuote {
        BookingQuote(provider: provider, price: MoneyAmount.money(cents, "EUR"), link: "https://\(provider).example/book?x=1", simulated: false)
    }

    func request(_ change: (inout BookingOptionsRequest) -> Void = { _ in }) -> BookingOptionsRequest {
        var request = BookingOptionsRequest()
        request.offerID = "of-1"
        request.dealID = "d42"
        request.watchlistID = "w7"
        request.placement = .dealcard
        request.abVariant = "variantA"
        request.tier = .pro
        change(&request)
        return request
    }

    @Test("the lowest price is first and labelled lowest even when it earns nothing")
    func lowestFirst() throws {
        let options = try builder.options(for: [quote("agency", 10_500), quote("airline", 10_000), quote("travelpayouts", 12_000)], request: request())
        #expect(options.map(\.provider) == ["airline", "agency", "travelpayouts"])
        #expect(options.map(\.label) == [.lowest, .affiliate, .affiliate])
        #expect(!options[0].affiliate && options[0].link == "https://airline.example/book?x=1" && options[0].subID.isEmpty)
    }

    @Test("an affiliate within 7% of the lowest is the secondary choice; one beyond is not")
    func secondary() throws {
        let within = try builder.options(for: [quote("airline", 10_000), quote("agency", 10_700)], request: request())
        #expect(within[1].secondary)
        let beyond = try builder.options(for: [quote("airline", 10_000), quote("agency", 10_701)], request: request())
        #expect(!beyond[1].secondary)
        let onlyOne = try builder.options(for: [quote("airline", 10_000), quote("agency", 10_100), quote("travelpayouts", 10_200)], request: request())
        #expect(onlyOne.map(\.secondary) == [false, true, false])
    }

    @Test("affiliate links carry the sub-id ios-fl-{deal}-{watchlist or none}-{placement}-{variant}-{tier}")
    func subID() throws {
        let options = try builder.options(for: [quote("airline", 10_000), quote("agency", 10_100)], request: request())
        #expect(options[1].subID == "ios-fl-d42-w7-dealcard-variantA-pro")
        #expect(options[1].link == "https://agency.example/book?x=1&sub_id=ios-fl-d42-w7-dealcard-variantA-pro")
        let noWatchlist = try BookingOptionsBuilder.subID(request { $0.clearWatchlistID(); $0.placement = .alert; $0.tier = .free })
        #expect(noWatchlist == "ios-fl-d42-none-alert-variantA-free")
    }

    /// Shaped exactly like scoring's deal ids (`"d-" + stableHash(...)`, 16
    /// hex digits) and the watchlist service's ids (`"w-" + 16 hex digits`).
    static let scoredDealID = "d-9f2c4a01b7e3d856"
    static let watchlistID = "w-00c0ffee1234abcd"

    @Test("booking options for a real scored deal and watchlist (ids with '-') carry a sub-id analytics parses back")
    func scoredDealSubID() throws {
        let options = try builder.options(
            for: [quote("airline", 10_000), quote("agency", 10_100)],
            request: request { $0.dealID = Self.scoredDealID; $0.watchlistID = Self.watchlistID }
        )
        let subID = options[1].subID
        #expect(subID == "ios-fl-d__9f2c4a01b7e3d856-w__00c0ffee1234abcd-dealcard-variantA-pro")
        #expect(subID.split(separator: "-", omittingEmptySubsequences: false).count == 7)
        #expect(options[1].link == "https://agency.example/book?x=1&sub_id=" + subID)
        let parsed = try #require(AttributionSubID(parsing: subID))
        #expect(parsed.dealID == Self.scoredDealID && parsed.watchlistID == Self.watchlistID)
        #expect(parsed.placement == .dealcard && parsed.abVariant == "variantA" && parsed.tier == .pro)
    }

    @Test("a missing placement or tier, or a field the sub-id cannot carry unambiguously, is invalid-field naming it")
    func invalid() throws {
        let noPlacement = #expect(throws: SearchError.self) { try BookingOptionsBuilder.subID(request { $0.placement = .unspecified }) }
        #expect(noPlacement?.code == "invalid-field" && noPlacement?.field == "placement")
        let noTier = #expect(throws: SearchError.self) { try BookingOptionsBuilder.subID(request { $0.tier = .unspecified }) }
        #expect(noTier?.code == "invalid-field" && noTier?.field == "tier")
        let cases: [(String, (inout BookingOptionsRequest) -> Void)] = [
            ("deal_id", { $0.dealID = "d 42" }), ("deal_id", { $0.dealID = "d.42" }), ("deal_id", { $0.dealID = "d__42" }),
            ("deal_id", { $0.dealID = "d_-42" }), ("deal_id", { $0.dealID = String(repeating: "d-", count: 22) }),
            ("watchlist_id", { $0.watchlistID = "w-é" }), ("watchlist_id", { $0.watchlistID = "w-_7" }),
            ("ab_variant", { $0.abVariant = "variant/A" }), ("ab_variant", { $0.abVariant = String(repeating: "a", count: 65) }),
        ]
        for (field, change) in cases {
            let error = #expect(throws: SearchError.self) { try BookingOptionsBuilder.subID(request(change)) }
            #expect(error?.code == "invalid-field" && error?.field == field, "\(field): \(String(describing: error))")
        }
        // 64 characters as written is the limit ("-" is written "__").
        #expect(try BookingOptionsBuilder.subID(request { $0.dealID = String(repeating: "d-", count: 21) + "d" }).count == 7 + 64 + 25)
    }
}

@Suite("Merging offers")
struct OfferMergeTests {
    @Test("the same itinerary from two providers is one offer at the lower price, remembering both quotes")
    func dedupe() async throws {
        let fixture = SearchEngineFixture(
            simulated: ScriptedProvider("cheap-seller", live: false, price: 9_000),
            live: [ScriptedProvider("amadeus", price: 10_000)]
        )
        let response = try await fixture.engine.search(SearchEngineFixture.request())
        #expect(response.offers.count == 2)
        #expect(response.offers.map(\.price.minorUnits) == [9_000, 14_000])
        #expect(response.offers.allSatisfy { $0.provider == "cheap-seller" })
        #expect(Set(response.providers) == ["amadeus", "cheap-seller"])
        let quotes = try #require(await fixture.engine.offer(response.offers[0].offerID)).quotes
        #expect(quotes.map(\.provider) == ["cheap-seller", "amadeus"])
    }

    @Test("a served offer says how to find its fare again: the route as asked, the offer's own day (a flexible search's shifted one too), the travellers and cabin")
    func recheckSearch() async throws {
        let fixture = SearchEngineFixture(live: [ScriptedProvider("amadeus")])
        let response = try await fixture.engine.search(SearchEngineFixture.request {
            $0.flexibleDays = 1
            $0.adults = 2
            $0.children = 1
            $0.cabin = .business
        })
        let shifted = try #require(response.offers.first { $0.outbound.segments.first?.departureLocal.hasPrefix("2026-12-11") == true })
        let recheck = try #require(await fixture.engine.offerAndRecheck(shifted.offerID)?.recheck)
        #expect(recheck.origin == "LIS" && recheck.destination == "JFK" && CalendarDate(recheck.departureDate) == CalendarDate(year: 2026, month: 12, day: 11))
        #expect(!recheck.hasReturnDate && recheck.adults == 2 && recheck.children == 1 && recheck.cabin == .business && recheck.flexibleDays == 0)
        #expect(recheck.purpose == .unspecified && recheck.userID.isEmpty, "the asker says why it asks; no user travels with it")
    }

    @Test("a maximum price drops dearer offers")
    func maxPrice() async throws {
        let fixture = SearchEngineFixture(live: [ScriptedProvider("amadeus", price: 10_000)])
        let response = try await fixture.engine.search(SearchEngineFixture.request { $0.maxPrice = MoneyAmount.money(12_000, "EUR") })
        #expect(response.offers.map(\.price.minorUnits) == [10_000])
    }

    @Test("a maximum price in another currency than the fares is refused, not ignored")
    func maxPriceOtherCurrency() async throws {
        let fixture = SearchEngineFixture(live: [ScriptedProvider("amadeus", price: 10_000)])
        let refused = await #expect(throws: SearchError.self) {
            try await fixture.engine.search(SearchEngineFixture.request { $0.maxPrice = MoneyAmount.money(12_000, "USD") })
        }
        #expect(refused?.code == "invalid-field" && refused?.field == "max_price")
        #expect(refused?.message == "max_price: is in USD, and this search's fares are in EUR: give the limit in EUR")
    }

    @Test("every kept offer is published as a FareObserved event, with each end's country, city and metro")
    func fareObserved() async throws {
        let fixture = SearchEngineFixture(live: [ScriptedProvider("amadeus")])
        let observed = fixture.bus.subscribe(FareObserved.self)
        let (response, events) = try await fixture.running {
            let response = try await fixture.engine.search(SearchEngineFixture.request { $0.adults = 2 })
            return (response, try await firstEvents(2, of: observed))
        }
        #expect(events.map(\.offerID) == response.offers.map(\.offerID))
        for event in events {
            #expect(event.origin == "LIS" && event.destination == "JFK")
            #expect(event.originCountry == "PT" && event.destinationCountry == "US")
            // The directory's city and metro of each end travel with the fare (alerts words a deal with them).
            #expect(event.originCity == "Lisbon" && event.originMetro == "" && event.destinationCity == "New York" && event.destinationMetro == "NYC")
            #expect(event.travellers == 2 && event.purpose == .userSearch)
        }
    }
}
