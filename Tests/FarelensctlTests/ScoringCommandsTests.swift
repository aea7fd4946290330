import Foundation
import FareLensMessages
import Testing
@testable import farelensctl

private func money(_ minorUnits: Int64, _ currency: String = "EUR") -> Money { Money(minorUnits: minorUnits, currency: currency) }

private func date(_ text: String) -> LocalDate { CalendarDate(iso: text)!.message }

@Suite("Scoring command arguments")
struct ScoringArgumentsTests {
    @Test("a money argument takes an amount with at most the currency's decimals and a code, exactly",
          arguments: [("300.00EUR", 30_000, "EUR"), ("300EUR", 30_000, "EUR"), ("300.5EUR", 30_050, "EUR"), ("65000JPY", 65_000, "JPY"),
                      ("1.234KWD", 1_234, "KWD"), ("300.00 eur", 30_000, "EUR"), ("0.01USD", 1, "USD")] as [(String, Int64, String)])
    func moneyValid(text: String, minorUnits: Int64, currency: String) throws {
        #expect(try ScoringArguments.money(text, "--under", example: "300.00EUR") == money(minorUnits, currency))
    }

    @Test("a money argument refuses too many decimals, a bad code, a sign, zero and missing parts, naming the option",
          arguments: ["300.001EUR", "12.5JPY", "300.00EU", "300.00E1R", "-5.00EUR", "+5EUR", "0EUR", "0.00EUR", "EUR", "", "3,000EUR", "1e3EUR"])
    func moneyInvalid(text: String) {
        #expect {
            try ScoringArguments.money(text, "--under", example: "300.00EUR")
        } throws: { error in
            String(describing: error).contains("--under")
        }
    }

    @Test("--month takes YYYY-MM with month 1–12 and year 2000–2100")
    func month() throws {
        #expect(try ScoringArguments.month("2027-01") == (2027, 1))
        #expect(try ScoringArguments.month("2100-12") == (2100, 12))
        #expect(try ScoringArguments.month("2000-01") == (2000, 1))
        for bad in ["2027-13", "2027-00", "1999-12", "2101-01", "2027-1", "27-01", "2027/01", "abcd-01", "2027-01-01", "-2027-01", ""] {
            #expect(throws: (any Error).self, "\(bad)") { try ScoringArguments.month(bad) }
        }
    }

    @Test("the chart is Unicode only when the first locale variable set (LC_ALL, LC_CTYPE, LANG) is UTF-8")
    func locale() {
        #expect(ScoringArguments.utf8Locale(["LANG": "en_US.UTF-8"]))
        #expect(ScoringArguments.utf8Locale(["LC_CTYPE": "C.utf8"]))
        #expect(ScoringArguments.utf8Locale(["LC_ALL": "", "LANG": "de_DE.Utf-8"]))
        #expect(!ScoringArguments.utf8Locale(["LC_ALL": "C", "LANG": "en_US.UTF-8"]))
        #expect(!ScoringArguments.utf8Locale(["LANG": "en_US.ISO-8859-1"]))
        #expect(!ScoringArguments.utf8Locale([:]))
    }

    @Test("deals sends no tier (the service looks it up) and the filters as given")
    func dealsRequest() throws {
        let plain = try DealsCommand.parse(["--user", "u-1"]).makeRequest()
        #expect(plain.tier == .unspecified && plain.limit == 0 && plain.filter == DealFeedFilter())
        let full = try DealsCommand.parse(["--user", "u-1", "--international", "--nonstop", "--under", "300.00EUR",
                                           "--this-month", "--route", "jfk-NRT", "--carrier", "ba", "--limit", "5"]).makeRequest()
        #expect(full.tier == .unspecified && full.limit == 5)
        #expect(full.filter.internationalOnly && full.filter.nonstopOnly && full.filter.departingThisMonth)
        #expect(full.filter.maxPrice == money(30_000) && full.filter.origin == "JFK" && full.filter.destination == "NRT" && full.filter.carrier == "BA")
        #expect(try DealsCommand.parse(["--user", "u-1", "--to", "NRT"]).makeRequest().filter.destination == "NRT")
    }

    @Test("deals refuses --route with --from, a bad route, an unknown option such as --tier, and a non-positive limit",
          arguments: [["--route", "JFK-NRT", "--from", "JFK"], ["--route", "JFKNRT"], ["--tier", "pro"], ["--limit", "0"], ["--carrier", "BAW"]])
    func dealsInvalid(arguments: [String]) {
        #expect(throws: (any Error).self) { try DealsCommand.parse(["--user", "u-1"] + arguments) }
    }

    @Test("a money option's value starting with \"-\" is refused for what it is, not taken for a missing value: deals --under, search --max-price")
    func negativeAmounts() {
        #expect(parseRefusal { try DealsCommand.parse(["--user", "u-1", "--under", "-300EUR"]) }.contains("--under must be an amount and a currency code like 300.00EUR (at most the currency's decimals), not '-300EUR'"))
        #expect(parseRefusal { try SearchCommand.parse(["JFK", "NRT", "2027-03-01", "--max-price", "-250.00EUR"]) }.contains("--max-price must be an amount and a currency code like 250.00EUR"))
    }

    @Test("search --max-price is read like every other amount: exact in the currency's minor units, positive, and an amount too large for them is refused, not a crash",
          arguments: [("250.00EUR", ""), ("65000jpy", ""), ("250.5EUR", ""), ("0EUR", "--max-price must be more than zero"),
                      ("+250EUR", "--max-price must be an amount"), ("99999999999999999EUR", "--max-price must be an amount"), ("2.505EUR", "--max-price must be an amount")])
    func searchMaxPrice(text: String, refusal: String) throws {
        let said = parseRefusal { try SearchCommand.parse(["JFK", "NRT", "2027-03-01", "--max-price", text]) }
        if refusal.isEmpty {
            #expect(said == "", "\(text): \(said)")
            let price = try SearchCommand.parse(["JFK", "NRT", "2027-03-01", "--max-price", text]).makeRequest().maxPrice
            #expect(price == [
                "250.00EUR": money(25_000), "65000jpy": Money(minorUnits: 65_000, currency: "JPY"), "250.5EUR": money(25_050),
            ][text])
        } else {
            #expect(said.contains(refusal), "\(text): \(said)")
        }
    }

    @Test("history and score refuse bad months, dates, prices and a return before departure",
          arguments: [["JFK", "NRT", "--month", "2027-13"], ["JFK", "NRT", "--month", "1999-01"], ["JFK", "NRT"], ["JFKX", "NRT", "--month", "2027-01"]])
    func historyInvalid(arguments: [String]) {
        #expect(throws: (any Error).self) { try HistoryCommand.parse(arguments) }
    }

    @Test("score refuses a bad date, a bad price and a return before departure",
          arguments: [["LIS", "LON", "2027-02-30", "20.00EUR"], ["LIS", "LON", "2027-01-10", "20.001EUR"], ["LIS", "LON", "2027-01-10", "-20EUR"],
                      ["LIS", "LON", "2027-01-10", "20.00EUR", "--return", "2027-01-09"]])
    func scoreInvalid(arguments: [String]) {
        #expect(throws: (any Error).self) { try ScoreCommand.parse(arguments) }
    }

    @Test("score builds the request from its arguments")
    func scoreRequest() throws {
        let request = try ScoreCommand.parse(["lis", "lon", "2027-01-10", "20.00EUR", "--return", "2027-01-17", "--cabin", "business", "--carrier", "tp"]).makeRequest()
        #expect(request.origin == "LIS" && request.destination == "LON" && request.departureDate == date("2027-01-10") && request.returnDate == date("2027-01-17"))
        #expect(request.price == money(2_000) && request.cabin == .business && request.carrier == "TP")
    }
}

