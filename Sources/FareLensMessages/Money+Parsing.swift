extension Money {
    /// A plain decimal amount (`12.50`, `1200`) in `currency`, as minor units:
    /// nil for anything else — a sign, a grouping separator, an exponent, more
    /// than 12 whole digits, or more decimals than the currency has (refused,
    /// never rounded). `currency` is taken as given; check it with ``isCurrencyCode(_:)``.
    public init?(decimal text: String, currency: String) {
        let exponent = Money.exponent(of: currency)
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].count <= 12,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            parts.count == 1 || (!parts[1].isEmpty && parts[1].count <= exponent)
        else { return nil }
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        guard let minor = Int64(String(parts[0]) + fraction + String(repeating: "0", count: exponent - fraction.count)) else { return nil }
        self.init()
        self.currency = currency
        self.minorUnits = minor
    }
}
