import FareLensBus
import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
import Testing
@testable import ScoringService

@Suite("Price history and observed fares")
struct HistoryAndIngestTests {
    /// 20 days around €100 (9,000–11,000 cents), so a fare far below is a deal.
    static let steady: [Int64] = (0 ..< 20).map { 10_000 + Int64(($0 * 37) % 21 - 10) * 100 }

    func historyRequest(month: CalendarDate) -> PriceHistoryRequest {
        var request = PriceHistoryRequest()
        request.origin = "LIS"
        request.destination = "LON"
        request.departureYear = Int32(month.year)
        request.departureMonth = Int32(month.month)
        return request
    }

    @Test("observed fares become a per-route, per-departure-month history of daily minimums with averages, typical range, 6-month low and a 30-day series")
    func historyAnswers() async throws {
        let fixture = try ScoringFixture()
        let departure = fixture.departure(in: 45)
        await fixture.history(Self.steady, departure: departure)
        // A second, dearer fare on the last day does not change that day's minimum.
        let dearer = ScoringFixture.fare(cents: 50_000, daysAgo: 1, from: fixture.clock.now(), departure: departure)
        await fixture.service.ingest(ScoringFixture.delivery(dearer, sequence: 100))
        let history = try await fixture.service.priceHistory(historyRequest(month: departure))
        #expect(history.enoughData && history.daysOfHistory == 20)
        #expect(history.series30Days.count == 20 && history.series30Days.last?.observations == 2)
        #expect(history.series30Days.last?.minPrice.minorUnits == Self.steady.last)
        let average = Double(Self.steady.reduce(0, +)) / 20
        #expect(history.average90Days.minorUnits == Int64(average.rounded()) && history.average90Days.currency == "EUR")
        #expect(history.lowSixMonths.minorUnits == Self.steady.min())
        #expect(history.typicalLow.minorUnits < history.typicalHigh.minorUnits)
        var metros = historyRequest(month: departure)
        metros.origin = "LIS"
        metros.destination = "LON"
        let heathrow = ScoringFixture.fare("LIS", "LHR", cents: 7_000, daysAgo: 1, from: fixture.clock.now(), departure: departure)
        await fixture.service.ingest(ScoringFixture.delivery(heathrow, sequence: 101))
        #expect(try await fixture.service.priceHistory(metros).series30Days.last?.minPrice.minorUnits == 7_000, "an LHR fare counts for the LON metro too")
        metros.destination = "LHR"
        #expect(try await fixture.service.priceHistory(metros).daysOfHistory == 1, "and for its own airport pair")
        var otherMonth = historyRequest(month: departure.adding(days: 62))
        otherMonth.cabin = .economy
        #expect(try await fixture.service.priceHistory(otherMonth).daysOfHistory == 0, "history is kept per departure month")
    }

    @Test("with fewer than 7 days of history a fare gets no score (NOT_ENOUGH_DATA), never a made-up one; with 7 it is scored")
    func thinHistory() async throws {
        let fixture = try ScoringFixture()
        let departure = fixture.departure(in: 45)
        await fixture.history(Array(Self.steady.prefix(6)), departure: departure)
        var request = ScoreFareRequest()
        request.origin = "LIS"
        request.destination = "LON"
        request.departureDate = departure.message
        request.price.currency = "EUR"
        request.price.minorUnits = 5_000
        let thin = try await fixture.service.scoreFare(request).score
        #expect(thin.tier == .notEnoughData && thin.score == 0 && thin.components.isEmpty)
        let seventhDay = ScoringFixture.fare(cents: 10_000, daysAgo: 7, from: fixture.clock.now(), departure: departure)
        await fixture.service.ingest(ScoringFixture.delivery(seventhDay, sequence: 50))
        let scored = try await fixture.service.scoreFare(request).score
        #expect(scored.tier != .notEnoughData && scored.score > 0)
    }

