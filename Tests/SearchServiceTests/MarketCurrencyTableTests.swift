import FareLensMessages
import Foundation
@testable import SearchService
import Testing

@Suite("Market currency table")
struct MarketCurrencyTableTests {
    @Test("the bundled table gives each country its own currency and unlisted countries US dollars", arguments: [
        ("US", "USD"), ("GB", "GBP"), ("IN", "INR"), ("AU", "AUD"), ("JP", "JPY"), ("CA", "CAD"), ("CH", "CHF"),
        ("DE", "EUR"), ("PT", "EUR"), ("BG", "EUR"), ("HR", "EUR"), ("DK", "DKK"), ("KW", "KWD"), ("SN", "XOF"),
        ("PG", "USD"), ("ZZ", "USD"),
    ])
    func countries(country: String, currency: String) throws {
        let table = try MarketCurrencies.bundled()
        #expect(table.currency(ofCountry: country).code == currency)
    }

    @Test("rates are positive, the euro is 1, and pegged currencies carry their fixed parity")
    func rates() throws {
        let table = try MarketCurrencies.bundled()
        #expect(table.currency(code: "EUR")?.perEuro == 1)
        #expect(table.currency(code: "XOF")?.perEuro == 655.957 && table.currency(code: "XAF")?.perEuro == 655.957)
        #expect(table.byCode.values.allSatisfy { $0.perEuro > 0 })
        // Every currency of the table is one FareLensMessages formats with its own exponent (no duplicate table here).
        #expect(table.currency(code: "JPY")?.minorPerUnit == 1 && table.currency(code: "KWD")?.minorPerUnit == 1_000 && table.currency(code: "USD")?.minorPerUnit == 100)
    }

    @Test("prices round to whole units where a unit is worth under 5 euro cents, else to the minor unit")
    func rounding() throws {
        let table = try MarketCurrencies.bundled()
        let rupee = try #require(table.currency(code: "INR")), yen = try #require(table.currency(code: "JPY"))
        let dollar = try #require(table.currency(code: "USD")), dinar = try #require(table.currency(code: "KWD"))
        #expect(table.price(euroCents: 10_000, in: rupee) == Money(minorUnits: 1_020_000, currency: "INR"))
        #expect(table.price(euroCents: 12_345, in: rupee).minorUnits % 100 == 0)
        #expect(table.price(euroCents: 12_345, in: yen) == Money(minorUnits: 22_221, currency: "JPY"))
        #expect(table.price(euroCents: 12_345, in: dollar) == Money(minorUnits: 14_320, currency: "USD"))
        #expect(table.price(euroCents: 12_345, in: dinar) == Money(minorUnits: 43_948, currency: "KWD"))
        #expect(table.price(euroCents: 0.2, in: rupee).minorUnits == 100)
    }

    @Test("a malformed table is refused with a named code", arguments: [
        ("currency,per_eur,countries\nUSD,0,US\n", "invalid-rate"),
        ("currency,per_eur,countries\nUSD,abc,US\n", "invalid-rate"),
        ("currency,per_eur,countries\nUSD,1.1,US\nEUR,1,US;DE\n", "duplicate-country"),
        ("currency,per_eur,countries\nUSD,1.1,US\nUSD,1.2,PR\n", "duplicate-currency"),
        ("currency,per_eur,countries\nUS,1.1,US\n", "invalid-currency"),
        ("currency,per_eur,countries\nUSD,1.1,USA\n", "invalid-country"),
        ("currency,per_eur,countries\nEUR,1,DE\n", "missing-fallback"),
        ("currency,per_eur\nUSD,1.1\n", "missing-column"),
        ("currency,per_eur,countries\nUSD,1.1\n", "field-count"),
    ])
    func malformed(text: String, code: String) {
        let error = #expect(throws: MarketCurrencyError.self) { try MarketCurrencies(text: text) }
        #expect(error?.code == code, "\(String(describing: error))")
    }
}
