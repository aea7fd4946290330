import FareLensBus
import FareLensMessages

/// Places from search's airport directory: city names for the wording, and
/// metros for routes — LON→EDI and LHR→EDI are one route for mutes and the
/// 12-hour dedupe, and a user who prefers LON hears of a deal from LCY.
/// Decisions wait while the directory cannot answer, as they wait for
/// subscription (docs/alerts.md, "When search's directory is away"):
/// decided without metros, an alert on a route muted by its metro was sent.
extension AlertsService {
    /// Learns the city and metro of each of `codes` not known yet, one
    /// ``AirportLookupRequest`` per code, remembered for the service's life.
    /// While search cannot answer, waits and asks again every second
    /// (``retryingEverySecond(_:level:metadata:isFinal:_:)``). A code the
    /// directory does not know, or refuses as no airport code, is its own
    /// city in no metro.
    ///
    /// - Returns: false when cancelled meanwhile (nothing is decided).
    func learnPlaces(_ codes: Set<String>) async -> Bool {
        // Only the codes not known yet are sorted (for an orderly log): nearly every batch has none.
        for code in codes.filter({ !$0.isEmpty && cities[$0] == nil }).sorted() {
            var request = AirportLookupRequest()
            request.code = code
            let asked = await retryingEverySecond("airport directory unanswered; alert decisions wait", level: .warning, metadata: ["code": "\(code)"], isFinal: Self.isRefusal) {
                () async throws(BusError) in try await bus.request(request, timeout: .seconds(2))
            }
            switch asked {
            case nil:
                return false
            case .success(let answer)?:
                let city = answer.hasAirport ? answer.airport.city : (answer.hasMetro ? answer.metro.city : "")
                cities[code] = city.isEmpty ? code : city
                metros[code] = answer.hasAirport ? answer.airport.metroCode : ""
            case .failure(let refusal)?:
                logger.warning("airport directory refused a code; it names itself in alerts and is in no metro", metadata: ["code": "\(code)", "error": "\(refusal)"])
                cities[code] = code
                metros[code] = ""
            }
        }
        return true
    }

    /// Learns the city and metro of an event's route ends from the event
    /// itself, so that deciding it asks search nothing: an exceptional deal
    /// carries them (search's `FareObserved`, passed on by scoring), and so
    /// do a watchlist's price changes and crossings (the directory's answer
    /// when the route was set). An event from before they were carried, or
    /// about a route set before, names no city: its ends are left for
    /// ``learnPlaces(_:)`` to ask.
    func learnPlaces(carriedBy event: any BusEvent) {
        switch event {
        case let deal as ExceptionalDeal:
            learnPlace(deal.deal.origin, city: deal.deal.originCity, metro: deal.deal.originMetro)
            learnPlace(deal.deal.destination, city: deal.deal.destinationCity, metro: deal.deal.destinationMetro)
        case let crossing as ThresholdCrossed:
            learnPlace(crossing.origin, city: crossing.originCity, metro: crossing.originMetro)
            learnPlace(crossing.destination, city: crossing.destinationCity, metro: crossing.destinationMetro)
        case let change as PriceChanged:
            learnPlace(change.origin, city: change.originCity, metro: change.originMetro)
            learnPlace(change.destination, city: change.destinationCity, metro: change.destinationMetro)
        default:
            break
        }
    }

    /// Keeps `code`'s city and metro as an event named them; nothing when it names no city.
    private func learnPlace(_ code: String, city: String, metro: String) {
        guard !code.isEmpty, !city.isEmpty else { return }
        cities[code] = city
        metros[code] = metro
    }

    /// The metro of `code` (LCY → LON) once ``learnPlaces(_:)`` has learnt it; nil when none.
    func metro(of code: String) -> String? {
        guard let metro = metros[code], !metro.isEmpty, metro != code else { return nil }
        return metro
    }
}
