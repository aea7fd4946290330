import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import ScoringService

/// The scoring service's `FareForecastRequest` (docs/forecast.md): the
/// forecast from the route's latest day, judged by the backtest of its
/// own history, labelled simulated, and named errors for bad input.
@Suite("Buy or wait: the scoring service's answer")
struct ForecastRequestTests {
    func request(_ month: CalendarDate, origin: String = "LIS", destination: String = "LON") -> FareForecastRequest {
        var request = FareForecastRequest()
        request.origin = origin
        request.destination = destination
        request.departureYear = Int32(month.year)
        request.departureMonth = Int32(month.month)
        return request
    }

    @Test("over the bus: the forecast is the model's on the route's history through yesterday, published by the backtest of that history, and labelled simulated")
    func answersFromTheHistory() async throws {
        let fixture = try ScoringFixture()
        let departure = fixture.departure(in: 45)
        // 60 days ending yesterday: around 10,000 with dips, rises and spikes.
        let prices: [Int64] = (0 ..< 60).map { (day: Int) -> Int64 in
            let wobble = Int64((day * 37) % 23 - 11) * 150
            return 10_000 + wobble + (day % 9 == 4 ? -2_000 : 0)
        }
        await fixture.history(prices, departure: departure)
        // Over the bus, as the gateway and farelensctl ask (a wide deadline: the
        // main test phase runs every suite at once on two cores).
        let answer = try await fixture.bus.request(request(departure), timeout: .seconds(60))

        // The same, computed here from the same days.
        let month = departure.year * 100 + departure.month
        let series = prices.enumerated().map { DailyMinimum(day: fixture.today - prices.count + $0.offset, minimum: $0.element, observations: 1) }
        let model = try ForecastModel.bundled()
        var backtest = ForecastBacktest(model: model, firstDay: fixture.today - ScoringService.forecastWindowDays + 1, lastDay: fixture.today)
        backtest.add(series, route: RouteCabin(origin: "LIS", destination: "LON", cabin: Cabin.economy.rawValue), departureMonth: month, simulated: true)
        let forecast = try #require(model.forecast(series, at: series.count - 1, departureMonth: month))
        let published = PublishedForecast(forecast, route: RouteCabin(origin: "LIS", destination: "LON", cabin: Cabin.economy.rawValue), backtest: backtest)

        #expect(answer.enoughData && answer.simulated)
        #expect(answer.modelOutlook == forecast.outlook && answer.outlook == published.outlook && answer.withheld == published.withheld)
        #expect(answer.reasons == published.reasons && answer.expectedChange == forecast.expectedChange)
        #expect(answer.madeOn == CalendarDate(daysSinceEpoch: fixture.today - 1).message)
        #expect(answer.accuracy.forecasts == Int32(published.accuracy.forecasts) && answer.accuracy.hits == Int32(published.accuracy.hits))
        #expect(answer.accuracy.baselineHits == Int32(published.accuracy.baselineHits) && answer.accuracy.forecasts > 0)
        #expect(answer.accuracyIsRoutes == published.accuracyIsRoutes && answer.horizonDays == 7 && answer.windowDays == 180)
        #expect(answer.measuredThrough == CalendarDate(daysSinceEpoch: fixture.today).message)
    }

    @Test("no fare observed today or yesterday for the month: enough_data false, no clear signal, and the reason")
    func notEnoughRecentData() async throws {
        let fixture = try ScoringFixture()
        let departure = fixture.departure(in: 45)
        await fixture.history([10_000, 10_100, 9_900, 10_000, 10_200, 9_800, 10_000, 10_050], departure: departure)
        // Two days on, yesterday has no fare.
        fixture.clock.advance(by: 2 * 86_400)
        let answer = try await fixture.service.fareForecast(request(departure))
        #expect(!answer.enoughData && answer.outlook == .noClearSignal && answer.reasons.first?.contains("Not enough recent fares") == true)
        // A route with no history at all answers the same way; its accuracy
        // figures are all routes', measured on simulated fares: labelled so.
        let empty = try await fixture.service.fareForecast(request(departure, origin: "JFK", destination: "NRT"))
        #expect(!empty.enoughData && empty.simulated && !empty.accuracyIsRoutes)
    }

    @Test("bad input gets a named error: a month out of 1–12, a year out of range, a month already past, an unknown airport")
    func badInput() async throws {
        let fixture = try ScoringFixture()
        var month13 = request(fixture.departure(in: 45))
        month13.departureMonth = 13
        for (bad, code, field) in [
            (month13, "invalid-field", "departure_month"),
            (request(fixture.departure(in: -40)), "invalid-field", "departure_month"),
            (request(CalendarDate(year: 2101, month: 1, day: 1)!), "invalid-field", "departure_year"),
            (request(fixture.departure(in: 45), origin: "XXX"), "unknown-airport", "origin"),
        ] {
            do {
                _ = try await fixture.service.fareForecast(bad)
                Issue.record("\(bad) was answered")
            } catch {
                #expect(error.code == code && error.field == field, "\(bad): \(error)")
            }
        }
    }
}
