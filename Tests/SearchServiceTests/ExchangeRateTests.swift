import FareLensMessages
import FareLensServiceKit
import FareLensStore
import FareLensTesting
import Foundation
import Testing
@testable import SearchService

private func money(_ minor: Int64, _ currency: String) -> Money {
    var money = Money()
    money.minorUnits = minor
    money.currency = currency
    return money
}

@Suite("Exchange rates (the ECB's reference rates)")
struct ExchangeRateTests {
    @Test("the shipped snapshot is the ECB's file of 2024-01-04: 30 currencies, USD 1.0953, JPY 157.91")
    func snapshot() throws {
        let table = try ECBReferenceRates.snapshot()
        #expect(table.date == CalendarDate(year: 2024, month: 1, day: 4))
        #expect(table.perEuro.count == 30)
        #expect(table.perEuro["USD"] == Decimal(string: "1.0953"))
        #expect(table.perEuro["JPY"] == Decimal(string: "157.91"))
        #expect(table.currencies.contains("EUR"))
    }

    @Test("known conversions with the snapshot: 100.00 USD is 91.30 EUR, 10,000 JPY is 63.33 EUR, 100.00 GBP is 126.95 USD, EUR to JPY has no cents")
    func knownValues() throws {
        let table = try ECBReferenceRates.snapshot()
        #expect(try table.convert(money(10_000, "USD"), to: "EUR") == money(9_130, "EUR"))  // 100 / 1.0953 = 91.2992…
        #expect(try table.convert(money(10_000, "JPY"), to: "EUR") == money(6_333, "EUR"))  // 10000 / 157.91 = 63.3272…
        #expect(try table.convert(money(10_000, "GBP"), to: "USD") == money(12_695, "USD"))  // 100 / 0.86278 × 1.0953 = 126.9501…
        #expect(try table.convert(money(1_999, "EUR"), to: "JPY") == money(3_157, "JPY"))  // 19.99 × 157.91 = 3156.6209 yen
        #expect(try table.convert(money(4_200, "EUR"), to: "EUR") == money(4_200, "EUR"))
    }

    @Test("rounding is half to even at the target's minor units, for 0-, 2- and 3-decimal currencies (a test table, not real rates)")
    func roundingEdges() throws {
        // Made-up rates chosen so the exact results land on halves.
        let table = try ExchangeRateTable(date: CalendarDate(year: 2026, month: 11, day: 27)!, perEuro: ["XTS": 1, "JPY": 1, "KWD": 1, "USD": Decimal(string: "0.5")!], source: "test")
        #expect(try table.convert(money(125, "EUR"), to: "JPY") == money(1, "JPY"))  // 1.25 → 1
        #expect(try table.convert(money(150, "EUR"), to: "JPY") == money(2, "JPY"))  // 1.50 → 2 (even)
        #expect(try table.convert(money(250, "EUR"), to: "JPY") == money(2, "JPY"))  // 2.50 → 2 (even)
        #expect(try table.convert(money(350, "EUR"), to: "JPY") == money(4, "JPY"))  // 3.50 → 4 (even)
        #expect(try table.convert(money(1, "EUR"), to: "USD") == money(0, "USD"))  // 0.005 → 0.00 (even)
        #expect(try table.convert(money(3, "EUR"), to: "USD") == money(2, "USD"))  // 0.015 → 0.02 (even)
        #expect(try table.convert(money(12_345, "EUR"), to: "KWD") == money(123_450, "KWD"))  // 123.45 EUR → 123.450 KWD
        #expect(try table.convert(money(1_235, "KWD"), to: "EUR") == money(124, "EUR"))  // 1.235 → 1.24 (even)
        #expect(try table.convert(money(1_245, "KWD"), to: "EUR") == money(124, "EUR"))  // 1.245 → 1.24 (even)
    }

