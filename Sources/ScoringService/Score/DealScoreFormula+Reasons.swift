import FareLensMessages
import Foundation

extension DealScoreFormula {
    /// The plain-word reasons of a score. Fixed texts are built once in tables,
    /// so a score costs no string building beyond the typical-price range.
    enum Reasons {
        /// "Lowest price in 6 months".
        static let lowestInSixMonths = "Lowest price in 6 months"
        /// Discount texts for 0…`tableLimit` percent, below and above.
        private static let tableLimit = 400
        /// "N% below the 90-day average" for N in 0…tableLimit (0 unused).
        private static let below: [String] = (0 ... tableLimit).map { "\($0)% below the 90-day average" }
        /// "N% above the 90-day average" for N in 0…tableLimit (0 unused).
        private static let above: [String] = (0 ... tableLimit).map { "\($0)% above the 90-day average" }
        /// "Departs in N days" for N in 0…tableLimit (0 and 1 have their own words).
        private static let departures: [String] = (0 ... tableLimit).map { days in
            switch days {
            case 0: "Departs today"
            case 1: "Departs tomorrow"
            default: "Departs in \(days) days"
            }
        }
        /// Reliability texts by band (reliable, average, unreliable) and on-time percent 0…100.
        private static let reliabilityBands: [[String]] = ["Reliable", "Average", "Unreliable"].map { band in
            (0 ... 100).map { "\(band) carrier: \($0)% on time" }
        }

        /// "24% below the 90-day average", "5% above the 90-day average", or
        /// "At the 90-day average": the basis points rounded to a whole percent (half up).
        static func discount(basisPoints: Int32) -> String {
            let magnitude = (Int(basisPoints.magnitude) + 50) / 100
            if magnitude == 0 { return "At the 90-day average" }
            if magnitude <= tableLimit { return basisPoints > 0 ? below[magnitude] : above[magnitude] }
            return "\(magnitude)% \(basisPoints > 0 ? "below" : "above") the 90-day average"
        }

        /// "Departs in 45 days" ("Departs today", "Departs tomorrow"); past departures read as today.
        static func departure(days: Int) -> String {
            let days = max(days, 0)
            return days <= tableLimit ? departures[days] : "Departs in \(days) days"
        }

        /// The popularity band in words, by the points it earned (neutral when not in the data).
        static func popularity(_ observations: Int?, points: Int) -> String {
            guard observations != nil else { return "Route not in the fare data: neutral popularity" }
            switch points {
            case 8...: return "Very popular route"
            case 6 ..< 8: return "Popular route"
            case 4 ..< 6: return "Typical route popularity"
            default: return "Less-travelled route"
            }
        }

        /// "Reliable carrier: 82% on time", by band of the reliability fraction (reliable from 0.65,
        /// average from 0.35, unreliable below), or neutral for an unknown carrier.
        static func reliability(_ carrier: CarrierRecord?, fraction: Double) -> String {
            guard let carrier else { return "Carrier reliability unknown: neutral" }
            let band = fraction >= 0.65 ? 0 : (fraction >= 0.35 ? 1 : 2)
            let percent = carrier.onTime.isFinite ? Int((min(max(carrier.onTime, 0), 1) * 100).rounded()) : 0
            return reliabilityBands[band][percent]
        }

        /// "Not enough price history yet (3 of 7 days)".
        static func notEnoughData(days: Int) -> String {
            "Not enough price history yet (\(days) of \(RouteStatistics.minimumDays) days)"
        }

        /// "Typical price: €80–95": the range in whole currency units (each rounded half
        /// away from zero), the symbol or code written once. `code` is upper case.
        ///
        /// The amounts read exactly as `Money.formatted` writes them with the
        /// all-zero fraction dropped — the same symbols, codes, minor units and
        /// "," grouping, taken from `Money.unambiguousSymbols` and
        /// `Money.minorUnitExponents` — but are written straight into one string:
        /// `Money.formatted` costs about 1 µs, more than the whole rest of a score.
        /// `DealScoreFormulaTests` checks the two agree across currencies and sizes.
        static func typicalPrice(low: Int64, high: Int64, code: String) -> String {
            let unit = unitSize(code)
            let low = roundedToUnit(low, unit) / unit
            let high = roundedToUnit(high, unit) / unit
            let symbol = Money.unambiguousSymbols[code]
            let prefix = "Typical price: "
            // Each amount: a sign, a symbol, up to 20 digits and 6 commas.
            let amountBytes = 1 + (symbol?.utf8.count ?? 0) + 26
            let capacity = prefix.utf8.count + 2 * amountBytes + "–".utf8.count + 1 + code.utf8.count
            return String(unsafeUninitializedCapacity: capacity) { buffer in
                var count = 0
                func write(_ text: String) {
                    for byte in text.utf8 {
                        buffer[count] = byte
                        count += 1
                    }
                }
                func writeAmount(_ value: Int64, symbol: String?) {
                    if value < 0 {
                        buffer[count] = UInt8(ascii: "-")
                        count += 1
                    }
                    if let symbol { write(symbol) }
                    let magnitude = value.magnitude
                    var divisor: UInt64 = 1
                    var remaining = 1
                    while magnitude / divisor >= 10 {
                        divisor *= 10
                        remaining += 1
                    }
                    while divisor > 0 {
                        buffer[count] = UInt8(ascii: "0") + UInt8(magnitude / divisor % 10)
                        count += 1
                        remaining -= 1
                        if remaining > 0, remaining % 3 == 0 {
                            buffer[count] = UInt8(ascii: ",")
                            count += 1
                        }
                        divisor /= 10
                    }
                }
                write(prefix)
                writeAmount(low, symbol: symbol)
                if low != high {
                    // The symbol is written once ("€80–95") unless the high end is negative.
                    write("–")
                    writeAmount(high, symbol: high < 0 ? symbol : nil)
                }
                if symbol == nil {
                    write(" ")
                    write(code)
                }
                return count
            }
        }

        /// The currency code in upper case, without work when it already is.
        static func normalizedCode(_ currency: String) -> String {
            currency.utf8.allSatisfy { $0 < UInt8(ascii: "a") || $0 > UInt8(ascii: "z") } ? currency : currency.uppercased()
        }

        /// Minor units in one whole unit of `code` (100 for EUR, 1 for JPY).
        private static func unitSize(_ code: String) -> Int64 {
            var unit: Int64 = 1
            for _ in 0 ..< (Money.minorUnitExponents[code] ?? 2) { unit *= 10 }
            return unit
        }

        /// `amount` rounded to a multiple of `unit` (half away from zero); toward zero where that would overflow.
        private static func roundedToUnit(_ amount: Int64, _ unit: Int64) -> Int64 {
            guard unit > 1 else { return amount }
            let quotient = amount / unit
            let remainder = amount % unit
            let whole = remainder.magnitude * 2 >= unit.magnitude ? quotient + (amount < 0 ? -1 : 1) : quotient
            let (product, overflow) = whole.multipliedReportingOverflow(by: unit)
            return overflow ? quotient * unit : product
        }
    }
}