    @Test("a fare far below its route's history is a deal: DealScored, and ExceptionalDeal when it scores 90 or more; a fare at the average is not")
    func dealsPublished() async throws {
        let fixture = try ScoringFixture()
        let scored = fixture.bus.subscribe(DealScored.self)
        let exceptional = fixture.bus.subscribe(ExceptionalDeal.self)
        let departure = fixture.departure(in: 45)
        await fixture.history(Self.steady, departure: departure)
        let average = ScoringFixture.fare(cents: 10_000, daysAgo: 0, from: fixture.clock.now(), departure: departure)
        #expect(await fixture.service.ingest(ScoringFixture.delivery(average, sequence: 200)) == nil)
        var cheap = ScoringFixture.fare(cents: 5_500, daysAgo: 0, from: fixture.clock.now(), departure: departure)
        (cheap.originCity, cheap.destinationCity, cheap.destinationMetro) = ("Lisbon", "London", "LON")
        let deal = try #require(await fixture.service.ingest(ScoringFixture.delivery(cheap, sequence: 201)))
        #expect(deal.score.score >= 90 && deal.score.hotDeal && deal.price.minorUnits == 5_500)
        // The fare's places pass into the deal (alerts words it with them, asking search nothing).
        #expect(deal.originCity == "Lisbon" && deal.originMetro == "" && deal.destinationCity == "London" && deal.destinationMetro == "LON")
        #expect(deal.expiresAtUnixMs == cheap.observedAtUnixMs + 7 * 86_400_000)
        #expect(deal.score.reasons.first?.contains("below the 90-day average") == true)
        // Its id ("d-" + 16 hex digits) survives the affiliate sub-id search builds and analytics parses.
        #expect(deal.dealID.hasPrefix("d-"))
        let subID = try AttributionSubID(dealID: deal.dealID, watchlistID: "", placement: .dealcard, abVariant: "", tier: .free)
        #expect(AttributionSubID(parsing: subID.text)?.dealID == deal.dealID)
        // Not running yet: the ExceptionalDeal waits in the event outbox, committed with the deal.
        let waiting = try fixture.database.waitingEvents(limit: 10)
        #expect(waiting.map(\.typeName) == [ExceptionalDeal.wireTypeName])
        #expect(try waiting.first.map { try ExceptionalDeal(wireEncoded: [UInt8]($0.payload)).deal.dealID } == deal.dealID)
        #expect(try waiting.first.map { try ExceptionalDeal(wireEncoded: [UInt8]($0.payload)).deal.destinationCity } == "London")
        let task = Task { try await fixture.service.run() }
        defer { task.cancel() }
        let published = try await firstMatching(scored) { $0.deal.dealID == deal.dealID }
        let pushed = try await firstMatching(exceptional) { $0.deal.dealID == deal.dealID }
        #expect(published.deal.score == deal.score && pushed.deal.price == deal.price)
        try await waitUntil("the outbox is empty once the subscriber took the event") { (try? fixture.database.waitingEvents(limit: 1).isEmpty) == true }
    }

    @Test("fares applied in one batch score exactly as ScoreFare scores them from the table (the in-memory history agrees with SQLite)")
    func batchMatchesTable() async throws {
        let fixture = try ScoringFixture()
        let departure = fixture.departure(in: 45)
        let history = Self.steady.enumerated().map { index, cents in
            ScoringFixture.delivery(
                ScoringFixture.fare(cents: cents, daysAgo: Self.steady.count - index, from: fixture.clock.now(), departure: departure), sequence: UInt64(index))
        }
        #expect(await fixture.service.ingest(history).count < history.count)
        var request = ScoreFareRequest()
        request.origin = "LIS"
        request.destination = "LON"
        request.departureDate = departure.message
        request.price.currency = "EUR"
        request.price.minorUnits = 7_000
        request.carrier = "TP"
        let fromTable = try await fixture.service.scoreFare(request).score
        let fare = ScoringFixture.fare(cents: 7_000, daysAgo: 0, from: fixture.clock.now(), departure: departure)
        let deal = try #require(await fixture.service.ingest([ScoringFixture.delivery(fare, sequence: 500)]).first)
        #expect(deal.score == fromTable)
    }

