public import FareLensMessages
import Foundation

extension AirportDirectory {
    /// Normalises a code from a request field: trimmed, upper case, three
    /// letters, and known to the directory.
    ///
    /// - Throws: ``SearchError`` `invalid-field` for a malformed code,
    ///   `unknown-airport` for a well-formed one nobody has.
    public func validatedCode(_ raw: String, field: String) throws(SearchError) -> String {
        let code = raw.trimmingCharacters(in: .whitespaces).uppercased()
        guard !code.isEmpty else { throw .invalidField(field, "is required (an IATA airport or metro code)") }
        guard code.count == 3, code.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw .invalidField(field, "'\(raw)' is not a three-letter IATA code")
        }
        guard knows(code) else { throw .unknownAirport(code, field: field) }
        return code
    }

    /// Answers `AirportLookupRequest`.
    public func lookup(_ request: AirportLookupRequest) throws(SearchError) -> AirportLookupResponse {
        let code = try validatedCode(request.code, field: "code")
        var response = AirportLookupResponse()
        if let airport = airports[code] { response.airport = airport.message }
        if let metro = metros[code] { response.metro = metroMessage(metro) }
        return response
    }

    /// Answers `AirportAutocompleteRequest` (limit 0 → 10, capped at 50).
    public func autocomplete(_ request: AirportAutocompleteRequest) throws(SearchError) -> AirportAutocompleteResponse {
        guard request.limit >= 0 else { throw .invalidField("limit", "must be 0 (default 10) or more") }
        guard request.query.count <= 100 else { throw .invalidField("query", "is longer than 100 characters") }
        var response = AirportAutocompleteResponse()
        response.suggestions = autocomplete(request.query, limit: request.limit == 0 ? 10 : min(Int(request.limit), 50))
        return response
    }

    /// Answers `AirportDistanceRequest`; metro codes are refused (a metro has no single position).
    public func distance(_ request: AirportDistanceRequest) throws(SearchError) -> AirportDistanceResponse {
        let from = try validatedCode(request.fromCode, field: "from_code")
        let to = try validatedCode(request.toCode, field: "to_code")
        guard let origin = airports[from] else { throw .invalidField("from_code", "'\(from)' is a metro code; give an airport") }
        guard let destination = airports[to] else { throw .invalidField("to_code", "'\(to)' is a metro code; give an airport") }
        var response = AirportDistanceResponse()
        response.kilometers = origin.kilometers(to: destination)
        response.miles = origin.miles(to: destination)
        response.fromAirport = origin.message
        response.toAirport = destination.message
        return response
    }
}
