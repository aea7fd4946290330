import ArgumentParser
import FareLensMessages
import Foundation

/// Command-line words of `deals`, `history` and `score` as message fields.
enum ScoringArguments {
    /// A 3-letter IATA airport or metro code, upper-cased.
    static func airport(_ text: String, _ name: String) throws -> String {
        guard text.count == 3, text.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw ValidationError("\(name) must be a 3-letter IATA airport or metro code like JFK, not '\(text)'")
        }
        return text.uppercased()
    }

    /// A 2-character IATA carrier code, upper-cased.
    static func carrier(_ text: String) throws -> String {
        guard text.count == 2, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw ValidationError("--carrier must be a 2-character IATA airline code like BA, not '\(text)'")
        }
        return text.uppercased()
    }

    /// A positive amount with its currency, parsed exactly as `watchlists add --threshold` parses it ("300.00EUR", "65000JPY").
    static func money(_ text: String, _ name: String, example: String) throws -> Money {
        let money: Money
        do {
            money = try WatchlistArguments.money(text)
        } catch {
            throw ValidationError("\(name) must be an amount and a currency code like \(example) (at most the currency's decimals), not '\(text)'")
        }
        guard money.minorUnits > 0 else { throw ValidationError("\(name) must be more than zero, not '\(text)'") }
        return money
    }

    /// `YYYY-MM` with a year 2000–2100 and a month 1–12.
    static func month(_ text: String) throws -> (year: Int32, month: Int32) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2, parts.allSatisfy(WatchlistArguments.isDigits),
              let year = Int32(parts[0]), let month = Int32(parts[1]) else {
            throw ValidationError("--month must be a departure month as YYYY-MM, e.g. 2027-01, not '\(text)'")
        }
        guard (1 ... 12).contains(month) else { throw ValidationError("--month: the month must be 01–12, not \(parts[1])") }
        guard (2000 ... 2100).contains(year) else { throw ValidationError("--month: the year must be 2000–2100, not \(year)") }
        return (year, month)
    }

    /// Whether the terminal takes UTF-8: the first of LC_ALL, LC_CTYPE and LANG that is set names a UTF-8 codeset.
    static func utf8Locale(_ environment: [String: String]) -> Bool {
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        let lowered = locale.lowercased()
        return lowered.contains("utf-8") || lowered.contains("utf8")
    }
}

/// Scores, deals and money as the scoring commands print them. JSON values
/// that are absent are null, not left out.
enum ScoringOutput {
    /// An optional that encodes as null when absent (synthesized `Encodable` leaves nil keys out).
    struct OrNull<Value: Encodable>: Encodable {
        let value: Value?
        init(_ value: Value?) { self.value = value }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            if let value { try container.encode(value) } else { try container.encodeNil() }
        }
    }

    /// Money in JSON: exact minor units, the currency, and the text people read.
    struct MoneyJSON: Encodable {
        let minorUnits: Int64
        let currency: String
        let formatted: String

        init(_ money: Money) {
            minorUnits = money.minorUnits
            currency = money.currency
            formatted = money.formatted
        }

        /// Nil when the message field is unset.
        static func of(_ money: Money, if present: Bool) -> OrNull<MoneyJSON> { OrNull(present ? MoneyJSON(money) : nil) }
    }

    struct ComponentJSON: Encodable {
        let factor: String
        let points: Int32
        let maxPoints: Int32
        let input: Double
        let reason: String
    }

    /// A `DealScore` with every component.
    struct ScoreJSON: Encodable {
        let score: Int32
        let tier: String
        let hotDeal: Bool
        let discountBasisPoints: Int32
        let lowestInSixMonths: Bool
        let average90Days: OrNull<MoneyJSON>
        let typicalLow: OrNull<MoneyJSON>
        let typicalHigh: OrNull<MoneyJSON>
        let components: [ComponentJSON]
        let reasons: [String]

        /// The proto's spelling: the encoder's snake case would write "average90_days".
        enum CodingKeys: String, CodingKey {
            case score, tier, hotDeal, discountBasisPoints, lowestInSixMonths, typicalLow, typicalHigh, components, reasons
            case average90Days = "average_90_days"
        }

        init(_ score: DealScore) {
            self.score = score.score
            tier = ScoringOutput.tierName(score.tier)
            hotDeal = score.hotDeal
            discountBasisPoints = score.discountBasisPoints
            lowestInSixMonths = score.lowestInSixMonths
            average90Days = MoneyJSON.of(score.average90Days, if: score.hasAverage90Days)
            typicalLow = MoneyJSON.of(score.typicalLow, if: score.hasTypicalLow)
            typicalHigh = MoneyJSON.of(score.typicalHigh, if: score.hasTypicalHigh)
            components = score.components.map {
                ComponentJSON(factor: ScoringOutput.factorName($0.factor), points: $0.points, maxPoints: $0.maxPoints, input: $0.input, reason: $0.reason)
            }
            reasons = score.reasons
        }
    }

    /// The tier for JSON: "good", "exceptional-pushed", "not-enough-data".
    static func tierName(_ tier: DealTier) -> String {
        switch tier {
        case .notEnoughData: "not-enough-data"
        case .notShown: "not-shown"
        case .good: "good"
        case .exceptional: "exceptional"
        case .exceptionalPushed: "exceptional-pushed"
        default: "unspecified"
        }
    }

    /// The tier for a table: "good", "exceptional", "exceptional, pushed".
    static func tierText(_ tier: DealTier) -> String {
        tier == .exceptionalPushed ? "exceptional, pushed" : tierName(tier).replacingOccurrences(of: "-", with: " ")
    }

    static func factorName(_ factor: ScoreFactor) -> String {
        switch factor {
        case .discount: "discount"
        case .routePopularity: "route-popularity"
        case .timeToDeparture: "time-to-departure"
        case .carrierReliability: "carrier-reliability"
        default: "unspecified"
        }
    }

    /// A component's measured input in words: "24.0% below", "1,204 observations", "45 days", "82.0% on time".
    static func inputText(_ component: ScoreComponent) -> String {
        let input = component.input
        switch component.factor {
        case .discount: return percent(abs(input)) + (input < 0 ? " above" : " below")
        case .routePopularity: return "\(Int(input.rounded())) observations"
        case .timeToDeparture: return "\(Int(input.rounded())) days"
        case .carrierReliability: return percent(input) + " on time"
        default: return String(input)
        }
    }

    /// A fraction as a percentage with one decimal: 0.2412 → "24.1%".
    static func percent(_ fraction: Double) -> String { String(format: "%.1f%%", fraction * 100) }

    static func route(_ origin: String, _ destination: String) -> String { "\(origin)→\(destination)" }

    /// Unix epoch milliseconds as ISO 8601, or nil for 0 (not set).
    static func instant(_ unixMs: Int64) -> String? { unixMs > 0 ? UserOutput.instant(unixMs) : nil }
}
