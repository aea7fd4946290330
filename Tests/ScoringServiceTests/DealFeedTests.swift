import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import ScoringService

@Suite("Deal feed")
struct DealFeedTests {
    static func deal(
        _ id: String, _ origin: String = "JFK", _ destination: String = "LHR", score: Int32, cents: Int64, departure: CalendarDate,
        stops: Int32 = 0, carrier: String = "BA", countries: (String, String) = ("US", "GB")
    ) -> Deal {
        var deal = Deal()
        deal.dealID = id
        deal.origin = origin
        deal.destination = destination
        deal.originCountry = countries.0
        deal.destinationCountry = countries.1
        deal.departureDate = departure.message
        deal.cabin = .economy
        deal.carrier = carrier
        deal.stops = stops
        deal.price.currency = "EUR"
        deal.price.minorUnits = cents
        deal.expiresAtUnixMs = .max
        deal.score.score = score
        deal.score.tier = DealScoreFormula.tier(Int(score))
        return deal
    }

    static let day = CalendarDate(year: 2026, month: 10, day: 20)!  // safe: a real date

    @Test("the SPEC's worked example: score 85, a watchlist match and a preferred airport of weight 0.6 rank at 85 × 1.2 × 1.6 = 163.2")
    func workedExample() {
        let ranking = DealRanking(preferred: ["JFK": 0.6], watchlists: [.init(watchlistID: "w-1", origin: "JFK", destination: "LHR", cabin: .economy)], metroOf: [:])
        let ranked = ranking.scored(Self.deal("d-1", score: 85, cents: 30_000, departure: Self.day))
        #expect(abs(ranked.queueScore - 163.2) < 1e-9)
        #expect(ranked.matchedWatchlistID == "w-1" && ranked.preferredAirportWeight == 0.6)
    }

    @Test("keeping only the best N gives exactly the first N of the full ranking, ties included")
    func bestNMatchesFullRanking() {
        let ranking = DealRanking(preferred: ["JFK": 0.3], watchlists: [.init(watchlistID: "w-1", origin: "LIS", destination: "LHR", cabin: .economy)], metroOf: [:])
        var generator = SplitMix64(seed: 42)
        let deals = (0 ..< 600).map { index in
            Self.deal(
                "d-\(index)", index % 3 == 0 ? "LIS" : "JFK", score: 60 + Int32(generator.next() % 20), cents: Int64(10_000 + generator.next() % 5 * 1_000),
                departure: Self.day.adding(days: Int(generator.next() % 4)))
        }
        var codes = FeedCodes()
        let entries = deals.compactMap { FeedEntry($0, metroOf: [:], codes: &codes) }
        let full = ranking.rank(entries, codes: codes).map(\.index)
        for limit in [1, 20, 50, 149] {
            #expect(ranking.rank(entries, codes: codes, limit: limit).map(\.index) == Array(full.prefix(limit)), "limit \(limit)")
        }
    }

