import FareLensMessages
import FareLensTesting
import Foundation
@testable import SearchService

/// Checks a simulated offer against the carrier rules of docs/search.md
/// § How the simulated market chooses carriers and prices cabins, written
/// out again here from the airline table and the directory (not through
/// `CarrierNetwork`), and says what breaks them.
struct MarketRuleCheck {
    let directory: AirportDirectory
    let airlines: AirlineTable

    init() throws {
        directory = try AirportDirectory.bundled()
        airlines = try AirlineTable.bundled()
    }

    /// The market under test, seeded, on a fixed "today" (2026-11-22).
    func market(seed: UInt64 = 7) throws -> SimulatedMarket {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_795_348_800))
        return try SimulatedMarket(directory: directory, seed: seed, clock: { clock.now() })
    }

    /// 2026-11-22 plus `days`.
    func date(_ days: Int) -> CalendarDate {
        CalendarDate.of(Date(timeIntervalSince1970: 1_795_348_800), in: .gmt).adding(days: days)
    }

    /// Every rule `offer` breaks (empty when it keeps them all).
    func violations(_ offer: FlightOffer) -> [String] {
        guard let airline = airlines.airline(offer.carrier) else { return ["\(offer.carrier) is not in the airline table"] }
        var found: [String] = []
        if airline.kind == .lowCost && offer.cabin != .economy { found.append("low-cost \(airline.code) sells \(offer.cabin)") }
        if !airline.cabins.contains(offer.cabin) && offer.cabin != .unspecified { found.append("\(airline.code) does not sell \(offer.cabin)") }
        for journey in [offer.outbound] + (offer.hasInbound ? [offer.inbound] : []) {
            found += violations(journey, airline, cabin: offer.cabin)
        }
        return found
    }

    func violations(_ journey: FlightJourney, _ airline: AirlineRecord, cabin: Cabin) -> [String] {
        let segments = journey.segments
        guard let first = segments.first, let last = segments.last,
              let origin = directory.airport(first.fromAirport), let destination = directory.airport(last.toAirport)
        else { return ["a journey without known airports"] }
        let route = "\(origin.code)-\(destination.code) by \(airline.code)"
        var found: [String] = []
        if segments.contains(where: { $0.carrier != airline.code }) { found.append("\(route): a segment of another carrier") }
        let direct = origin.kilometers(to: destination)
        if (cabin == .premiumEconomy || cabin == .first) && direct < 4_000 { found.append("\(route): \(cabin) on a \(Int(direct)) km route") }
        let home = airline.countries.contains(origin.country) || airline.countries.contains(destination.country)
        if origin.country == destination.country && !airline.countries.contains(origin.country) {
            found.append("\(route): domestic \(origin.country) route by a \(airline.countries) carrier")
        }
        switch segments.count {
        case 1:
            if !home { found.append("\(route): nonstop by a carrier of neither country (\(airline.countries))") }
            if direct >= 4_000 && airline.kind != .network { found.append("\(route): \(airline.kind) carrier on a \(Int(direct)) km nonstop") }
        case 2:
            let hub = first.toAirport
            if !airline.hubs.contains(hub) { found.append("\(route): connects at \(hub), not a hub of the carrier (\(airline.hubs))") }
            if hub == origin.code || hub == destination.code { found.append("\(route): connects at an end") }
            if airline.kind == .lowCost { found.append("\(route): low-cost carrier sells a connection") }
            if let via = directory.airport(hub) {
                let flown = origin.kilometers(to: via) + via.kilometers(to: destination)
                if flown > 1.4 * direct { found.append("\(route) via \(hub): \(Int(flown)) km flown for \(Int(direct)) km direct") }
            }
        default:
            found.append("\(route): \(segments.count - 1) stops")
        }
        return found
    }
}
