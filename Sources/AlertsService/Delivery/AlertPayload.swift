import FareLensMessages
import Foundation

/// The JSON body every channel sends for an alert, in the envelope the
/// Standard Webhooks specification recommends (`type`, `timestamp`,
/// `data`). Fixed when the alert is accepted into the outbox; docs/webhooks.md
/// § Payload specifies it for receivers.
struct AlertPayload: Codable, Sendable, Equatable {
    /// The alert itself.
    struct Data: Codable, Sendable, Equatable {
        struct Price: Codable, Sendable, Equatable {
            /// ISO 4217, e.g. "USD".
            var currency: String
            /// Integer minor units (cents), never floating point.
            var minorUnits: Int64
            /// As shown to people, e.g. "$650".
            var formatted: String
        }

        var alertID: String
        var userID: String
        /// "exceptional_deal", "threshold_crossed", "price_drop", "daily_digest", "trial_ending".
        var kind: String
        var title: String
        var body: String
        /// "view", "mute_route", "pause".
        var actions: [String]
        /// IATA codes; absent for digests.
        var origin: String?
        var destination: String?
        var dealID: String?
        var watchlistID: String?
        var price: Price?
        var dealScore: Int?
        /// "YYYY-MM-DD".
        var departureDate: String?
        var returnDate: String?
        /// Digests: the alerts they carry.
        var carriedAlertIds: [String]?
        /// RFC 3339 UTC.
        var decidedAt: String
        /// The fare came from the simulated market: a receiver must say so.
        var simulated: Bool
        /// The route's 30-day track record in one sentence, as analytics last told it; absent when none is known (issue #59).
        var trackRecord: String?
    }

    /// "alert.exceptional_deal" …
    var type: String
    /// RFC 3339 UTC, when the alert was accepted.
    var timestamp: String
    var data: Data

    init(_ row: AlertRow, carried: [String]? = nil) {
        let kind = Self.kindName(row.kindValue)
        let decided = Self.rfc3339(Date(unixMilliseconds: row.decidedAtUnixMs))
        let hasRoute = !row.origin.isEmpty
        data = Data(
            alertID: row.alertID, userID: row.userID, kind: kind, title: row.title, body: row.body,
            actions: Self.actionNames(row.actions),
            origin: hasRoute ? row.origin : nil, destination: hasRoute ? row.destination : nil,
            dealID: row.dealID.isEmpty ? nil : row.dealID, watchlistID: row.watchlistID.isEmpty ? nil : row.watchlistID,
            price: row.currency.isEmpty ? nil : Data.Price(currency: row.currency, minorUnits: row.priceMinorUnits, formatted: row.price.headline),
            dealScore: row.dealScore > 0 ? row.dealScore : nil,
            departureDate: row.departureDate.isEmpty ? nil : row.departureDate, returnDate: row.returnDate.isEmpty ? nil : row.returnDate,
            carriedAlertIds: carried, decidedAt: decided, simulated: row.simulated)
        type = "alert.\(kind)"
        timestamp = decided
    }

    /// The body bytes: keys in snake_case and sorted, so the same alert
    /// always encodes the same. Written with ``JSONText`` (the same bytes as
    /// ``encoderJSON()``, faster).
    func json() throws -> Foundation.Data { Foundation.Data(jsonBytes()) }

    /// ``json()`` as bytes (the outbox binds them as they are).
    func jsonBytes() -> [UInt8] {
        var writer = JSONText()
        writer.open()
        writer.key("data")
        writer.open()
        writer.member("actions", data.actions)
        writer.member("alert_id", data.alertID)
        writer.member("body", data.body)
        if let carried = data.carriedAlertIds { writer.member("carried_alert_ids", carried) }
        if let dealID = data.dealID { writer.member("deal_id", dealID) }
        if let score = data.dealScore { writer.member("deal_score", Int64(score)) }
        writer.member("decided_at", data.decidedAt)
        if let departure = data.departureDate { writer.member("departure_date", departure) }
        if let destination = data.destination { writer.member("destination", destination) }
        writer.member("kind", data.kind)
        if let origin = data.origin { writer.member("origin", origin) }
        if let price = data.price {
            writer.key("price")
            writer.open()
            writer.member("currency", price.currency)
            writer.member("formatted", price.formatted)
            writer.member("minor_units", price.minorUnits)
            writer.close()
        }
        if let returnDate = data.returnDate { writer.member("return_date", returnDate) }
        writer.member("simulated", data.simulated)
        writer.member("title", data.title)
        if let trackRecord = data.trackRecord { writer.member("track_record", trackRecord) }
        writer.member("user_id", data.userID)
        if let watchlistID = data.watchlistID { writer.member("watchlist_id", watchlistID) }
        writer.close()
        writer.member("timestamp", timestamp)
        writer.member("type", type)
        writer.close()
        return writer.bytes
    }

    /// The same body from `JSONEncoder`: the reference ``json()`` is tested against.
    func encoderJSON() throws -> Foundation.Data {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    static func kindName(_ kind: AlertKind) -> String {
        switch kind {
        case .exceptionalDeal: "exceptional_deal"
        case .thresholdCrossed: "threshold_crossed"
        case .priceDrop: "price_drop"
        case .dailyDigest: "daily_digest"
        case .trialEnding: "trial_ending"
        case .watchlistUpdate: "watchlist_update"
        default: "unknown"
        }
    }

    /// The names of the actions column's actions ("1,2,3" → view, mute_route,
    /// pause); the usual column's are one shared array (parsing and naming
    /// them was a third of building each sent alert's payload).
    static func actionNames(_ column: String) -> [String] {
        if column == AlertRow.standardActionsColumn { return standardActionNames }
        return AlertRow.actions(column).map(actionName)
    }

    private static let standardActionNames = AlertRow.standardActions.map(actionName)

    static func actionName(_ action: AlertAction) -> String {
        switch action {
        case .view: "view"
        case .muteRoute: "mute_route"
        case .pause: "pause"
        default: "unknown"
        }
    }

    static func rfc3339(_ date: Date) -> String {
        JSONText.rfc3339(date)
    }
}
