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

    /// Learns the city and metro of a deal's ends from the deal itself
    /// (search's directory, passed on by scoring in `Deal`), so that deciding
    /// it asks search nothing. A deal from before they were carried names no
    /// city: its ends are left for ``learnPlaces(_:)`` to ask.
    func learnPlaces(of deal: Deal) {
        if !deal.originCity.isEmpty {
            cities[deal.origin] = deal.originCity
            metros[deal.origin] = deal.originMetro
        }
        if !deal.destinationCity.isEmpty {
            cities[deal.destination] = deal.destinationCity
            metros[deal.destination] = deal.destinationMetro
        }
    }

    /// The metro of `code` (LCY → LON) once ``learnPlaces(_:)`` has learnt it; nil when none.
    func metro(of code: String) -> String? {
        guard let metro = metros[code], !metro.isEmpty, metro != code else { return nil }
        return metro
    }
}
