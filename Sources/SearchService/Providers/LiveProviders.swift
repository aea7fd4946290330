import Configuration
import FareLensServiceKit

/// Builds the live providers named in `search.providers`, in that order
/// (the order is the fallback order).
enum LiveProviders {
    /// - Parameter transport: real time, for what the providers' servers see (token lifetimes), never the business clock.
    static func make(_ names: [String], reader: ConfigReader, directory: AirportDirectory, transport: TransportClock = .system) throws(SearchSettingsError) -> [any FareProvider] {
        let timeZone: @Sendable (String) -> String? = { directory.timeZone(of: $0) }
        var providers: [any FareProvider] = []
        for name in names where name != "simulated" {
            let provider: (any FareProvider)?
            do throws(ProviderError) {
                switch name {
                case AmadeusProvider.providerName: provider = try AmadeusProvider.fromConfiguration(reader, timeZone: timeZone, transport: transport)
                case TravelpayoutsProvider.providerName: provider = try TravelpayoutsProvider.fromConfiguration(reader, timeZone: timeZone)
                default: provider = nil
                }
            } catch {
                throw SearchSettingsError(key: "search.\(name)", message: error.message)
            }
            guard let provider else {
                throw SearchSettingsError(key: "search.providers", message: "names \(name), but search.\(name).baseUrl and its credentials are not configured")
            }
            providers.append(provider)
        }
        return providers
    }
}
