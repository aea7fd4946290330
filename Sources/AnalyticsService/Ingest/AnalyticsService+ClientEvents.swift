import FareLensMessages
import Foundation
import GRDB

extension AnalyticsService {
    /// Client events may be this far ahead of the service's clock (device clocks drift).
    static let clientClockSkewMs: Int64 = 86_400_000

    /// Records a client event: raw under the user's pseudonym, and in the
    /// roll-ups it feeds (views and clicks by placement, clicks by sub-id,
    /// alert opens). Nothing is stored for an opted-out user; a repeated
    /// `client_event_id` is recorded once.
    ///
    /// - Throws: ``AnalyticsError`` `invalid-field` naming the field:
    ///   `client_event_id`, `user_id`, `kind`, `occurred_at_unix_ms` (negative
    ///   or more than a day ahead), `placement` (views and clicks), `alert_id`
    ///   (opens), `properties` (more than 20, or too long).
    func record(_ request: RecordClientEventRequest) throws(AnalyticsError) -> RecordClientEventResponse {
        let nowMs = clock.now().unixMilliseconds
        try Self.validate(request, nowMs: nowMs)
        let pseudonyms = try Self.pseudonyms(request.userID, keyring)
        var response = RecordClientEventResponse()
        guard !isOptedOut(pseudonyms) else {
            response.outcome = .optedOut
            return response
        }
        let occurredMs = request.occurredAtUnixMs > 0 ? request.occurredAtUnixMs : nowMs
        let record = ClientEventRecord(
            clientEventID: request.clientEventID, pseudonym: pseudonyms[0], kind: request.kind.rawValue,
            occurredAtUnixMs: occurredMs, day: Dimensions.day(unixMs: occurredMs), receivedAtUnixMs: nowMs,
            dealID: request.dealID, watchlistID: request.watchlistID, alertID: request.alertID, offerID: request.offerID,
            provider: request.provider, placement: request.placement.rawValue, abVariant: request.abVariant, tier: request.tier.rawValue,
            subID: request.subID, errorCode: request.errorCode,
            propertiesJSON: Self.propertiesJSON(request.properties, userID: request.userID, pseudonym: pseudonyms[0])
        )
        let recorded = try write { db throws(AnalyticsError) -> Bool in
            try Self.catching {
                guard try !ClientEventRecord.exists(db, key: record.clientEventID) else { return false }
                try record.insert(db)
                if let click = Self.clickToRecheck(request, record) { try click.insert(db) }
                var rollups = RollupBatch()
                try Self.count(record, request, &rollups, db)
                try rollups.write(db)
                return true
            }
        }
        response.outcome = recorded ? .recorded : .duplicate
        if recorded, request.hasClickedFare { clickWakeups.continuation.yield() }
        return response
    }

    /// The row waiting for a clicked fare's re-check, for a click-out that names its fare.
    private static func clickToRecheck(_ request: RecordClientEventRequest, _ record: ClientEventRecord) -> ClickRecheckRecord? {
        guard request.kind == .affiliateClicked, request.hasClickedFare, let search = try? request.clickedFare.search.serializedBytes() as Data else { return nil }
        let fare = request.clickedFare
        return ClickRecheckRecord(
            clientEventID: record.clientEventID, pseudonym: record.pseudonym,
            origin: fare.search.origin.uppercased(), destination: fare.search.destination.uppercased(), day: record.day,
            clickedAtUnixMs: record.occurredAtUnixMs, recordedAtUnixMs: record.receivedAtUnixMs, search: search, priceMinorUnits: fare.price.minorUnits,
            currency: fare.price.currency, simulated: fare.simulated, outcome: 0, recheckedAtUnixMs: 0
        )
    }

    /// The roll-ups a new client event feeds.
    private static func count(_ record: ClientEventRecord, _ request: RecordClientEventRequest, _ rollups: inout RollupBatch, _ db: Database) throws {
        let day = record.day
        rollups.add(.events, day: day, "client." + Dimensions.clientKind(request.kind), count: 1)
        let placement = Dimensions.placement(request.placement)
        switch request.kind {
        case .dealViewed:
            rollups.add(.clicks, day: day, placement, count: 1)
        case .affiliateClicked:
            rollups.add(.clicks, day: day, placement, hits: 1)
            rollups.add(.conversions, day: day, placement, count: 1)
            if !request.subID.isEmpty { try attribute(request.subID, day: day, &rollups, db) }
        case .alertOpened:
            try applyOpen(request.alertID, pseudonym: record.pseudonym, atMs: record.occurredAtUnixMs, &rollups, db)
        default:
            break
        }
    }

