import FareLensBus
import FareLensMessages
import FareLensServiceKit
import Foundation
import Logging
import Synchronization

/// The running search service: its request handlers, the event drain and
/// the market sweep.
///
/// The mutable state lives in two actors, ``SearchEngine`` (answers, offer
/// index, flights in progress, provider outcomes) and ``AirportAnswers``
/// (autocomplete cache); this value only wires them to the bus. Handlers
/// reach them with an actor hop in the caller's task (inline), except the
/// flight search: it calls providers over HTTP, so it is `isolated` and its
/// caller is released at the deadline whatever a provider does (docs/bus.md).
struct SearchBehaviour: ServiceBehaviour {
    let directory: AirportDirectory
    let airports: AirportAnswers
    let engine: SearchEngine
    let booking: BookingOptionsBuilder
    let sweep: MarketSweep?
    /// The sweep's targets and the events they are kept from (nil in tests of the rest).
    var targets: (KeptSweepTargets, KeptSweepTargets.Subscriptions)? = nil
    let settings: SearchSettings
    let logger: Logger
    /// The currency a search from a looked-up place is answered in when it names none.
    var pricingCurrency: @Sendable (AirportLookupResponse) -> String = { _ in "" }
    /// Paces the sweep: its interval is market time, so a fast-forwarded clock sweeps more often.
    var clock: any WallClock = SystemWallClock()
    /// The exchange rates (nil in tests of the rest).
    var rates: ExchangeRateKeeper? = nil
    /// Asks for the announcements the sweep's targets want, if any
    /// (``WantedAnnouncements``: a new database; nil in tests of the rest).
    var askForWantedAnnouncements: (@Sendable () async -> Void)? = nil

    func register(on bus: MessageBus) throws {
        try bus.serve(AirportLookupRequest.self) { request, _ in
            var response = try directory.lookup(request)
            response.pricingCurrency = pricingCurrency(response)
            return response
        }
        try bus.serve(AirportAutocompleteRequest.self) { request, _ in try await airports.autocomplete(request) }
        try bus.serve(AirportDistanceRequest.self) { request, _ in try directory.distance(request) }
        try bus.serve(SearchFlightsRequest.self, execution: .isolated) { request, context in
            try await engine.search(request, context: context)
        }
        try bus.serve(ProviderQuotaRequest.self) { request, _ in try await engine.quotaStatus(request) }
        try bus.serve(BookingOptionsRequest.self) { request, _ in
            guard let (offer, recheck) = await engine.offerAndRecheck(request.offerID) else { throw SearchError.unknownOffer(request.offerID) }
            var response = BookingOptionsResponse()
            response.options = try booking.options(for: offer.quotes, request: request)
            if let recheck { response.recheck = recheck }
            return response
        }
        if let rates {
            try bus.serve(ExchangeRatesRequest.self) { _, _ in await rates.status() }
            try bus.serve(ConvertMoneyRequest.self) { request, _ in try await rates.convert(request) }
        }
    }

    /// Publishes the engine's events, keeps the sweep's targets from the
    /// watchlist and subscription services' events and sweeps the market on
    /// its schedule, until cancelled (then the queued events are published
    /// and it returns).
    func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await engine.run() }
            if let rates { group.addTask { await rates.run() } }
            if let (kept, subscriptions) = targets {
                group.addTask { await kept.follow(subscriptions) }
            }
            if let askForWantedAnnouncements { group.addTask { await askForWantedAnnouncements() } }
            if let sweep, settings.sweepInterval > .zero {
                group.addTask { try await sweepForever(sweep) }
            }
        }
    }

    /// One sweep per `sweepInterval` of clock time: a fast-forwarded clock
    /// sweeps more often, and a clock that has stopped does not sweep again.
    /// The clock is told when the next sweep is due (``WallClock/plan(_:next:)``),
    /// so a long step of a stepped clock stops there.
    private func sweepForever(_ sweep: MarketSweep) async throws {
        let start = clock.now()
        let interval = Double(settings.sweepInterval.components.seconds)
        // Before the first sweep: due once the clock has moved past the start (overdue then), and a stepped
        // clock's first long step stops one interval in at the latest.
        let due = SweepDue()
        let clock = self.clock
        clock.plan("search.sweep") { due.next ?? (clock.now() > start ? start : start.addingTimeInterval(interval)) }
        defer { clock.unplan("search.sweep") }
        try await Task.sleep(for: settings.sweepInitialDelay)  // safe: the sweep schedule; cancelled on shutdown
        // And not before the clock has moved: a stepped demo clock sweeps first at its first step, once the
        // demo's travellers exist (their watched routes are swept from the first sweep on, in every run alike).
        while clock.now() <= start {
            try await clock.sleep(until: start.addingTimeInterval(0.001), floor: .milliseconds(50))  // safe: waits for any move of the clock; cancelled on shutdown
        }
        while !Task.isCancelled {
            let started = clock.now()
            _ = await sweep.sweepOnce(now: started)
            let next = started.addingTimeInterval(interval)
            due.next = next
            while clock.now() < next {
                try await clock.sleep(until: next, floor: .milliseconds(50))  // safe: the sweep schedule, in the clock's time; cancelled on shutdown
            }
        }
    }
}

/// When the next market sweep is due, for the clock's plan (read from the node's admin handler).
final class SweepDue: Sendable {
    private let instant = Mutex<Date?>(nil)

    var next: Date? {
        get { instant.withLock { $0 } }
        set { instant.withLock { $0 = newValue } }
    }
}
