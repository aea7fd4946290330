public import FareLensBus

extension AirportLookupRequest {
    /// What the search service's directory knows of `code` (an IATA airport
    /// or metro code), asked over `bus`: how services other than search check
    /// the airport codes they are given.
    ///
    /// - Returns: the place, its ``KnownPlace/code`` being `code` as asked
    ///   (callers pass a checked, upper-case code); nil when search answers
    ///   `unknown-airport` or `invalid-field` (a malformed code).
    /// - Throws: the ``BusError`` when the directory could not be asked.
    public static func place(_ code: String, on bus: MessageBus) async throws(BusError) -> KnownPlace? {
        var request = AirportLookupRequest()
        request.code = code
        do {
            var place = try await bus.request(request).place
            place.code = code
            return place
        } catch {
            if error.kind == .remote, error.remoteCode == "unknown-airport" || error.remoteCode == "invalid-field" { return nil }
            throw error
        }
    }

    /// Whether the search service's directory knows `code`; see ``place(_:on:)``.
    public static func isKnown(_ code: String, on bus: MessageBus) async throws(BusError) -> Bool {
        try await place(code, on: bus) != nil
    }
}
