public import Configuration
import Foundation

/// The search service's configuration (keys under `search.`; environment
/// `FARELENS_SEARCH_…`). docs/operations.md lists them.
public struct SearchSettings: Sendable {
    /// `search.providers`: comma-separated, in fallback order for the live
    /// ones: `simulated`, `amadeus`, `travelpayouts`. Default `simulated`.
    public var providers: [String] = ["simulated"]
    /// `search.seed`: the simulated market's seed.
    public var seed: UInt64 = 1
    /// `search.quotaPerMonth`: calls per live provider per UTC month.
    public var quotaPerMonth: Int64 = 2000
    /// `search.affiliates`: sellers that pay a commission.
    public var affiliates: Set<String> = ["travelpayouts", "simulated-agency-a", "simulated-agency-b"]
    /// `search.sweep.intervalSeconds`: 0 disables the sweep.
    public var sweepInterval: Duration = .seconds(3600)
    /// `search.sweep.initialDelaySeconds`: wait before the first sweep.
    public var sweepInitialDelay: Duration = .seconds(30)
    /// `search.sweep.routes`: how many of the most-observed routes each sweep searches.
    public var sweepRoutes = 30
    /// `search.sweep.daysAhead`: departure dates searched, days from today.
    public var sweepDaysAhead = [7, 21, 45]
    /// `search.sweep.watchedRoutes`: most routes on watchlists each sweep adds (0: none).
    public var sweepWatchedRoutes = 50
    /// `search.sweep.preferredAirports`: most preferred airports whose departures each sweep adds (0: none).
    public var sweepPreferredAirports = 20
    /// `search.sweep.departuresPerAirport`: most-observed departures swept from each preferred airport.
    public var sweepDeparturesPerAirport = 3
    /// `search.cache.{answers,offers,airports}.{maxEntries,maxMebibytes}`: the
    /// bounds of the LRU caches (defaults in ``SearchCacheLimits``).
    public var cacheLimits = SearchCacheLimits()
    /// `search.exchangeRates.url`: the ECB's daily reference-rate file (or a mirror); empty: the shipped snapshot only.
    public var exchangeRatesURL: String?
    /// `search.exchangeRates.intervalSeconds`: how often it is fetched (real time); 0: once at start.
    public var exchangeRatesInterval: Duration = .seconds(86_400)

    /// The ECB's file, as `docs/operations.md` suggests setting it.
    public static let ecbDailyURL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"

    public init() {}

    /// Reads the keys from a reader scoped to `search`.
    ///
    /// - Throws: ``SearchSettingsError`` naming the key at fault.
    public init(reader: ConfigReader) throws(SearchSettingsError) {
        if let text = reader.string(forKey: "providers") {
            providers = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            let known: Set<String> = ["simulated", "amadeus", "travelpayouts"]
            guard !providers.isEmpty, let unknown = Optional(providers.filter { !known.contains($0) }), unknown.isEmpty else {
                throw SearchSettingsError(key: "search.providers", message: "'\(text)': each must be simulated, amadeus or travelpayouts")
            }
        }
        seed = try Self.number(reader, "seed", Int(seed), allowZero: true).map(UInt64.init) ?? seed
        quotaPerMonth = Int64(try Self.number(reader, "quotaPerMonth", Int(quotaPerMonth)) ?? Int(quotaPerMonth))
        if let text = reader.string(forKey: "affiliates") {
            affiliates = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        sweepInterval = .seconds(try Self.number(reader, "sweep.intervalSeconds", 3600, allowZero: true) ?? 3600)
        sweepInitialDelay = .seconds(try Self.number(reader, "sweep.initialDelaySeconds", 30, allowZero: true) ?? 30)
        sweepRoutes = try Self.number(reader, "sweep.routes", sweepRoutes) ?? sweepRoutes
        sweepWatchedRoutes = try Self.number(reader, "sweep.watchedRoutes", sweepWatchedRoutes, allowZero: true) ?? sweepWatchedRoutes
        sweepPreferredAirports = try Self.number(reader, "sweep.preferredAirports", sweepPreferredAirports, allowZero: true) ?? sweepPreferredAirports
        sweepDeparturesPerAirport = try Self.number(reader, "sweep.departuresPerAirport", sweepDeparturesPerAirport) ?? sweepDeparturesPerAirport
        if let text = reader.string(forKey: "sweep.daysAhead") {
            let days = text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !days.isEmpty, days.allSatisfy({ (0 ... 365).contains($0) }) else {
                throw SearchSettingsError(key: "search.sweep.daysAhead", message: "'\(text)': comma-separated days, 0–365")
            }
            sweepDaysAhead = days
        }
        if let text = reader.string(forKey: "exchangeRates.url")?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
                throw SearchSettingsError(key: "search.exchangeRates.url", message: "'\(text)' is not an http(s) URL, e.g. \(Self.ecbDailyURL)")
            }
            exchangeRatesURL = text
        }
        exchangeRatesInterval = .seconds(try Self.number(reader, "exchangeRates.intervalSeconds", 86_400, allowZero: true) ?? 86_400)
        let limits = cacheLimits
        cacheLimits.answerEntries = try Self.number(reader, "cache.answers.maxEntries", limits.answerEntries) ?? limits.answerEntries
        cacheLimits.answerBytes = try Self.mebibytes(reader, "cache.answers.maxMebibytes") ?? limits.answerBytes
        cacheLimits.offerEntries = try Self.number(reader, "cache.offers.maxEntries", limits.offerEntries) ?? limits.offerEntries
        cacheLimits.offerBytes = try Self.mebibytes(reader, "cache.offers.maxMebibytes") ?? limits.offerBytes
        cacheLimits.airportEntries = try Self.number(reader, "cache.airports.maxEntries", limits.airportEntries) ?? limits.airportEntries
        cacheLimits.airportBytes = try Self.mebibytes(reader, "cache.airports.maxMebibytes") ?? limits.airportBytes
    }

    private static func mebibytes(_ reader: ConfigReader, _ key: String) throws(SearchSettingsError) -> Int? {
        guard let value = try number(reader, key, 0) else { return nil }
        guard value <= 1 << 20 else { throw SearchSettingsError(key: "search." + key, message: "must be at most 1048576 (1 TiB)") }
        return value << 20
    }

    private static func number(_ reader: ConfigReader, _ key: String, _ fallback: Int, allowZero: Bool = false) throws(SearchSettingsError) -> Int? {
        let configKey = ConfigKey(key)
        guard let value = reader.int(forKey: configKey) ?? reader.string(forKey: configKey).map({ Int($0) ?? -1 }) else { return nil }
        guard value > 0 || (allowZero && value == 0) else {
            throw SearchSettingsError(key: "search." + key, message: "must be a \(allowZero ? "non-negative" : "positive") whole number")
        }
        return value
    }
}

/// A search configuration value that cannot be used.
public struct SearchSettingsError: Error, Sendable, CustomStringConvertible {
    public let key: String
    public let message: String
    public var description: String { "configuration key \(key): \(message)" }
}
