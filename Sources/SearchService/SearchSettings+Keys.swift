public import FareLensServiceKit

extension SearchSettings {
    /// The keys ``init(reader:)`` and the live providers read (`search.*`),
    /// for ``ConfigKeyCatalog`` (`farelens config keys`; docs/operations.md).
    public static let configKeys: [ConfigKeySpec] = {
        let defaults = SearchSettings()
        let limits = defaults.cacheLimits
        let timeout = "\(LiveProviderSettings.defaultTimeout.components.seconds * 1000)"
        return [
            ConfigKeySpec("search.providers", .list, default: defaults.providers.joined(separator: ","), "simulated, amadeus, travelpayouts; the live ones in fallback order"),
            ConfigKeySpec("search.seed", .integer, default: "\(defaults.seed)", "the simulated market's seed"),
            ConfigKeySpec("search.quotaPerMonth", .integer, default: "\(defaults.quotaPerMonth)", "calls per live provider per UTC month"),
            ConfigKeySpec("search.affiliates", .list, default: "travelpayouts,simulated-agency-a,simulated-agency-b", "sellers that pay a commission"),
            ConfigKeySpec("search.exchangeRates.url", .string, "the ECB's daily reference rates (\(SearchSettings.ecbDailyURL)) or a mirror; absent: the shipped 2024-01-04 snapshot only, reported stale"),
            ConfigKeySpec("search.exchangeRates.intervalSeconds", .integer, default: "86400", "how often the rates are fetched, in real seconds; 0: once at start"),
            ConfigKeySpec("search.sweep.intervalSeconds", .integer, default: "\(defaults.sweepInterval.components.seconds)", "market sweep period; 0 turns the sweep off"),
            ConfigKeySpec("search.sweep.initialDelaySeconds", .integer, default: "\(defaults.sweepInitialDelay.components.seconds)", "wait before the first sweep"),
            ConfigKeySpec("search.sweep.routes", .integer, default: "\(defaults.sweepRoutes)", "most-observed routes searched per sweep"),
            ConfigKeySpec("search.sweep.daysAhead", .list, default: defaults.sweepDaysAhead.map(String.init).joined(separator: ","), "departure dates searched, days from today"),
            ConfigKeySpec("search.sweep.watchedRoutes", .integer, default: "\(defaults.sweepWatchedRoutes)", "most routes on watchlists added to each sweep"),
            ConfigKeySpec("search.sweep.preferredAirports", .integer, default: "\(defaults.sweepPreferredAirports)", "most preferred airports whose departures each sweep adds"),
            ConfigKeySpec("search.sweep.departuresPerAirport", .integer, default: "\(defaults.sweepDeparturesPerAirport)", "most-observed departures swept from each preferred airport"),
            ConfigKeySpec("search.amadeus.baseUrl", .string, "Amadeus's base URL, e.g. https://test.api.amadeus.com"),
            ConfigKeySpec("search.amadeus.clientId", .string, "Amadeus OAuth2 client id"),
            ConfigKeySpec("search.amadeus.clientSecret", .secret, "Amadeus OAuth2 client secret"),
            ConfigKeySpec("search.amadeus.timeoutMs", .integer, default: timeout, "whole-exchange timeout per Amadeus call"),
            ConfigKeySpec("search.travelpayouts.baseUrl", .string, "Travelpayouts's base URL, e.g. https://api.travelpayouts.com"),
            ConfigKeySpec("search.travelpayouts.token", .secret, "Travelpayouts API token"),
            ConfigKeySpec("search.travelpayouts.marker", .string, "Travelpayouts affiliate marker for booking links"),
            ConfigKeySpec("search.travelpayouts.timeoutMs", .integer, default: timeout, "whole-exchange timeout per Travelpayouts call"),
            ConfigKeySpec("search.cache.answers.maxEntries", .integer, default: "\(limits.answerEntries)", "search answers kept"),
            ConfigKeySpec("search.cache.answers.maxMebibytes", .integer, default: "\(limits.answerBytes >> 20)", "estimated MiB of those answers"),
            ConfigKeySpec("search.cache.offers.maxEntries", .integer, default: "\(limits.offerEntries)", "served offers kept for booking options"),
            ConfigKeySpec("search.cache.offers.maxMebibytes", .integer, default: "\(limits.offerBytes >> 20)", "estimated MiB of those offers"),
            ConfigKeySpec("search.cache.airports.maxEntries", .integer, default: "\(limits.airportEntries)", "autocomplete answers kept"),
            ConfigKeySpec("search.cache.airports.maxMebibytes", .integer, default: "\(limits.airportBytes >> 20)", "estimated MiB of those answers"),
        ]
    }()
}