@Suite("Scoring command output")
struct ScoringOutputTests {
    func deal(_ origin: String, _ destination: String, price: Int64, score: Int32, tier: DealTier, simulated: Bool = false) -> Deal {
        var deal = Deal()
        (deal.origin, deal.destination, deal.departureDate, deal.price, deal.simulated) = (origin, destination, date("2027-01-10"), money(price), simulated)
        deal.score.score = score
        deal.score.tier = tier
        deal.score.reasons = ["41% below the 90-day average", "Lowest price in 6 months"]
        return deal
    }

    @Test("the deals table shows rank, route, price, score, tier, queue score, why the deal is here and the first reason, marks simulated fares, says when Free's cap hid deals and gives the next page's cursor")
    func dealsTable() {
        var response = DealFeedResponse()
        response.items = [deal("JFK", "NRT", price: 41_200, score: 93, tier: .exceptionalPushed, simulated: true), deal("LIS", "LON", price: 2_000, score: 71, tier: .good)].map { deal in
            var item = FeedItem()
            item.deal = deal
            return item
        }
        response.totalMatching = 34
        response.cappedByTier = true
        let text = DealsCommand.text(response)
        let lines = text.split(separator: "\n")
        #expect(lines.first?.hasPrefix("SIMULATED") == true)
        #expect(lines[1].hasPrefix("RANK  ROUTE"))
        #expect(lines[2].contains("JFK→NRT") && lines[2].contains("€412.00 (simulated)") && lines[2].contains("exceptional, pushed") && lines[2].hasSuffix("41% below the 90-day average"))
        #expect(lines[3].hasPrefix("2 ") && lines[3].contains(" good ") && !lines[3].contains("simulated"))
        #expect(lines.last == "1–2 of 34 deals (Free shows the top 20; Pro shows all)")
        response.cappedByTier = false
        response.nextCursor = "ZjEuMjA"
        response.firstRank = 21
        let next = DealsCommand.text(response).split(separator: "\n")
        #expect(next.last == "21–22 of 34 deals; next page: --cursor ZjEuMjA")
        #expect(next[2].hasPrefix("21 "))
        // Boosted: on a watched route from a preferred airport of weight 0.6 (SPEC §2's 1.2 × 1.6).
        response.items[0].matchedWatchlistID = "w-1"
        response.items[0].preferredAirportWeight = 0.6
        response.items[0].queueScore = 93 * 1.2 * 1.6
        let boosted = DealsCommand.text(response).split(separator: "\n")
        #expect(boosted[2].contains("178.6") && boosted[2].contains("watched ×1.2, from JFK ×1.6"), "\(boosted[2])")
    }

