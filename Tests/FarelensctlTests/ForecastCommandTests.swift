import FareLensMessages
import Foundation
import Testing
@testable import farelensctl

@Suite("farelensctl forecast")
struct ForecastCommandTests {
    func response(outlook: FareOutlook, model: FareOutlook, confidence: ForecastConfidence, withheld: Bool, enough: Bool = true) -> FareForecastResponse {
        var response = FareForecastResponse()
        response.enoughData = enough
        response.outlook = outlook
        response.modelOutlook = model
        response.confidence = confidence
        response.withheld = withheld
        response.reasons = ["Fares usually rise.", "Our forecasts were right 3 of 5 times."]
        response.madeOn = CalendarDate(iso: "2026-11-29")!.message
        response.measuredThrough = CalendarDate(iso: "2026-11-30")!.message
        response.horizonDays = 7
        response.windowDays = 180
        response.simulated = true
        response.accuracyHigh.forecasts = 5
        response.accuracyHigh.hits = 3
        response.accuracyHigh.baselineHits = 1
        return response
    }

    @Test("the request: codes upper-cased, the month and cabin read; a bad month or code is refused before any connection")
    func request() throws {
        let request = try ForecastCommand.parse(["lis", "lon", "--month", "2027-01", "--cabin", "business"]).makeRequest()
        #expect(request.origin == "LIS" && request.destination == "LON" && request.departureYear == 2027 && request.departureMonth == 1 && request.cabin == .business)
        for arguments in [["LIS", "LON"], ["LIS", "LON", "--month", "2027-13"], ["LISB", "LON", "--month", "2027-01"], ["LIS", "LON", "--month", "2027-01", "--cabin", "steerage"]] {
            #expect(throws: (any Error).self, "\(arguments)") { try ForecastCommand.parse(arguments) }
        }
    }

    @Test("the text: the outlook with its confidence, withheld says what the model said, each reason, each band's figures, simulated said")
    func text() throws {
        let request = try ForecastCommand.parse(["LIS", "LON", "--month", "2027-01"]).makeRequest()
        let shown = ForecastCommand.text(request, response(outlook: .likelyToRise, model: .likelyToRise, confidence: .high, withheld: false))
        #expect(shown.contains("LIS→LON economy, departing 2027-01 (simulated fares)"))
        #expect(shown.contains("Likely to rise (high confidence) · next 7 days from 2026-11-29"))
        #expect(shown.contains("  - Fares usually rise.") && shown.contains("high: 3 of 5 right, always-rise 1") && shown.contains("medium: none scored"))
        let withheld = ForecastCommand.text(request, response(outlook: .noClearSignal, model: .likelyToFall, confidence: .unspecified, withheld: true))
        #expect(withheld.contains("No clear signal: the model said likely to fall, withheld"))
        let none = ForecastCommand.text(request, response(outlook: .noClearSignal, model: .noClearSignal, confidence: .unspecified, withheld: false, enough: false))
        #expect(none.contains("No forecast today"))
    }
}
