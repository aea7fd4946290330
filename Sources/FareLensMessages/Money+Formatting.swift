/// Money as people read it, by the currency's own minor units (ISO 4217).
///
/// The one place that knows how many digits follow the decimal point in
/// each currency: `farelensctl`, and later scoring reasons and alert
/// titles, format through it. Amounts stay integer minor units everywhere
/// else (DESIGN.md, convention 9).
///
/// Format (our choice, stable): thousands grouped with ",", decimals with
/// ".". A symbol is used only where it names one currency for our users:
/// EUR "€", GBP "£", USD "$", JPY "¥" — written before the amount
/// ("€1,234.50", "¥65,000"). Every other currency (other dollars, CNY's
/// yuan, KWD …) is the amount followed by its code ("12.345 KWD").
/// A negative amount starts with "-" ("-€5.00").
extension Money {
    /// ISO 4217 exponents that differ from 2 (list one, 2024 edition).
    /// Codes not listed have 2 decimals.
    public static let minorUnitExponents: [String: Int] = [
        // 0 decimals
        "BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0,
        "RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
        // 3 decimals
        "BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
        // 4 decimals
        "CLF": 4, "UYW": 4,
    ]

    /// Symbols written before the amount; every other currency is written as a code after it.
    public static let unambiguousSymbols: [String: String] = ["EUR": "€", "GBP": "£", "USD": "$", "JPY": "¥"]

    /// Digits after the decimal point in `currency` (2 unless ISO 4217 says otherwise).
    public static func exponent(of currency: String) -> Int {
        minorUnitExponents[currency.uppercased()] ?? 2
    }

    /// A money value.
    public init(minorUnits: Int64, currency: String) {
        self.init()
        self.minorUnits = minorUnits
        self.currency = currency.uppercased()
    }

    /// The amount as people read it: "€1,234.50", "¥65,000", "12.345 KWD".
    public var formatted: String {
        let code = currency.uppercased()
        let digits = Self.exponent(of: code)
        let magnitude = minorUnits.magnitude
        var unit: UInt64 = 1
        for _ in 0..<digits { unit *= 10 }
        var number = Self.grouped(magnitude / unit)
        if digits > 0 {
            let fraction = String(magnitude % unit)
            number += "." + String(repeating: "0", count: digits - fraction.count) + fraction
        }
        let sign = minorUnits < 0 ? "-" : ""
        if let symbol = Self.unambiguousSymbols[code] { return sign + symbol + number }
        return sign + number + " " + code
    }

    /// Like ``formatted`` but without a fraction of zeros, as headlines show
    /// prices: "$650", "€45.50", "¥65,000".
    public var headline: String {
        let digits = Self.exponent(of: currency.uppercased())
        guard digits > 0 else { return formatted }
        var unit: Int64 = 1
        for _ in 0..<digits { unit *= 10 }
        guard minorUnits % unit == 0 else { return formatted }
        let text = formatted
        let fraction = "." + String(repeating: "0", count: digits)
        guard let range = text.range(of: fraction) else { return text }
        return text.replacingCharacters(in: range, with: "")
    }

    private static func grouped(_ value: UInt64) -> String {
        let digits = Array(String(value))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }
}