    @Test("score with too little history says so in one sentence and gives no score")
    func scoreNotEnoughData() throws {
        let request = try ScoreCommand.parse(["LIS", "LON", "2027-01-10", "20.00EUR"]).makeRequest()
        var response = ScoreFareResponse()
        response.score.tier = .notEnoughData
        #expect(ScoreCommand.text(request, response) == "Not enough data yet for LIS→LON: no score is given")
    }

    @Test("score prints the score, tier and hot deal, each reason on its own line, then the components")
    func scoreText() throws {
        let request = try ScoreCommand.parse(["LIS", "LON", "2027-01-10", "20.00EUR"]).makeRequest()
        var response = ScoreFareResponse()
        response.score.score = 84
        response.score.tier = .exceptional
        response.score.hotDeal = true
        response.score.reasons = ["44% below the 90-day average", "Typical price: €34–40"]
        var discount = ScoreComponent()
        (discount.factor, discount.points, discount.maxPoints, discount.input) = (.discount, 48, 60, 0.44)
        var reliability = ScoreComponent()
        (reliability.factor, reliability.points, reliability.maxPoints, reliability.input) = (.carrierReliability, 5, 10, 0.5)
        response.score.components = [discount, reliability]
        let lines = ScoreCommand.text(request, response).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "LIS→LON 2027-01-10 at €20.00: score 84 · exceptional · HOT DEAL")
        #expect(lines[1] == "  - 44% below the 90-day average" && lines[2] == "  - Typical price: €34–40")
        #expect(lines[4].hasPrefix("FACTOR") && lines[4].contains("POINTS") && lines[4].contains("MAX") && lines[4].hasSuffix("INPUT"))
        #expect(lines[5].hasPrefix("discount") && lines[5].hasSuffix("44.0% below"))
        #expect(lines[6].hasPrefix("carrier-reliability") && lines[6].hasSuffix("50.0% on time"))
    }

    func history(days: [String], prices: [Int64], enough: Bool) -> PriceHistoryResponse {
        var response = PriceHistoryResponse()
        response.enoughData = enough
        response.daysOfHistory = Int32(days.count)
        response.series30Days = zip(days, prices).map { day, price in
            var point = PricePoint()
            (point.date, point.minPrice, point.observations) = (date(day), money(price), 12)
            return point
        }
        if enough {
            (response.average90Days, response.typicalLow, response.typicalHigh) = (money(82_000), money(76_000), money(88_000))
            (response.lowSixMonths, response.lowSixMonthsDate) = (money(69_900), date("2026-03-14"))
        }
        return response
    }

    @Test("history prints the header, the chart and the 90-day figures in one line")
    func historyText() throws {
        let request = try HistoryCommand.parse(["jfk", "nrt", "--month", "2027-01"]).makeRequest()
        let days = (1 ... 9).map { String(format: "2026-05-%02d", $0) }
        let text = HistoryCommand.text(request, history(days: days, prices: [81_000, 80_500, 83_000, 79_900, 78_000, 84_100, 82_000, 77_500, 75_000], enough: true),
                                       today: CalendarDate(iso: "2026-05-09")!, unicode: true)
        let lines = text.split(separator: "\n")
        #expect(lines.first == "JFK→NRT · economy · departing 2027-01 · 9 days of history")
        #expect(lines.last == "90-day average €820.00 · typical €760.00–€880.00 · lowest in 6 months €699.00 (2026-03-14)")
        #expect(text.contains("█") && text.contains("╱ deal zone"))
    }

    @Test("with too little history, history charts what there is and says how many of 7 days it has")
    func historyNotEnough() throws {
        let request = try HistoryCommand.parse(["JFK", "NRT", "--month", "2027-01"]).makeRequest()
        let text = HistoryCommand.text(request, history(days: ["2026-05-01", "2026-05-03", "2026-05-04"], prices: [81_000, 80_500, 83_000], enough: false),
                                       today: CalendarDate(iso: "2026-05-09")!, unicode: false)
        let lines = text.split(separator: "\n")
        #expect(lines.last == "Not enough data yet: 3 of 7 days")
        #expect(text.contains("* daily low") && !text.contains("o today"))  // the last day is not today
        let empty = HistoryCommand.text(request, history(days: [], prices: [], enough: false), today: CalendarDate(iso: "2026-05-09")!, unicode: true)
        #expect(empty == "JFK→NRT · economy · departing 2027-01 · 0 days of history\nno history for this route yet\nNot enough data yet: 0 of 7 days")
    }

    @Test("today's price is the last point only when it was observed today (UTC)")
    func today() {
        let response = history(days: ["2026-05-01", "2026-05-09"], prices: [81_000, 79_000], enough: true)
        #expect(HistoryCommand.chart(response, today: CalendarDate(iso: "2026-05-09")!).0.today?.price == 79_000)
        #expect(HistoryCommand.chart(response, today: CalendarDate(iso: "2026-05-10")!).0.today == nil)
        #expect(HistoryCommand.chart(response, today: CalendarDate(iso: "2026-05-09")!).0.dealZoneBelow == 76_000)
    }
}

