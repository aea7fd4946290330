import Configuration

/// Builds the live providers named in `search.providers`, in that order.
enum LiveProviders {
    static func make(_ names: [String], reader: ConfigReader, directory: AirportDirectory) throws(SearchSettingsError) -> [any FareProvider] {
        let live = names.filter { $0 != "simulated" }
        if let name = live.first {
            throw SearchSettingsError(key: "search.providers", message: "\(name) is not available in this build")
        }
        return []
    }
}