    @Test("the merge of already-ordered runs ranks exactly as sorting every deal by queue score, price, departure and id would, for generated feeds with watchlists, metros and ties", arguments: [1, 2, 3, 4, 5] as [UInt64])
    func mergeMatchesSort(seed: UInt64) {
        let metros = ["JFK": "NYC", "EWR": "NYC", "LHR": "LON", "LGW": "LON"]
        let ranking = DealRanking(
            preferred: ["NYC": 0.5, "LIS": 0.3, "LHR": 0.25],
            watchlists: [
                .init(watchlistID: "w-1", origin: "NYC", destination: "LON", cabin: .economy),
                .init(watchlistID: "w-2", origin: "LIS", destination: "BCN", cabin: .unspecified),
                .init(watchlistID: "w-3", origin: "LHR", destination: "JFK", cabin: .business),
            ],
            metroOf: metros)
        var generator = SplitMix64(seed: seed)
        func pick<T>(_ values: [T]) -> T { values[Int(generator.next() % UInt64(values.count))] }
        let deals = (0 ..< 800).map { index in
            var deal = Self.deal(
                "d-\(generator.next() % 1_000)-\(index)", pick(["JFK", "EWR", "LIS", "LHR", "LGW", "MAD"]), pick(["LHR", "LGW", "BCN", "JFK"]),
                score: Int32(55 + generator.next() % 46), cents: Int64(10_000 + generator.next() % 4 * 500), departure: Self.day.adding(days: Int(generator.next() % 3)))
            deal.cabin = pick([.economy, .business])
            return deal
        }
        var codes = FeedCodes()
        let entries = deals.compactMap { FeedEntry($0, metroOf: metros, codes: &codes) }
        let sorted = entries.indices.map { ranking.ranked(entries[$0], index: $0, codes: codes) }.sorted { left, right in
            if left.queueScore != right.queueScore { return left.queueScore > right.queueScore }
            if left.price != right.price { return left.price < right.price }
            if left.departureDay != right.departureDay { return left.departureDay < right.departureDay }
            return entries[left.index].id < entries[right.index].id
        }
        #expect(Set(sorted.map(\.multiplier)).count >= 4, "several boost classes")
        #expect(ranking.rank(entries, codes: codes).map(\.index) == sorted.map(\.index))
        #expect(ranking.rank(entries, codes: codes, limit: 37).map(\.index) == Array(sorted.prefix(37).map(\.index)))
        let table = FeedTable(entries)
        let (kept, matching) = ranking.rank(table, codes: codes, limit: 10) { $0.score >= 80 }
        #expect(matching == entries.count { $0.score >= 80 })
        #expect(kept.map { table.entries[$0.index].id } == Array(sorted.filter { entries[$0.index].score >= 80 }.prefix(10).map { entries[$0.index].id }))
    }

    @Test("a watchlist or preferred airport given as a metro code matches the deal's airports")
    func metroMatches() {
        let ranking = DealRanking(preferred: ["NYC": 0.5], watchlists: [.init(watchlistID: "w-1", origin: "NYC", destination: "LON", cabin: .economy)], metroOf: ["JFK": "NYC", "LHR": "LON"])
        let ranked = ranking.scored(Self.deal("d-1", score: 70, cents: 30_000, departure: Self.day))
        #expect(ranked.matchedWatchlistID == "w-1" && ranked.preferredAirportWeight == 0.5)
    }

    @Test("equal queue scores rank by lower price, then earlier departure")
    func ties() {
        let ranking = DealRanking(preferred: [:], watchlists: [], metroOf: [:])
        let ranked = ranking.rank([
            Self.deal("d-late", score: 70, cents: 20_000, departure: Self.day.adding(days: 5)),
            Self.deal("d-dear", score: 70, cents: 25_000, departure: Self.day),
            Self.deal("d-early", score: 70, cents: 20_000, departure: Self.day),
            Self.deal("d-best", score: 71, cents: 90_000, departure: Self.day),
        ])
        #expect(ranked.map(\.deal.dealID) == ["d-best", "d-early", "d-late", "d-dear"])
    }

