import FareLensMessages
import SearchService
import Testing

@Suite("Airport directory")
struct AirportDirectoryTests {
    let directory = try! AirportDirectory.bundled()

    @Test("the bundled directory holds every airport with an IATA code and the metro codes")
    func loadsRealData() {
        #expect(directory.airports.count > 7_800)
        #expect(Set(["LON", "NYC", "PAR", "TYO"]).isSubset(of: Set(directory.metros.keys)))
        #expect(directory.airport("LHR")?.timeZone == "Europe/London")
        #expect(directory.airport("JFK")?.metro == "NYC")
    }

    @Test("look-up answers an airport, a metro, or both for a code that is both")
    func lookup() throws {
        #expect(try directory.lookup(request("lhr")).airport.name == "London Heathrow Airport")
        let metro = try directory.lookup(request("NYC"))
        #expect(!metro.hasAirport && metro.metro.airports.map(\.iataCode).sorted() == ["JFK", "LGA"])
        let both = try directory.lookup(request("IST"))
        #expect(both.hasAirport && both.hasMetro)
    }

    @Test("an unknown code is unknown-airport and a malformed one invalid-field, each naming the field")
    func unknownCodes() {
        #expect(throws: SearchError.unknownAirport("QQQ", field: "code")) { try directory.lookup(request("QQQ")) }
        #expect(throws: SearchError.invalidField("code", "'LH1' is not a three-letter IATA code")) { try directory.lookup(request("LH1")) }
        #expect(throws: SearchError.invalidField("code", "is required (an IATA airport or metro code)")) { try directory.lookup(request(" ")) }
    }

    @Test("autocomplete ranks exact code, then city prefix, then airport name, then nearby, then popular")
    func rankingOrder() {
        let matches = directory.autocomplete("LHR", limit: 50).map(\.match)
        #expect(matches.first == .iataCode)
        // Tiers never go backwards.
        #expect(matches == matches.sorted { $0.rawValue < $1.rawValue })
        #expect(matches.contains(.nearby) && matches.contains(.popular))
        let nearby = directory.autocomplete("LHR", limit: 50).filter { $0.match == .nearby }
        #expect(!nearby.isEmpty && nearby.allSatisfy { $0.distanceMiles <= 100 })
        #expect(nearby.map(\.distanceMiles) == nearby.map(\.distanceMiles).sorted())
    }

    @Test("a city prefix lists the metro first, then the city's popular airports, before other towns")
    func cityPrefix() {
        let codes = directory.autocomplete("lond", limit: 8).map { $0.airport.iataCode.isEmpty ? $0.metro.code : $0.airport.iataCode }
        #expect(codes.first == "LON")
        #expect(Set(codes.prefix(6)) == ["LON", "LCY", "LGW", "LHR", "LTN", "STN"])
    }

    @Test("airport-name words match after city prefixes, and accents and case are ignored")
    func nameMatchAndAccents() {
        let heathrow = directory.autocomplete("heathrow", limit: 5)
        #expect(heathrow.first?.airport.iataCode == "LHR" && heathrow.first?.match == .airportName)
        let saoPaulo = directory.autocomplete("SÃO PAU", limit: 5)
        #expect(saoPaulo.first?.metro.code == "SAO")
    }

    @Test("an empty query lists popular airports only")
    func emptyQuery() {
        let suggestions = directory.autocomplete("", limit: 10)
        #expect(suggestions.count == 10 && suggestions.allSatisfy { $0.match == .popular && $0.airport.popular })
    }

    @Test("distance between LHR and JFK is the great-circle distance, and metros are refused")
    func distance() throws {
        var request = AirportDistanceRequest()
        request.fromCode = "LHR"
        request.toCode = "JFK"
        let response = try directory.distance(request)
        #expect(abs(response.kilometers - 5_539) < 10)
        #expect(abs(response.miles - response.kilometers / 1.609344) < 0.001)
        request.toCode = "NYC"
        #expect(throws: SearchError.invalidField("to_code", "'NYC' is a metro code; give an airport")) { try directory.distance(request) }
    }

    func request(_ code: String) -> AirportLookupRequest {
        var request = AirportLookupRequest()
        request.code = code
        return request
    }
}
