public import FareLensMessages

/// Integer minor units for money, never floating point (SPEC §1).
public enum MoneyAmount {
    /// Digits after the decimal point of `currency` (ISO 4217; the table
    /// lives in `Money+Formatting.swift` in FareLensMessages).
    public static func exponent(of currency: String) -> Int {
        Money.exponent(of: currency)
    }

    /// Parses a decimal string such as "123.45" exactly into minor units of
    /// `currency`; nil for anything that is not a plain non-negative decimal
    /// or has more fraction digits than the currency allows (except zeros).
    public static func minorUnits(fromDecimal text: String, currency: String) -> Int64? {
        let digitsAllowed = exponent(of: currency)
        let parts = text.trimmingSpaces().split(separator: ".", omittingEmptySubsequences: false)
        guard (1 ... 2).contains(parts.count), !parts[0].isEmpty, parts[0].allSatisfy(\.isASCIIDigit) else { return nil }
        var fraction = parts.count == 2 ? String(parts[1]) : ""
        guard fraction.allSatisfy(\.isASCIIDigit) else { return nil }
        while fraction.count > digitsAllowed, fraction.hasSuffix("0") { fraction.removeLast() }
        guard fraction.count <= digitsAllowed else { return nil }
        fraction += String(repeating: "0", count: digitsAllowed - fraction.count)
        guard let whole = Int64(parts[0]), let minor = Int64(fraction.isEmpty ? "0" : fraction) else { return nil }
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: power(digitsAllowed))
        guard !overflow else { return nil }
        return scaled + minor
    }

    /// A `Money` message.
    public static func money(_ minorUnits: Int64, _ currency: String) -> Money {
        var money = Money()
        money.currency = currency.uppercased()
        money.minorUnits = minorUnits
        return money
    }

    /// "123.45 EUR".
    public static func format(_ money: Money) -> String {
        let digits = exponent(of: money.currency)
        let sign = money.minorUnits < 0 ? "-" : ""
        let magnitude = money.minorUnits.magnitude
        guard digits > 0 else { return "\(sign)\(magnitude) \(money.currency)" }
        let unit = UInt64(power(digits))
        let fraction = String(magnitude % unit)
        return "\(sign)\(magnitude / unit).\(String(repeating: "0", count: digits - fraction.count))\(fraction) \(money.currency)"
    }

    static func power(_ digits: Int) -> Int64 { (0..<digits).reduce(1) { value, _ in value * 10 } }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension String {
    func trimmingSpaces() -> Substring {
        var slice = self[...]
        while slice.first == " " { slice.removeFirst() }
        while slice.last == " " { slice.removeLast() }
        return slice
    }
}
