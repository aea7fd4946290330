import FareLensMessages
import Foundation

/// Checks what a create or update asks for before anything is written:
/// email, IANA time zone, quiet hours, and preferred airports (count for the
/// tier, weights summing to 1, codes known to the directory). Each failure
/// is a ``SubscriptionError`` naming the field.
struct UserValidator: Sendable {
    let airports: any AirportChecker

    /// Weights must sum to 1 within this tolerance (they are doubles).
    static let weightTolerance = 1e-6

    /// A normalised email (trimmed, lower-cased).
    static func email(_ raw: String) throws(SubscriptionError) -> String {
        // Refused before it is echoed in any message: a stored escape sequence reached operators' terminals through `users list`.
        if let control = raw.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            throw .invalidField("email", "contains a control character (U+\(String(format: "%04X", control.value)))")
        }
        let email = raw.trimmingCharacters(in: .whitespaces).lowercased()
        guard !email.isEmpty else { throw .invalidField("email", "is required") }
        guard email.count <= 254 else { throw .invalidField("email", "is longer than 254 characters") }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
              !parts[1].hasPrefix("."), !parts[1].hasSuffix("."), !parts[1].contains(".."),
              !email.contains(where: { $0.isWhitespace })
        else { throw .invalidField("email", "'\(raw)' is not an email address") }
        return email
    }

    /// An IANA zone the system's tz database knows, e.g. `America/New_York`
    /// (or `UTC`). Abbreviations such as `EST` and offsets such as `GMT+2`
    /// are refused: they do not follow daylight saving. Checked with
    /// `TimeZone(identifier:)`, which reads the tz database;
    /// `TimeZone.knownTimeZoneIdentifiers` is not used because on Linux it
    /// is an old list (it has `Asia/Calcutta` but not `Asia/Kolkata`).
    /// A display currency: an ISO 4217 code (upper-cased), or "" for none.
    static func currency(_ code: String) throws(SubscriptionError) -> String {
        let upper = code.trimmingCharacters(in: .whitespaces).uppercased()
        guard upper.isEmpty || Money.isCurrencyCode(upper) else { throw .invalidField("currency", "'\(code)' is not an ISO 4217 currency code (e.g. EUR), or \"\" for none") }
        return upper
    }

    static func timeZone(_ identifier: String) throws(SubscriptionError) -> String {
        guard !identifier.isEmpty else { throw .invalidField("time_zone", "is required (an IANA zone such as Europe/Lisbon)") }
        guard identifier == "UTC" || (identifier.contains("/") && !identifier.hasPrefix("GMT")), TimeZone(identifier: identifier) != nil else {
            throw .invalidField("time_zone", "'\(identifier)' is not an IANA time zone (e.g. America/New_York)")
        }
        return identifier
    }

    /// Quiet hours as minutes after midnight; unset means 22:00–07:00.
    static func quietHours(_ hours: QuietHours?) throws(SubscriptionError) -> (start: Int, end: Int, disabled: Bool) {
        guard let hours else { return (UserRecord.defaultQuietStart, UserRecord.defaultQuietEnd, false) }
        for (name, time) in [("quiet_hours.start", hours.start), ("quiet_hours.end", hours.end)] {
            guard (0 ... 23).contains(time.hour), (0 ... 59).contains(time.minute) else {
                throw .invalidField(name, "\(time.hour):\(time.minute) is not a time of day (00:00–23:59)")
            }
        }
        let start = Int(hours.start.hour) * 60 + Int(hours.start.minute)
        let end = Int(hours.end.hour) * 60 + Int(hours.end.minute)
        guard hours.disabled || start != end else { throw .invalidField("quiet_hours", "start and end are equal; turn quiet hours off with disabled") }
        return (start, end, hours.disabled)
    }

    /// A known airport code, upper-cased; empty stays empty.
    func homeAirport(_ raw: String) async throws(SubscriptionError) -> String {
        let code = raw.trimmingCharacters(in: .whitespaces).uppercased()
        guard !code.isEmpty else { return "" }
        try await requireKnown(code, field: "home_airport")
        return code
    }

    /// Preferred airports for `tier`: at most its entitlement, distinct known
    /// codes, each weight in (0, 1], summing to 1. A single airport may omit
    /// its weight (it is 1.0).
    func preferredAirports(_ given: [PreferredAirport], tier: Tier) async throws(SubscriptionError) -> [UserRecord.Airport] {
        let allowed = Int(TierEntitlements.of(tier).preferredAirports)
        guard given.count <= allowed else { throw .airportLimit(given.count, allowed: allowed, tier: TierEntitlements.name(tier)) }
        var airports: [UserRecord.Airport] = []
        for (index, airport) in given.enumerated() {
            let code = airport.code.trimmingCharacters(in: .whitespaces).uppercased()
            let field = "preferred_airports[\(index)]"
            guard !airports.contains(where: { $0.code == code }) else { throw .invalidField(field, "'\(code)' is listed twice") }
            let weight = given.count == 1 && airport.weight == 0 ? 1.0 : airport.weight
            guard weight > 0, weight <= 1, weight.isFinite else { throw .invalidField("\(field).weight", "\(airport.weight) is not in (0, 1]") }
            try await requireKnown(code, field: field)
            airports.append(.init(code: code, weight: weight))
        }
        let sum = airports.reduce(0) { $0 + $1.weight }
        guard airports.isEmpty || abs(sum - 1) <= Self.weightTolerance else {
            throw .invalidField("preferred_airports", "weights sum to \(sum), not 1")
        }
        return airports
    }

    private func requireKnown(_ code: String, field: String) async throws(SubscriptionError) {
        guard code.count == 3, code.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw .invalidField(field, "'\(code)' is not a three-letter IATA code")
        }
        guard try await airports.isKnown(code) else { throw .unknownAirport(code, field: field) }
    }
}
