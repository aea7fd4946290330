import FareLensMessages
import Testing

@Suite("Money formatting")
struct MoneyFormattingTests {
    @Test("yen have no minor units: 65000 JPY is ¥65,000")
    func yen() {
        #expect(Money(minorUnits: 65_000, currency: "JPY").formatted == "¥65,000")
    }

    @Test("dinars have three decimals: 12345 KWD is 12.345 KWD")
    func kuwaitiDinar() {
        #expect(Money(minorUnits: 12_345, currency: "KWD").formatted == "12.345 KWD")
        #expect(Money(minorUnits: 5, currency: "bhd").formatted == "0.005 BHD")
    }

    @Test("the Chilean unidad de fomento has four decimals")
    func clf() {
        #expect(Money(minorUnits: 1_234_567, currency: "CLF").formatted == "123.4567 CLF")
    }

    @Test("two-decimal currencies group thousands; only unambiguous symbols are used")
    func twoDecimals() {
        #expect(Money(minorUnits: 123_450, currency: "EUR").formatted == "€1,234.50")
        #expect(Money(minorUnits: 699, currency: "USD").formatted == "$6.99")
        #expect(Money(minorUnits: 100_000_005, currency: "GBP").formatted == "£1,000,000.05")
        #expect(Money(minorUnits: 4_999, currency: "CAD").formatted == "49.99 CAD")
        #expect(Money(minorUnits: -500, currency: "EUR").formatted == "-€5.00")
    }

    @Test("exponents follow ISO 4217 where they differ from 2")
    func exponents() {
        #expect(["JPY", "KRW", "ISK", "CLP"].allSatisfy { Money.exponent(of: $0) == 0 })
        #expect(["KWD", "BHD", "JOD", "OMR", "TND", "IQD", "LYD"].allSatisfy { Money.exponent(of: $0) == 3 })
        #expect(Money.exponent(of: "CLF") == 4 && Money.exponent(of: "EUR") == 2 && Money.exponent(of: "HUF") == 2)
    }
}
