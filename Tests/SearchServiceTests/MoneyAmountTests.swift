import FareLensMessages
import SearchService
import Testing

@Suite("Money in minor units")
struct MoneyAmountTests {
    @Test("a decimal string becomes exact minor units, for 2-, 0- and 3-digit currencies")
    func parsesExactly() {
        #expect(MoneyAmount.minorUnits(fromDecimal: "123.45", currency: "EUR") == 12345)
        #expect(MoneyAmount.minorUnits(fromDecimal: "0.10", currency: "USD") == 10)
        #expect(MoneyAmount.minorUnits(fromDecimal: "99", currency: "EUR") == 9900)
        #expect(MoneyAmount.minorUnits(fromDecimal: "12000", currency: "JPY") == 12000)
        #expect(MoneyAmount.minorUnits(fromDecimal: "1.234", currency: "KWD") == 1234)
        #expect(MoneyAmount.minorUnits(fromDecimal: "10.500", currency: "EUR") == 1050)
    }

    @Test("anything that is not a plain non-negative decimal is refused, not rounded")
    func refusesJunk() {
        for text in ["", "-1.00", "1.2.3", "abc", "1.234", "1e3", ".5"] {
            #expect(MoneyAmount.minorUnits(fromDecimal: text, currency: "EUR") == nil, "\(text)")
        }
    }

    @Test("formatting shows the currency's digits")
    func formats() {
        #expect(MoneyAmount.format(MoneyAmount.money(12305, "eur")) == "123.05 EUR")
        #expect(MoneyAmount.format(MoneyAmount.money(5000, "JPY")) == "5000 JPY")
    }
}
