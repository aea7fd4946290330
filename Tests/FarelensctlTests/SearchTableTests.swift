import FareLensMessages
import Testing
@testable import farelensctl

/// `farelensctl search`'s table (issue #63: a round trip's return leg had no times).
@Suite("farelensctl search table")
struct SearchTableTests {
    static func offer(roundTrip: Bool) -> FlightOffer {
        var offer = FlightOffer()
        offer.offerID = "of-00000000000000a1"
        offer.carrier = "TP"
        offer.flightNumbers = roundTrip ? ["TP201", "TP202"] : ["TP201"]
        offer.price.currency = "EUR"
        offer.price.minorUnits = 45_000
        offer.provider = "simulated"
        offer.outbound.segments = [FlightSegment.with { $0.departureLocal = "2026-12-10T08:05"; $0.arrivalLocal = "2026-12-10T10:35" }]
        offer.outbound.durationMinutes = 150
        if roundTrip {
            offer.inbound.segments = [FlightSegment.with { $0.departureLocal = "2026-12-17T18:40"; $0.arrivalLocal = "2026-12-17T21:15" }]
            offer.inbound.durationMinutes = 155
            offer.inbound.stops = 1
        }
        return offer
    }

    @Test("a round trip's row has the return leg's departure, arrival, duration and stops; JSON has them too")
    func returnLeg() throws {
        let row = OfferRow(Self.offer(roundTrip: true))
        let text = SearchCommand.table([row]).rendered(unicode: true)
        let lines = text.split(separator: "\n")
        #expect(lines[0].contains("RETURN DEPART") && lines[0].contains("RETURN ARRIVE") && lines[0].contains("RETURN DURATION"))
        #expect(lines[1].contains("2026-12-17T18:40") && lines[1].contains("2026-12-17T21:15") && lines[1].contains("2h35"), "\(text)")
        #expect(row.returnDepartLocal == "2026-12-17T18:40" && row.returnArriveLocal == "2026-12-17T21:15" && row.returnStops == 1)
    }

    @Test("a one-way search's table has no return columns")
    func oneWay() {
        let text = SearchCommand.table([OfferRow(Self.offer(roundTrip: false))]).rendered(unicode: true)
        #expect(!text.contains("RETURN"))
        #expect(text.contains("2026-12-10T08:05") && text.contains("2h30"))
    }
}