    /// Records a click's sub-id; the first click of a sub-id matches the
    /// commissions that arrived before it (counted from now on).
    private static func attribute(_ subID: String, day: Int, _ rollups: inout RollupBatch, _ db: Database) throws {
        if var known = try ClickAttributionRecord.fetchOne(db, key: subID) {
            known.clicks += 1
            known.firstClickDay = min(known.firstClickDay, day)
            known.lastClickDay = max(known.lastClickDay, day)
            try known.update(db)
            return
        }
        try ClickAttributionRecord(subID: subID, clicks: 1, firstClickDay: day, lastClickDay: day).insert(db)
        for var commission in try CommissionRecord.filter(Column("subID") == subID && Column("matched") == false).fetchAll(db) {
            commission.matched = true
            try commission.update(db)
            commission.contribute(1, to: &rollups)
        }
    }

    /// An alert counts as opened once; an open before its decision waits for it.
    private static func applyOpen(_ alertID: String, pseudonym: String, atMs: Int64, _ rollups: inout RollupBatch, _ db: Database) throws {
        guard var seen = try AlertSeenRecord.fetchOne(db, key: alertID) else {
            try AlertSeenRecord(alertID: alertID, decision: nil, decisionDay: nil, opened: true, pseudonym: pseudonym, seenAtUnixMs: atMs, origin: "", destination: "").insert(db)
            return
        }
        guard !seen.opened else { return }
        seen.opened = true
        try seen.update(db)
        if let decision = seen.decision, let decisionDay = seen.decisionDay {
            rollups.add(.alerts, day: decisionDay, Dimensions.decision(AlertDecision(rawValue: decision) ?? .unspecified), hits: 1)
        }
    }

    static func validate(_ request: RecordClientEventRequest, nowMs: Int64) throws(AnalyticsError) {
        guard !request.clientEventID.isEmpty, request.clientEventID.count <= 128 else {
            throw .invalidField("client_event_id", "is required, at most 128 characters")
        }
        guard !request.userID.isEmpty else { throw .invalidField("user_id", "is required") }
        switch request.kind {
        case .appOpened, .dealViewed, .affiliateClicked, .alertOpened, .searchFailed, .paywallViewed: break
        default: throw .invalidField("kind", "must be one of APP_OPENED, DEAL_VIEWED, AFFILIATE_CLICKED, ALERT_OPENED, SEARCH_FAILED, PAYWALL_VIEWED")
        }
        guard request.occurredAtUnixMs >= 0, request.occurredAtUnixMs <= nowMs + clientClockSkewMs else {
            throw .invalidField("occurred_at_unix_ms", "must be 0 (now) or a time no more than a day ahead of the server's clock")
        }
        if request.kind == .dealViewed || request.kind == .affiliateClicked {
            guard Dimensions.placements.contains(where: { $0.0 == request.placement }) else {
                throw .invalidField("placement", "is required for \(Dimensions.clientKind(request.kind).uppercased()): DEALCARD, DETAIL, SHEET, WIDGET or ALERT")
            }
        }
        if request.kind == .alertOpened, request.alertID.isEmpty { throw .invalidField("alert_id", "is required for ALERT_OPENED") }
        if request.hasClickedFare { try validate(request.clickedFare, kind: request.kind) }
        guard request.properties.count <= 20, request.properties.allSatisfy({ $0.key.count <= 64 && $0.value.count <= 256 }) else {
            throw .invalidField("properties", "at most 20 entries, keys up to 64 characters, values up to 256")
        }
    }

    /// A clicked fare names the route as two IATA codes, a departure date and a positive total with its currency.
    static func validate(_ fare: ClickedFare, kind: ClientEventKind) throws(AnalyticsError) {
        guard kind == .affiliateClicked else { throw .invalidField("clicked_fare", "only an AFFILIATE_CLICKED event names a clicked fare") }
        let isCode = { (code: String) in code.count == 3 && code.allSatisfy { $0.isASCII && $0.isLetter } }
        guard isCode(fare.search.origin), isCode(fare.search.destination), fare.search.hasDepartureDate, CalendarDate(fare.search.departureDate) != nil else {
            throw .invalidField("clicked_fare", "the search must name the origin and destination (IATA codes) and a valid departure date")
        }
        guard fare.price.minorUnits > 0, isCode(fare.price.currency) else {
            throw .invalidField("clicked_fare", "the price must be positive, with its ISO 4217 currency")
        }
    }

    /// Properties as sorted-key JSON, the user id replaced by the pseudonym should the app have put it there.
    private static func propertiesJSON(_ properties: [String: String], userID: String, pseudonym: String) -> String {
        guard !properties.isEmpty, let data = try? JSONSerialization.data(withJSONObject: properties, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: userID, with: pseudonym)
    }
}
