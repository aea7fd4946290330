import ArgumentParser
import FareLensMessages
import Foundation

/// `farelensctl history ORIGIN DESTINATION --month YYYY-MM`: a route's price history as a chart (the scoring service).
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Chart a route's last 30 days of daily lowest prices for one departure month, with its 90-day figures.",
        discussion: """
            Example: farelensctl history JFK NRT --month 2027-01 --cabin economy

            The chart uses Unicode box and block characters when the locale (LC_ALL, LC_CTYPE or LANG) is UTF-8, plain ASCII otherwise or with --ascii.
            """
    )

    @OptionGroup var route: RouteMonthArguments
    @Flag(name: .long, help: "Draw the chart in plain ASCII.") var ascii = false
    @OptionGroup var options: ConnectionOptions

    func validate() throws { _ = try makeRequest() }

    func run() async throws {
        let request = try makeRequest()
        let response = try await CtlRun.request(options, request)
        if options.json {
            try CtlRun.printJSON(HistoryJSON(request, response))
        } else {
            let unicode = !ascii && ScoringArguments.utf8Locale(ProcessInfo.processInfo.environment)
            print(Self.text(request, response, today: CalendarDate.of(Date(), in: TimeZone(secondsFromGMT: 0) ?? .current), unicode: unicode))
        }
    }

    func makeRequest() throws -> PriceHistoryRequest {
        var request = PriceHistoryRequest()
        (request.origin, request.destination, request.cabin, request.departureYear, request.departureMonth) = try route.parsed()
        return request
    }

    /// The header, the chart and the figures (or how many days are still missing).
    static func text(_ request: PriceHistoryRequest, _ response: PriceHistoryResponse, today: CalendarDate, unicode: Bool, width: Int = 80) -> String {
        let month = String(format: "%04d-%02d", request.departureYear, request.departureMonth)
        let days = response.daysOfHistory == 1 ? "1 day" : "\(response.daysOfHistory) days"
        var lines = ["\(ScoringOutput.route(request.origin, request.destination)) · \(WatchlistOutput.cabinName(request.cabin)) · departing \(month) · \(days) of history"]
        let (chart, otherCurrencies) = Self.chart(response, today: today)
        if otherCurrencies > 0 { lines.append("(\(otherCurrencies) days priced in another currency are left out of the chart)") }
        lines.append(chart.render(width: width, unicode: unicode))
        guard response.enoughData else {
            lines.append("Not enough data yet: \(response.daysOfHistory) of 7 days")
            return lines.joined(separator: "\n")
        }
        var figures: [String] = []
        if response.hasAverage90Days { figures.append("90-day average \(response.average90Days.formatted)") }
        if response.hasTypicalLow, response.hasTypicalHigh { figures.append("typical \(response.typicalLow.formatted)–\(response.typicalHigh.formatted)") }
        if response.hasLowSixMonths {
            let day = response.hasLowSixMonthsDate ? " (\(WatchlistOutput.dateText(response.lowSixMonthsDate)))" : ""
            figures.append("lowest in 6 months \(response.lowSixMonths.formatted)\(day)")
        }
        if !figures.isEmpty { lines.append(figures.joined(separator: " · ")) }
        return lines.joined(separator: "\n")
    }

    /// The chart of a response: the deal zone is at and below the typical low; today's
    /// price is the last point when it was observed `today` (UTC). Days priced in
    /// a currency other than the first day's are left out (and counted).
    static func chart(_ response: PriceHistoryResponse, today: CalendarDate) -> (PriceChart, otherCurrencies: Int) {
        let priced = response.series30Days.compactMap { point -> (CalendarDate, Money)? in
            guard point.hasMinPrice, let day = CalendarDate(point.date) else { return nil }
            return (day, point.minPrice)
        }
        let currency = priced.first?.1.currency ?? (response.hasAverage90Days ? response.average90Days.currency : "")
        let series = priced.filter { $0.1.currency == currency }.map { PriceChart.Point(day: $0.0.daysSinceEpoch, price: $0.1.minorUnits) }
        func amount(_ money: Money, _ present: Bool) -> Int64? { present && money.currency == currency ? money.minorUnits : nil }
        let typicalLow = amount(response.typicalLow, response.hasTypicalLow)
        let chart = PriceChart(
            series: series,
            average90: amount(response.average90Days, response.hasAverage90Days),
            typicalLow: typicalLow,
            typicalHigh: amount(response.typicalHigh, response.hasTypicalHigh),
            dealZoneBelow: typicalLow,
            today: series.last.flatMap { $0.day == today.daysSinceEpoch ? $0 : nil },
            currency: currency
        )
        return (chart, priced.count - series.count)
    }
}

/// `history --json`: the series and the figures; absent figures are null.
struct HistoryJSON: Encodable {
    struct Point: Encodable {
        let date: String
        let minPrice: ScoringOutput.OrNull<ScoringOutput.MoneyJSON>
        let observations: Int32
    }

    let origin: String
    let destination: String
    let cabin: String
    let month: String
    let enoughData: Bool
    let daysOfHistory: Int32
    let average30Days: ScoringOutput.OrNull<ScoringOutput.MoneyJSON>
    let average90Days: ScoringOutput.OrNull<ScoringOutput.MoneyJSON>
    let typicalLow: ScoringOutput.OrNull<ScoringOutput.MoneyJSON>
    let typicalHigh: ScoringOutput.OrNull<ScoringOutput.MoneyJSON>
    let lowSixMonths: ScoringOutput.OrNull<ScoringOutput.MoneyJSON>
    let lowSixMonthsDate: ScoringOutput.OrNull<String>
    let series30Days: [Point]
    let updatedAt: ScoringOutput.OrNull<String>

    /// The proto's spellings: the encoder's snake case would write "average30_days".
    enum CodingKeys: String, CodingKey {
        case origin, destination, cabin, month, enoughData, daysOfHistory, typicalLow, typicalHigh, lowSixMonths, lowSixMonthsDate, updatedAt
        case average30Days = "average_30_days", average90Days = "average_90_days", series30Days = "series_30_days"
    }

    init(_ request: PriceHistoryRequest, _ response: PriceHistoryResponse) {
        typealias MoneyJSON = ScoringOutput.MoneyJSON
        origin = request.origin
        destination = request.destination
        cabin = WatchlistOutput.cabinName(request.cabin)
        month = String(format: "%04d-%02d", request.departureYear, request.departureMonth)
        enoughData = response.enoughData
        daysOfHistory = response.daysOfHistory
        average30Days = MoneyJSON.of(response.average30Days, if: response.hasAverage30Days)
        average90Days = MoneyJSON.of(response.average90Days, if: response.hasAverage90Days)
        typicalLow = MoneyJSON.of(response.typicalLow, if: response.hasTypicalLow)
        typicalHigh = MoneyJSON.of(response.typicalHigh, if: response.hasTypicalHigh)
        lowSixMonths = MoneyJSON.of(response.lowSixMonths, if: response.hasLowSixMonths)
        lowSixMonthsDate = ScoringOutput.OrNull(response.hasLowSixMonthsDate ? WatchlistOutput.dateText(response.lowSixMonthsDate) : nil)
        series30Days = response.series30Days.map {
            Point(date: WatchlistOutput.dateText($0.date), minPrice: MoneyJSON.of($0.minPrice, if: $0.hasMinPrice), observations: $0.observations)
        }
        updatedAt = ScoringOutput.OrNull(ScoringOutput.instant(response.updatedAtUnixMs))
    }
}
