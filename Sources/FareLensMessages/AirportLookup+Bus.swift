public import FareLensBus

extension AirportLookupRequest {
    /// Whether the search service's directory knows `code` (an IATA airport
    /// or metro code), asked over `bus`: how services other than search check
    /// the airport codes they are given.
    ///
    /// - Returns: false when search answers `unknown-airport` or
    ///   `invalid-field` (a malformed code).
    /// - Throws: the ``BusError`` when the directory could not be asked.
    public static func isKnown(_ code: String, on bus: MessageBus) async throws(BusError) -> Bool {
        var request = AirportLookupRequest()
        request.code = code
        do {
            _ = try await bus.request(request)
            return true
        } catch {
            if error.kind == .remote, error.remoteCode == "unknown-airport" || error.remoteCode == "invalid-field" { return false }
            throw error
        }
    }
}
