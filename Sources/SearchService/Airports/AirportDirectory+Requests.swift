public import FareLensMessages
import Foundation

extension AirportDirectory {
    /// Normalises a code from a request field: trimmed, upper case, three
    /// letters, and known to the directory.
    ///
    /// - Throws: ``SearchError`` `invalid-field` for a malformed code,
    ///   `unknown-airport` for a well-formed one nobody has.
    public func validatedCode(_ raw: String, field: String) throws(SearchError) -> String {
        if let code = Self.plainASCIICode(raw) {
            guard knows(code) else { throw .unknownAirport(code, field: field) }
            return code
        }
        let code = raw.trimmingCharacters(in: .whitespaces).uppercased()
        guard !code.isEmpty else { throw .invalidField(field, "is required (an IATA airport or metro code)") }
        guard code.count == 3, code.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw .invalidField(field, "'\(raw)' is not a three-letter IATA code")
        }
        guard knows(code) else { throw .unknownAirport(code, field: field) }
        return code
    }

    /// The code in `raw` when `raw` is three ASCII letters between ASCII
    /// spaces and tabs, upper-cased: what trimming whitespace and
    /// upper-casing give for such input, without Foundation's Unicode
    /// tables (they were 14% of a node's CPU per airport lookup). Nil for
    /// anything else, which takes the general path and its errors.
    static func plainASCIICode(_ raw: String) -> String? {
        var utf8 = raw.utf8[...]
        while let first = utf8.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { utf8.removeFirst() }
        while let last = utf8.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { utf8.removeLast() }
        guard utf8.count == 3, utf8.allSatisfy({ (UInt8(ascii: "A") ... UInt8(ascii: "Z")).contains($0 & 0xDF) }) else { return nil }
        return String(unsafeUninitializedCapacity: 3) { buffer in
            // Clearing bit 5 upper-cases an ASCII letter and keeps a capital.
            for (index, byte) in utf8.enumerated() { buffer[index] = byte & 0xDF }
            return 3
        }
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
