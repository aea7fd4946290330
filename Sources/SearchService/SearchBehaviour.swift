import FareLensBus
import FareLensMessages
import FareLensRuntime
import Foundation
import Logging

/// The running search service: its request handlers and the market sweep.
struct SearchBehaviour: ServiceBehaviour {
    let directory: AirportDirectory
    let airports: AirportAnswers
    let engine: SearchEngine
    let booking: BookingOptionsBuilder
    let sweep: MarketSweep?
    let settings: SearchSettings
    let clock: any WallClock
    let logger: Logger

    func register(on bus: MessageBus) throws {
        try bus.serve(AirportLookupRequest.self) { request, _ in try directory.lookup(request) }
        try bus.serve(AirportAutocompleteRequest.self) { request, _ in try airports.autocomplete(request) }
        try bus.serve(AirportDistanceRequest.self) { request, _ in try directory.distance(request) }
        try bus.serve(SearchFlightsRequest.self) { request, context in try await engine.search(request, context: context) }
        try bus.serve(ProviderQuotaRequest.self) { request, _ in try engine.quotaStatus(request) }
        try bus.serve(BookingOptionsRequest.self) { request, _ in
            guard let offer = engine.cache.offer(request.offerID, now: clock.now()) else { throw SearchError.unknownOffer(request.offerID) }
            var response = BookingOptionsResponse()
            response.options = try booking.options(for: offer.quotes, request: request)
            return response
        }
    }

    /// Sweeps the market on its schedule until cancelled.
    func run() async throws {
        guard let sweep, settings.sweepInterval > .zero else { return }
        try await Task.sleep(for: settings.sweepInitialDelay)  // safe: the sweep schedule; cancelled on shutdown
        while !Task.isCancelled {
            _ = await sweep.sweepOnce(now: clock.now())
            try await Task.sleep(for: settings.sweepInterval)  // safe: the sweep schedule; cancelled on shutdown
        }
    }
}
