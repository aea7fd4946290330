public import FareLensMessages
import Foundation

extension AirportDirectory {
    /// Suggestions for what a user typed, in the SPEC's order: exact IATA
    /// (airport or metro) code, then city-name prefix, then airport-name
    /// match, then airports within 100 miles of an exact match, then popular
    /// airports. Each place appears once, at its best tier; within a tier
    /// metros come before airports, popular before others, then by code.
    /// Case and accents are ignored.
    public func autocomplete(_ query: String, limit: Int) -> [AirportSuggestion] {
        let text = folded(query.trimmingCharacters(in: .whitespaces))
        var result = SuggestionList(limit: limit)
        let code = text.uppercased()
        var exactAirports: [AirportRecord] = []
        if code.count == 3 {
            if let metro = metros[code] {
                result.add(metro: metro, self, .iataCode)
                exactAirports += memberAirports(of: code)
            }
            if let airport = airports[code] {
                result.add(airport: airport, .iataCode)
                exactAirports.append(airport)
            }
        }
        if !text.isEmpty {
            for metro in metros.values.sorted(by: Self.metroOrder) where folded(metro.city).hasPrefix(text) {
                result.add(metro: metro, self, .cityPrefix)
            }
            // The city itself before longer names that start alike (London before Londrina).
            let cityMatches = ordered.filter { foldedCity[$0.code]!.hasPrefix(text) }
            result.add(airports: cityMatches.filter { foldedCity[$0.code]! == text }.sorted(by: Self.airportOrder), .cityPrefix)
            result.add(airports: cityMatches.sorted(by: Self.airportOrder), .cityPrefix)
            result.add(airports: ordered.filter { Self.nameMatches(foldedName[$0.code]!, text) }.sorted(by: Self.airportOrder), .airportName)
        }
        for center in exactAirports where !result.isFull {
            let nearby = ordered.compactMap { airport -> (AirportRecord, Double)? in
                guard airport.code != center.code else { return nil }
                let miles = center.miles(to: airport)
                return miles <= 100 ? (airport, miles) : nil
            }.sorted { $0.1 < $1.1 }
            for (airport, miles) in nearby { result.add(airport: airport, .nearby, miles: miles) }
        }
        // Popular airports fill an empty query's list, or one that matched something; a query that matched
        // nothing answers nothing (it listed popular airports as if they matched).
        if text.isEmpty || !result.suggestions.isEmpty { result.add(airports: ordered.filter(\.popular), .popular) }
        return result.suggestions
    }

    /// A word of the airport name starts with the query ("heath" matches
    /// "London Heathrow Airport").
    static func nameMatches(_ name: String, _ query: String) -> Bool {
        name.hasPrefix(query) || name.contains(" " + query)
    }

    static func airportOrder(_ a: AirportRecord, _ b: AirportRecord) -> Bool {
        a.popular != b.popular ? a.popular : a.code < b.code
    }

    static func metroOrder(_ a: MetroRecord, _ b: MetroRecord) -> Bool {
        a.popular != b.popular ? a.popular : a.code < b.code
    }
}

/// Suggestions without duplicates, up to a limit.
struct SuggestionList {
    let limit: Int
    private(set) var suggestions: [AirportSuggestion] = []
    private var seen: Set<String> = []

    init(limit: Int) { self.limit = limit }

    var isFull: Bool { suggestions.count >= limit }

    mutating func add(airport: AirportRecord, _ match: AirportSuggestion.Match, miles: Double = 0) {
        guard !isFull, seen.insert("A" + airport.code).inserted else { return }
        var suggestion = AirportSuggestion()
        suggestion.airport = airport.message
        suggestion.match = match
        suggestion.distanceMiles = miles
        suggestions.append(suggestion)
    }

    mutating func add(airports: [AirportRecord], _ match: AirportSuggestion.Match) {
        for airport in airports where !isFull { add(airport: airport, match) }
    }

    mutating func add(metro: MetroRecord, _ directory: AirportDirectory, _ match: AirportSuggestion.Match) {
        guard !isFull, seen.insert("M" + metro.code).inserted else { return }
        var suggestion = AirportSuggestion()
        suggestion.metro = directory.metroMessage(metro)
        suggestion.match = match
        suggestions.append(suggestion)
    }
}