@Suite("Scoring command JSON")
struct ScoringJSONTests {
    /// `value` as `CtlRun.printJSON` writes it.
    func json(_ value: some Encodable) throws -> [String: Any] {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return try #require(try JSONSerialization.jsonObject(with: encoder.encode(value)) as? [String: Any])
    }

    @Test("--json leaves slashes alone: a time zone is Europe/London, not Europe\\/London (issue #63)")
    func slashesAreNotEscaped() throws {
        struct Zone: Encodable { let timeZone: String }
        let text = try CtlRun.prettyJSON(Zone(timeZone: "Europe/London"))
        #expect(text.contains(#""time_zone" : "Europe/London""#), "\(text)")
    }

    @Test("history --json spells keys as the proto does and writes absent figures as null")
    func historyKeys() throws {
        var request = PriceHistoryRequest()
        (request.origin, request.destination, request.departureYear, request.departureMonth) = ("JFK", "NRT", 2027, 1)
        var response = PriceHistoryResponse()
        response.average90Days = Money(minorUnits: 84_600, currency: "EUR")
        let object = try json(HistoryJSON(request, response))
        #expect(Set(object.keys).isSuperset(of: ["average_30_days", "average_90_days", "series_30_days", "low_six_months_date", "enough_data"]))
        #expect(object["average_30_days"] is NSNull)
        #expect((object["average_90_days"] as? [String: Any])?["minor_units"] as? Int == 84_600)
    }

    @Test("score --json has every component and the proto's average_90_days key")
    func scoreKeys() throws {
        var score = DealScore()
        var component = ScoreComponent()
        (component.factor, component.points, component.maxPoints, component.input, component.reason) = (.timeToDeparture, 7, 10, 45, "45 days to departure")
        score.components = [component]
        let object = try json(ScoringOutput.ScoreJSON(score))
        #expect(object["average_90_days"] is NSNull && object["hot_deal"] as? Bool == false)
        let components = try #require(object["components"] as? [[String: Any]])
        #expect(components.first?["factor"] as? String == "time-to-departure" && components.first?["max_points"] as? Int == 10)
    }
}

@Suite("Admin sessions")
struct AdminSessionTests {
    @Test("every admin session of one process has its own node name, so a second is not refused as a duplicate of the first")
    func distinctNames() {
        let names = (0 ..< 5).map { _ in AdminSession.nextNodeName() }
        #expect(Set(names).count == 5)
        #expect(names.allSatisfy { $0.hasPrefix("farelensctl-\(ProcessInfo.processInfo.processIdentifier)-") })
    }
}