    @Test("a currency the rates do not have is unknown-currency naming it; a rate that is not a positive number is refused")
    func missingCurrency() throws {
        let table = try ECBReferenceRates.snapshot()
        #expect(throws: ExchangeRateError.unknownCurrency("KWD")) { try table.convert(money(100, "EUR"), to: "KWD") }
        #expect(throws: ExchangeRateError.unknownCurrency("RUB")) { try table.convert(money(100, "RUB"), to: "EUR") }
        #expect { try ExchangeRateTable(date: CalendarDate(year: 2026, month: 1, day: 1)!, perEuro: ["USD": 0], source: "t") } throws: {
            ($0 as? ExchangeRateError)?.code == .invalidRates
        }
        let broken = Data("<Cube><Cube time='2026-11-27'><Cube currency='USD' rate='one'/></Cube></Cube>".utf8)
        #expect { try ECBReferenceRates.parse(broken, source: "t") } throws: { ($0 as? ExchangeRateError)?.code == .invalidRates }
        #expect { try ECBReferenceRates.parse(Data("not xml".utf8), source: "t") } throws: { ($0 as? ExchangeRateError)?.code == .invalidRates }
    }

    @Test("staleness counts weekdays: Friday's rates are fresh on Monday and on the next Thursday, stale on the next Friday")
    func staleness() throws {
        let friday = CalendarDate(year: 2026, month: 11, day: 20)!
        let table = try ExchangeRateTable(date: friday, perEuro: ["USD": 1], source: "t")
        #expect(table.businessDaysOld(on: friday) == 0)
        #expect(table.businessDaysOld(on: friday.adding(days: 3)) == 1)  // Monday
        #expect(!table.isStale(on: friday.adding(days: 6)))  // Thursday: 4 weekdays
        #expect(table.isStale(on: friday.adding(days: 7)))  // Friday: 5
    }

    static func keeper(url: String?, clock: ManualWallClock) throws -> (ExchangeRateKeeper, ServiceDatabase) {
        let database = try ServiceDatabase.inMemory(service: "search", migrations: SearchServiceEntry.migrations)
        let keeper = try ExchangeRateKeeper(url: url, interval: .seconds(86_400), database: database, transport: TransportClock(following: clock), logger: quietLogger())
        return (keeper, database)
    }

    @Test("a fetch from an address nothing listens on fails unreachable, keeping the HTTP client's error as its cause")
    func unreachable() async throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_795_824_000))
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        let (keeper, _) = try Self.keeper(url: "http://127.0.0.1:1/eurofxref-daily.xml", clock: clock)
        #expect(await keeper.refresh() == false)
        let failure = try #require(await keeper.lastFailure)
        #expect(failure.code == .unreachable && failure.underlying != nil, "\(failure)")
        #expect(await keeper.status().lastError == failure.reason && !failure.reason.isEmpty)
    }

    @Test("a fetch reads the day's file and keeps it across a restart; a failed or malformed fetch keeps the rates it had and says why; old rates are answered as stale")
    func fetching() async throws {
        let fresh = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
            <Cube><Cube time='2026-11-27'><Cube currency='USD' rate='1.2'/><Cube currency='JPY' rate='180.5'/></Cube></Cube></gesmes:Envelope>
            """
        try await withStubServer { server, base in
            let clock = ManualWallClock(Date(timeIntervalSince1970: 1_795_824_000))  // 2026-11-28, a Saturday
            let (keeper, database) = try Self.keeper(url: base + "/eurofxref-daily.xml", clock: clock)
            var status = await keeper.status()
            #expect(status.date == "2024-01-04" && status.stale && status.source.contains("snapshot"))

            server.respond(to: "/eurofxref-daily.xml", with: StubResponse(body: Data(fresh.utf8)))
            #expect(await keeper.refresh())
            status = await keeper.status()
            #expect(status.date == "2026-11-27" && !status.stale && status.ratesPerEuro["USD"] == "1.2" && status.lastError.isEmpty)
            var convert = ConvertMoneyRequest()
            convert.amount = money(1_200, "USD")
            convert.to = "EUR"
            #expect(try await keeper.convert(convert).converted == money(1_000, "EUR"))

            server.respond(to: "/eurofxref-daily.xml", with: StubResponse(status: 503))
            #expect(await keeper.refresh() == false)
            status = await keeper.status()
            #expect(status.date == "2026-11-27" && status.lastError.contains("503"), "the rates it had are kept")
            #expect(await keeper.lastFailure?.code == .httpStatus)
            server.respond(to: "/eurofxref-daily.xml", with: StubResponse(body: Data("<html>maintenance</html>".utf8)))
            #expect(await keeper.refresh() == false)
            #expect(await keeper.status().lastError.contains("no dated Cube"))
            // The parser's own error is kept as the cause, not only its text.
            let unreadable = try #require(await keeper.lastFailure)
            #expect(unreadable.code == .unreadable && (unreadable.underlying as? ExchangeRateError)?.code == .invalidRates)

            // A restart finds the fetched file, not the snapshot.
            let again = try ExchangeRateKeeper(url: nil, interval: .zero, database: database, transport: TransportClock(following: clock), logger: quietLogger())
            #expect(await again.status().date == "2026-11-27")
            // Eight days on, the same rates are stale.
            clock.advance(by: 8 * 86_400)
            #expect(await again.status().stale)
        }
    }
}
