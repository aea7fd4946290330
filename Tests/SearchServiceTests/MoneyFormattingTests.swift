import Foundation
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

    @Test("the symbol currencies' fast path agrees with the tables for every code they list")
    func styleAgreesWithTables() {
        for code in Set(Money.minorUnitExponents.keys).union(Money.unambiguousSymbols.keys).union(["USD", "EUR", "GBP", "JPY", "CAD", "AUD"]) {
            let style = Money.style(of: code)
            #expect(style.digits == (Money.minorUnitExponents[code] ?? 2), "\(code)")
            #expect(style.symbol == Money.unambiguousSymbols[code], "\(code)")
        }
    }

    @Test("exponents follow ISO 4217 where they differ from 2")
    func exponents() {
        #expect(["JPY", "KRW", "ISK", "CLP"].allSatisfy { Money.exponent(of: $0) == 0 })
        #expect(["KWD", "BHD", "JOD", "OMR", "TND", "IQD", "LYD"].allSatisfy { Money.exponent(of: $0) == 3 })
        #expect(Money.exponent(of: "CLF") == 4 && Money.exponent(of: "EUR") == 2 && Money.exponent(of: "HUF") == 2)
    }

    @Test("a headline drops a fraction of zeros only: $650, €45.50, ¥65,000, 1.000 KWD → 1 KWD, -$5; a code set in lower case reads in upper case")
    func headlines() {
        #expect(Money(minorUnits: 65_000, currency: "USD").headline == "$650")
        #expect(Money(minorUnits: 4_550, currency: "EUR").headline == "€45.50")
        #expect(Money(minorUnits: 65_000, currency: "JPY").headline == "¥65,000")
        #expect(Money(minorUnits: 1_000, currency: "KWD").headline == "1 KWD")
        #expect(Money(minorUnits: 1_001, currency: "KWD").headline == "1.001 KWD")
        #expect(Money(minorUnits: -500, currency: "USD").headline == "-$5")
        #expect(Money(minorUnits: 0, currency: "GBP").headline == "£0")
        var lower = Money()
        lower.minorUnits = 123_400
        lower.currency = "eur"
        #expect(lower.formatted == "€1,234.00" && lower.headline == "€1,234")
    }

    @Test("for 2,000 generated amounts in currencies of every exponent, the headline is the formatted amount with a zero fraction removed, and grouping puts a comma every three digits")
    func headlineIsFormattedWithoutZeroFraction() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let currency = ["USD", "EUR", "JPY", "KWD", "CLF", "CAD", "CHF"].randomElement(using: &generator)!  // safe: a non-empty literal
            let digits = Money.exponent(of: currency)
            let scale = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000_000].randomElement(using: &generator)!  // safe: a non-empty literal
            let wholeOnly = Bool.random(using: &generator)
            var units = Int64.random(in: -1_000_000_000...1_000_000_000, using: &generator) * Int64(scale) / 1_000
            if wholeOnly { units = units / Int64(pow(10, Double(digits))) * Int64(pow(10, Double(digits))) }
            let money = Money(minorUnits: units, currency: currency)
            let zeros = digits > 0 ? "." + String(repeating: "0", count: digits) : ""
            let expected = !zeros.isEmpty && money.formatted.contains(zeros) ? money.formatted.replacingOccurrences(of: zeros, with: "") : money.formatted
            #expect(money.headline == expected, "\(units) \(currency)")
            let number = String(money.formatted.filter { $0.isNumber || $0 == "," || $0 == "." }.split(separator: Character("."))[0])
            let groups = number.split(separator: Character(","))
            #expect(groups.dropFirst().allSatisfy { $0.count == 3 } && (groups.first?.count ?? 0) <= 3, "\(money.formatted)")
        }
    }
}