    @Test("a day's fares score alike whatever order they arrive in: each is scored against the days before its own (a split mesh delivers a sweep's fares in another order)")
    func sameDayOrderDoesNotMatter() async throws {
        var scores: [[String: Int32]] = []
        for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0]] {
            let fixture = try ScoringFixture()
            let departure = fixture.departure(in: 45)
            await fixture.history(Self.steady, departure: departure)
            let today = [5_500, 7_000, 8_000].map { ScoringFixture.fare(cents: Int64($0), daysAgo: 0, from: fixture.clock.now(), departure: departure) }
            let deals = await fixture.service.ingest(order.map { ScoringFixture.delivery(today[$0], sequence: 1_000 + UInt64($0)) })
            scores.append(Dictionary(uniqueKeysWithValues: deals.map { ($0.dealID, $0.score.score) }))
        }
        #expect(scores[0].count >= 2, "the cheaper two are deals: \(scores[0])")
        #expect(scores[1] == scores[0] && scores[2] == scores[0])
    }

    @Test("a redelivered observed fare (same event id) is counted once: the inbox")
    func redeliveryCountedOnce() async throws {
        let fixture = try ScoringFixture()
        let departure = fixture.departure(in: 45)
        let fare = ScoringFixture.fare(cents: 9_000, daysAgo: 1, from: fixture.clock.now(), departure: departure)
        await fixture.service.ingest(ScoringFixture.delivery(fare, sequence: 7))
        await fixture.service.ingest(ScoringFixture.delivery(fare, sequence: 7))
        await fixture.service.ingest(ScoringFixture.delivery(fare, publisher: "another-publisher", sequence: 7))
        let history = try await fixture.service.priceHistory(historyRequest(month: departure))
        #expect(history.series30Days.map(\.observations) == [2], "two distinct events, the redelivery skipped")
    }

    @Test("bad input is refused with named errors naming the field")
    func badInput() async throws {
        let fixture = try ScoringFixture()
        var score = ScoreFareRequest()
        score.origin = "LIS"
        score.destination = "LON"
        score.departureDate = fixture.departure(in: 10).message
        score.price.currency = "EUR"
        score.price.minorUnits = 0
        await #expect(throws: ScoringError.invalidField("price", "must be above zero")) { try await fixture.service.scoreFare(score) }
        score.price.minorUnits = 100
        score.price.currency = "XYZ"
        await #expect(throws: ScoringError.invalidField("price.currency", "'XYZ' is not an ISO 4217 currency code")) { try await fixture.service.scoreFare(score) }
        score.price.currency = "EUR"
        score.destination = "QQQ"
        await #expect(throws: ScoringError.unknownAirport("QQQ", field: "destination")) { try await fixture.service.scoreFare(score) }
        score.origin = "LON"
        score.destination = "LHR"
        await #expect(throws: ScoringError.invalidField("destination", "LHR is in the same city as the origin LON (London): no flight joins them")) {
            try await fixture.service.scoreFare(score)
        }
        score.origin = "LIS"
        let farAhead = fixture.departure(in: 366)
        score.departureDate = farAhead.message
        await #expect(throws: ScoringError.invalidField("departure_date", "\(farAhead) is more than 365 days ahead")) { try await fixture.service.scoreFare(score) }
        var history = historyRequest(month: fixture.departure(in: 10))
        history.origin = "JFK"
        history.destination = "LGA"
        await #expect(throws: ScoringError.invalidField("destination", "LGA is in the same city as the origin JFK (New York, NYC): no flight joins them")) {
            try await fixture.service.priceHistory(history)
        }
        history.destination = "JFK"
        await #expect(throws: ScoringError.invalidField("destination", "is the same as the origin (JFK)")) { try await fixture.service.priceHistory(history) }
        history = historyRequest(month: fixture.departure(in: 10))
        history.departureMonth = 13
        await #expect(throws: ScoringError.invalidField("departure_month", "13 is not a month (1–12)")) { try await fixture.service.priceHistory(history) }
        var feed = DealFeedRequest()
        feed.userID = "u-nobody"
        await #expect(throws: ScoringError.unknownUser("u-nobody")) { try await fixture.service.dealFeed(feed) }
    }
}