    @Test("each filter keeps only what it names: international, nonstop, under a price, this month, route, carrier; past and expired deals never show")
    func filters() {
        let today = Self.day
        var expired = Self.deal("expired", score: 80, cents: 1, departure: today.adding(days: 3))
        expired.expiresAtUnixMs = 10
        let deals = [
            Self.deal("domestic", "JFK", "LAX", score: 80, cents: 20_000, departure: today.adding(days: 3), countries: ("US", "US")),
            Self.deal("one-stop", score: 80, cents: 20_000, departure: today.adding(days: 3), stops: 1),
            Self.deal("dear", score: 80, cents: 90_000, departure: today.adding(days: 3)),
            Self.deal("next-month", score: 80, cents: 20_000, departure: today.adding(days: 20)),
            Self.deal("other-carrier", score: 80, cents: 20_000, departure: today.adding(days: 3), carrier: "AA"),
            Self.deal("from-lisbon", "LIS", "LHR", score: 80, cents: 20_000, departure: today.adding(days: 3), countries: ("PT", "GB")),
            Self.deal("past", score: 80, cents: 20_000, departure: today.adding(days: -1)),
            Self.deal("not-shown", score: 59, cents: 20_000, departure: today.adding(days: 3)),
            expired,
        ]
        func kept(_ adjust: (inout DealFeedFilter) -> Void) -> Set<String> {
            var filter = DealFeedFilter()
            adjust(&filter)
            return Set(DealRanking.filter(deals, filter, today: today, nowMs: 1_000, metroOf: ["JFK": "NYC"]).map(\.dealID))
        }
        let all: Set<String> = ["domestic", "one-stop", "dear", "next-month", "other-carrier", "from-lisbon"]
        #expect(kept { _ in } == all)
        #expect(kept { $0.internationalOnly = true } == all.subtracting(["domestic"]))
        #expect(kept { $0.nonstopOnly = true } == all.subtracting(["one-stop"]))
        #expect(kept { $0.maxPrice.currency = "EUR"; $0.maxPrice.minorUnits = 50_000 } == all.subtracting(["dear"]))
        #expect(kept { $0.departingThisMonth = true } == all.subtracting(["next-month"]))
        #expect(kept { $0.origin = "NYC" } == all.subtracting(["from-lisbon"]))
        #expect(kept { $0.origin = "LIS"; $0.destination = "LHR" } == ["from-lisbon"])
        #expect(kept { $0.carrier = "aa" } == ["other-carrier"])
        // A code no deal has matches nothing (it is never confused with "no filter").
        #expect(kept { $0.origin = "ZZZ" }.isEmpty)
        #expect(kept { $0.carrier = "ZZ" }.isEmpty)
        #expect(kept { $0.maxPrice.currency = "JPY"; $0.maxPrice.minorUnits = 50_000_000 }.isEmpty)
    }

    @Test("a Free user sees the top 20 (capped_by_tier), a Pro user all; the ranking uses the user's watchlists and preferred airports from the other services")
    func tierCapThroughTheFeed() async throws {
        let fixture = try ScoringFixture()
        fixture.neighbours.users.update {
            $0["u-free"] = (.free, "Europe/Lisbon", [("LIS", 1.0)])
            $0["u-pro"] = (.pro, "Europe/Lisbon", [])
        }
        fixture.neighbours.watchlists.update { $0["u-free"] = [("JFK", "LHR")] }
        let today = CalendarDate.of(fixture.clock.now(), in: .gmt)
        for index in 0 ..< 25 {
            let deal = Self.deal("d-\(index)", score: 60 + Int32(index), cents: 20_000, departure: today.adding(days: 30))
            await fixture.service.setCurrentForTesting(deal)
        }
        await fixture.service.setCurrentForTesting(Self.deal("d-watched", "JFK", "LHR", score: 61, cents: 20_000, departure: today.adding(days: 30)))
        var request = DealFeedRequest()
        request.userID = "u-free"
        let free = try await fixture.service.dealFeed(request)
        #expect(free.items.count == 20 && free.totalMatching == 26 && free.cappedByTier)
        #expect(free.items.allSatisfy { $0.matchedWatchlistID == "w-0" && abs($0.queueScore - Double($0.deal.score.score) * 1.2) < 1e-9 })
        #expect(free.deals.isEmpty, "the retired field stays empty")
        #expect(free.nextCursor.isEmpty, "the cap ends a Free user's feed at 20")
        request.userID = "u-pro"
        let pro = try await fixture.service.dealFeed(request)
        #expect(pro.items.count == 20 && pro.totalMatching == 26 && !pro.cappedByTier && pro.items.first?.deal.dealID == "d-24")
        request.cursor = pro.nextCursor
        let rest = try await fixture.service.dealFeed(request)
        #expect(rest.items.count == 6 && rest.nextCursor.isEmpty)
        request.cursor = ""
        request.limit = 3
        #expect(try await fixture.service.dealFeed(request).items.count == 3)
    }

