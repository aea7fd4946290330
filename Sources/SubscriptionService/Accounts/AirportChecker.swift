import FareLensBus
import FareLensMessages

/// Whether a code names a known airport or metro. The directory belongs to
/// the search service; this service asks it over the bus.
protocol AirportChecker: Sendable {
    /// - Returns: whether `code` is known.
    /// - Throws: ``SubscriptionError`` `airports-unavailable` when the
    ///   directory cannot be asked.
    func isKnown(_ code: String) async throws(SubscriptionError) -> Bool
}

/// Asks the search service (`AirportLookupRequest`).
struct BusAirportChecker: AirportChecker {
    let bus: MessageBus

    func isKnown(_ code: String) async throws(SubscriptionError) -> Bool {
        do {
            return try await AirportLookupRequest.isKnown(code, on: bus)
        } catch {
            throw .airportsUnavailable(cause: error)
        }
    }
}
