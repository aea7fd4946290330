public import FareLensServiceKit
import FareLensMessages
import FareLensStore
import Foundation
import Logging

/// The search service: airports, flight search, fare providers, cache,
/// quota, market sweep and booking options (SPEC §1; docs/search.md).
public enum SearchServiceEntry {
    /// How the node builds this service.
    public static let descriptor = ServiceDescriptor(name: "search", address: "search", migrations: migrations) { context in
        try makeBehaviour(context)
    }

    static var migrations: ServiceMigrations {
        var migrations = ServiceMigrations()
        migrations.register("search-001-provider-quota", QuotaLedger.migrate)
        migrations.register("search-002-sweep-targets", SweepTargetTables.migrate)
        migrations.register("search-003-exchange-rates", ExchangeRateFileRecord.migrate)
        // The routes and airports the sweep keeps from events: a new database (this node may join after they were
        // made) asks watchlist and subscription to announce them (WantedAnnouncements).
        migrations.registerWantedAnnouncements(
            named: "search-004-want-announcements", announcements: [AnnouncementWanted.userPreferences, AnnouncementWanted.watchlists])
        migrations.register("search-005-deleted-watchlists", SweptDeletedWatchlistRecord.migrate)
        migrations.register("search-006-watchlist-change-order", SweptWatchlistRecord.addChangeStampColumns)
        return migrations
    }

    static func makeBehaviour(_ context: ServiceContext) throws -> any ServiceBehaviour {
        let settings = try SearchSettings(reader: context.configuration)
        let directory = try AirportDirectory.bundled()
        let clock = context.clock
        let now: @Sendable () -> Date = { clock.now() }
        // Parsed once, shared by the market and the sweep (start-up time).
        let fares = try RouteFareTable.bundled()
        let simulated = settings.providers.contains("simulated")
            ? try SimulatedMarket(directory: directory, fares: fares, seed: settings.seed, clock: now) : nil
        // A token's lifetime is the provider's real time, not the business clock the demo fast-forwards (#58).
        let live = try LiveProviders.make(settings.providers, reader: context.configuration, directory: directory, transport: .system)
        let quota = QuotaLedger(limit: settings.quotaPerMonth, database: context.database)
        let engine = SearchEngine(
            directory: directory, simulated: simulated, live: live, cache: SearchCache(limits: settings.cacheLimits),
            quota: quota, bus: context.bus, logger: context.logger, now: now
        )
        // The service's figures from its start (docs/operations.md, "Metrics").
        SearchMetrics.makeAll()
        quota.recordUsage(of: (simulated.map { [$0.name] } ?? []) + live.map(\.name), at: now())
        let targets = KeptSweepTargets(
            database: context.database, watchedLimit: settings.sweepWatchedRoutes, airportLimit: settings.sweepPreferredAirports, logger: context.logger
        )
        let sweep = MarketSweep(
            engine: engine, table: fares, directory: directory,
            count: settings.sweepRoutes, daysAhead: settings.sweepDaysAhead, targets: targets,
            departuresPerAirport: settings.sweepDeparturesPerAirport, logger: context.logger
        )
        let rates = try ExchangeRateKeeper(
            url: settings.exchangeRatesURL, interval: settings.exchangeRatesInterval, database: context.database, transport: .system, logger: context.logger)
        if settings.exchangeRatesURL == nil {
            context.logger.notice("exchange rates: the shipped ECB snapshot only (search.exchangeRates.url is not set; docs/search.md)")
        }
        context.logger.info("search ready", metadata: [
            "providers": "\(settings.providers.joined(separator: ","))", "airports": "\(directory.airports.count)",
            "simulated": "\(simulated != nil)",
        ])
        return SearchBehaviour(
            directory: directory,
            airports: AirportAnswers(directory: directory, maxEntries: settings.cacheLimits.airportEntries, maxBytes: settings.cacheLimits.airportBytes, now: now),
            engine: engine, booking: BookingOptionsBuilder(affiliates: settings.affiliates), sweep: sweep,
            targets: (targets, KeptSweepTargets.Subscriptions(on: context.bus)), settings: settings,
            logger: context.logger,
            pricingCurrency: { place in
                // The simulated market prices where a trip is sold; live providers are asked in FareQuery's default.
                guard let simulated else { return FareQuery.defaultCurrency }
                let country = place.hasAirport ? place.airport.country : place.metro.country
                return simulated.currencies.currency(ofCountry: country).code
            },
            clock: clock, rates: rates,
            askForWantedAnnouncements: { [context] in
                await WantedAnnouncements.ask(consumer: "search", database: context.database, bus: context.bus, joined: context.joined, logger: context.logger)
            }
        )
    }
}
