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
    public var formatted: String { text(droppingZeroFraction: false) }

    /// Like ``formatted`` but without a fraction of zeros, as headlines show
    /// prices: "$650", "€45.50", "¥65,000".
    public var headline: String { text(droppingZeroFraction: true) }

    /// One pass over the digits, no intermediate strings beyond the result
    /// (alert titles format a price for every decision).
    private func text(droppingZeroFraction: Bool) -> String {
        let code = currency.utf8.contains(where: { (97...122).contains($0) }) ? currency.uppercased() : currency
        let (digits, symbol) = Self.style(of: code)
        let magnitude = minorUnits.magnitude
        var unit: UInt64 = 1
        for _ in 0..<digits { unit *= 10 }
        var text = minorUnits < 0 ? "-" : ""
        if let symbol { text += symbol }
        Self.appendGrouped(magnitude / unit, to: &text)
        let fraction = magnitude % unit
        if digits > 0, !(droppingZeroFraction && fraction == 0) {
            text += "."
            let fractionText = String(fraction)
            for _ in fractionText.utf8.count..<digits { text += "0" }
            text += fractionText
        }
        if symbol == nil { text += " " + code }
        return text
    }

    /// The digits after the decimal point and the symbol of the upper-case
    /// `code`, as ``minorUnitExponents`` and ``unambiguousSymbols`` say. The
    /// currencies with a symbol are compared before either table is
    /// hashed: nearly every price is in one of them, and the two lookups
    /// were most of formatting an alert's title (a test holds the two in step).
    public static func style(of code: String) -> (digits: Int, symbol: String?) {
        switch code {
        case "USD": (2, "$")
        case "EUR": (2, "€")
        case "GBP": (2, "£")
        case "JPY": (0, "¥")
        default: (minorUnitExponents[code] ?? 2, unambiguousSymbols[code])
        }
    }

    /// `value` with thousands grouped by ",".
    private static func appendGrouped(_ value: UInt64, to text: inout String) {
        let plain = String(value)
        let count = plain.utf8.count
        guard count > 3 else {
            text += plain
            return
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + count / 3)
        for (index, digit) in plain.utf8.enumerated() {
            if index > 0, (count - index) % 3 == 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(digit)
        }
        text += String(decoding: bytes, as: UTF8.self)
    }
}