    @Test("the feed is the traveller's: deals from their preferred airports and their metros and on their watched routes, not the world's (issue #63)")
    func feedIsTheTravellers() async throws {
        let fixture = try ScoringFixture()
        fixture.neighbours.users.update {
            $0["u-newyork"] = (.pro, "America/New_York", [("JFK", 0.6)])
            $0["u-new"] = (.pro, "America/New_York", [])
        }
        fixture.neighbours.watchlists.update { $0["u-newyork"] = [("LIS", "BCN")] }
        let today = CalendarDate.of(fixture.clock.now(), in: .gmt)
        let market: [(String, String, String, Int32)] = [
            ("jfk-lhr", "JFK", "LHR", 62), ("lga-cdg", "LGA", "CDG", 70), ("lga-mad", "LGA", "MAD", 65),
            ("lis-bcn", "LIS", "BCN", 61), ("bcn-lis", "BCN", "LIS", 90),
            ("syd-ool", "SYD", "OOL", 95), ("hkt-bkk", "HKT", "BKK", 93), ("lhr-jfk", "LHR", "JFK", 88),
        ]
        for (id, origin, destination, score) in market {
            await fixture.service.setCurrentForTesting(Self.deal(id, origin, destination, score: score, cents: 30_000, departure: today.adding(days: 20)))
        }
        var request = DealFeedRequest()
        request.userID = "u-newyork"
        let feed = try await fixture.service.dealFeed(request)
        #expect(feed.scope == .personal)
        // Queue order (SPEC §2): 62 × 1.6 (JFK, weight 0.6) = 99.2; LGA shares JFK's metro (NYC) but is not the
        // preferred airport itself, so no boost: 70, 65; LIS→BCN is watched: 61 × 1.2 = 73.2.
        #expect(feed.items.map(\.deal.dealID) == ["jfk-lhr", "lis-bcn", "lga-cdg", "lga-mad"])
        #expect(feed.totalMatching == 4)
        request.userID = "u-new"
        let everywhere = try await fixture.service.dealFeed(request)
        #expect(everywhere.scope == .everywhere, "a user who has named no airport and no route sees every deal")
        #expect(everywhere.items.map(\.deal.dealID) == ["syd-ool", "hkt-bkk", "bcn-lis", "lhr-jfk", "lga-cdg", "lga-mad", "jfk-lhr", "lis-bcn"])
    }

    @Test("pages follow each other without repeats or gaps, and a page size or cursor the feed cannot take is refused by its code")
    func paging() async throws {
        let fixture = try ScoringFixture()
        fixture.neighbours.users.update { $0["u-pro"] = (.pro, "Europe/Lisbon", [("JFK", 0.5)]) }
        let today = CalendarDate.of(fixture.clock.now(), in: .gmt)
        for index in 0 ..< 45 {
            await fixture.service.setCurrentForTesting(Self.deal("d-\(index)", score: 60 + Int32(index % 40), cents: 20_000 + Int64(index), departure: today.adding(days: 30)))
        }
        var request = DealFeedRequest()
        request.userID = "u-pro"
        var seen: [String] = [], sizes: [Int] = []
        for _ in 0 ..< 5 {
            let page = try await fixture.service.dealFeed(request)
            seen += page.items.map(\.deal.dealID)
            sizes.append(page.items.count)
            guard !page.nextCursor.isEmpty else { break }
            request.cursor = page.nextCursor
        }
        #expect(sizes == [20, 20, 5])
        request.cursor = ""
        request.limit = 100
        #expect(seen == (try await fixture.service.dealFeed(request)).items.map(\.deal.dealID))
        #expect(Set(seen).count == 45)
        request.limit = 101
        await #expect(throws: ScoringError.invalidField("limit", "must be 1–100 deals a page (0 for 20), not 101")) { try await fixture.service.dealFeed(request) }
        request.limit = 0
        request.cursor = "not-a-cursor"
        let error = await #expect(throws: ScoringError.self) { try await fixture.service.dealFeed(request) }
        #expect(error?.code == "invalid-cursor" && error?.field == "cursor")
    }

    @Test("subscription away: the feed is refused service-unavailable, keeping the bus's service-unavailable as its cause, not only its text (issue #64)")
    func subscriptionAway() async throws {
        // The fake subscription answers on another bus: scoring's GetUser finds nobody to ask.
        let fixture = try ScoringFixture(neighboursOn: MessageBus())
        var request = DealFeedRequest()
        request.userID = "u-newyork"
        let error = await #expect(throws: ScoringError.self) { try await fixture.service.dealFeed(request) }
        #expect(error?.code == "service-unavailable", "\(String(describing: error))")
        let cause = try #require(error?.underlying as? BusError, "the cause, not its text: \(String(describing: error?.underlying))")
        #expect(cause.kind == .serviceUnavailable)
    }
}
