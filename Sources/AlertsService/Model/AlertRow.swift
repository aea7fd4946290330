import FareLensMessages
import Foundation
import GRDB

/// One decision about one candidate alert, as the `alert` table keeps it
/// (migration `alerts-001-decisions`): what it was about, the decision and
/// its reason, the content, and where delivery stands. Rows are never
/// deleted except with the user's account, so "why didn't I get this?"
/// always has an answer.
struct AlertRow: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "alert"

    var alertID: String
    var userID: String
    var kind: Int
    var decision: Int
    var reason: String
    var origin: String
    var destination: String
    var dealID: String
    var watchlistID: String
    var currency: String
    var priceMinorUnits: Int64
    var dealScore: Int
    var queueScore: Double
    var title: String
    var body: String
    /// Comma-separated `AlertAction` raw values.
    var actions: String
    var decidedAtUnixMs: Int64
    /// The user's local calendar day at the decision, "YYYY-MM-DD": the cap's day.
    var localDay: String
    /// Sent in quiet hours as the night's one exceptional deal.
    var quietException: Bool
    var deliveryState: Int
    var deliveryError: String
    var attempts: Int
    var deliveredAtUnixMs: Int64
    /// Held or capped: when the digest carrying it is due; 0 otherwise or once carried.
    var digestDueAtUnixMs: Int64
    var digestAlertID: String
    /// "YYYY-MM-DD", empty when none.
    var departureDate: String
    var returnDate: String
    var cabin: Int
    /// The user's tier at the decision (the re-check searches with its purpose).
    var tier: Int
    /// The fare came from the simulated market.
    var simulated: Bool
    /// What the re-check before the first attempt found, a `RecheckOutcome`
    /// raw value (migration `alerts-009-recheck-outcome`); 0 until then.
    var recheck: Int = 0
    /// When the alert's fare stops being worth showing, as its event said (a
    /// deal's expiry: 7 days after observation or at departure; a trial
    /// notice's, the trial's end); 0 when it did not say (migration
    /// `alerts-010-fare-expiry`). A push's `apns-expiration`.
    var expiresAtUnixMs: Int64 = 0

    var decisionValue: AlertDecision { AlertDecision(rawValue: decision) ?? .unspecified }
    var kindValue: AlertKind { AlertKind(rawValue: kind) ?? .unspecified }
    var recheckValue: RecheckOutcome { RecheckOutcome(rawValue: recheck) ?? .unspecified }
    var price: Money { Money(minorUnits: priceMinorUnits, currency: currency) }

    /// The record as the proto has it.
    var message: AlertRecord {
        var record = AlertRecord()
        record.alertID = alertID
        record.userID = userID
        record.kind = kindValue
        record.decision = decisionValue
        record.reason = reason
        record.origin = origin
        record.destination = destination
        record.dealID = dealID
        record.watchlistID = watchlistID
        if !currency.isEmpty { record.price = price }
        record.dealScore = Int32(dealScore)
        record.queueScore = queueScore
        // Built whole and set once: each `record.content.x = …` copied the content out of the record and back.
        var content = AlertContent()
        content.title = title
        content.body = body
        content.actions = Self.actions(actions)
        record.content = content
        record.decidedAtUnixMs = decidedAtUnixMs
        record.deliveredAtUnixMs = deliveredAtUnixMs
        record.deliveryState = DeliveryState(rawValue: deliveryState) ?? .unspecified
        record.deliveryError = deliveryError
        record.attempts = Int32(attempts)
        record.digestAlertID = digestAlertID
        if !departureDate.isEmpty, let date = CalendarDate(iso: departureDate) { record.departureDate = date.message }
        if !returnDate.isEmpty, let date = CalendarDate(iso: returnDate) { record.returnDate = date.message }
        record.cabin = Cabin(rawValue: cabin) ?? .economy
        record.simulated = simulated
        return record
    }

    /// The actions column ("1,2,3") as actions; a number that names no
    /// action comes back unrecognised (`AlertAction.UNRECOGNIZED`), and
    /// anything but digits separates numbers.
    static func actions(_ column: String) -> [AlertAction] {
        // The wording's usual actions share one array: parsing them was a quarter of building every `AlertDecided`.
        if column == standardActionsColumn { return standardActions }
        var actions: [AlertAction] = []
        var number = 0, digits = 0
        // By bytes, not `split`: this runs for every decision published.
        for byte in column.utf8 {
            if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 9 {
                number = number * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
            } else {
                if digits > 0, let action = AlertAction(rawValue: number) { actions.append(action) }
                number = 0
                digits = 0
            }
        }
        if digits > 0, let action = AlertAction(rawValue: number) { actions.append(action) }
        return actions
    }

    /// The actions as the column keeps them, comma-separated raw values.
    static func column(_ actions: [AlertAction]) -> String {
        if actions == standardActions { return standardActionsColumn }
        return actions.map { String($0.rawValue) }.joined(separator: ",")
    }

    /// The wording's usual actions, and their column.
    static let standardActions = [AlertAction.view, .muteRoute, .pause]
    static let standardActionsColumn = standardActions.map { String($0.rawValue) }.joined(separator: ",")

    /// Migration `alerts-009-recheck-outcome`: what the re-check before the
    /// first attempt found, so a retry's `AlertDelivered` still carries it.
    static func migrateRecheck(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: "recheck", .integer).notNull().defaults(to: 0)
        }
    }

    /// Migration `alerts-010-fare-expiry`: the fare's own expiry, so a push
    /// is not kept by APNs past it (nor dropped before it).
    static func migrateExpiry(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: "expiresAtUnixMs", .integer).notNull().defaults(to: 0)
        }
    }

    /// The table, created by migration `alerts-001-decisions`.
    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("alertID", .text).primaryKey()
            table.column("userID", .text).notNull()
            table.column("kind", .integer).notNull()
            table.column("decision", .integer).notNull()
            table.column("reason", .text).notNull()
            table.column("origin", .text).notNull()
            table.column("destination", .text).notNull()
            table.column("dealID", .text).notNull()
            table.column("watchlistID", .text).notNull()
            table.column("currency", .text).notNull()
            table.column("priceMinorUnits", .integer).notNull()
            table.column("dealScore", .integer).notNull()
            table.column("queueScore", .double).notNull()
            table.column("title", .text).notNull()
            table.column("body", .text).notNull()
            table.column("actions", .text).notNull()
            table.column("decidedAtUnixMs", .integer).notNull()
            table.column("localDay", .text).notNull()
            table.column("quietException", .boolean).notNull()
            table.column("deliveryState", .integer).notNull()
            table.column("deliveryError", .text).notNull()
            table.column("attempts", .integer).notNull()
            table.column("deliveredAtUnixMs", .integer).notNull()
            table.column("digestDueAtUnixMs", .integer).notNull()
            table.column("digestAlertID", .text).notNull()
            table.column("departureDate", .text).notNull()
            table.column("returnDate", .text).notNull()
            table.column("cabin", .integer).notNull()
            table.column("tier", .integer).notNull()
            table.column("simulated", .boolean).notNull()
        }
        try db.create(index: "alert_by_user_time", on: databaseTableName, columns: ["userID", "decidedAtUnixMs"])
        try db.create(index: "alert_digest_due", on: databaseTableName, columns: ["digestDueAtUnixMs"], condition: Column("digestDueAtUnixMs") > 0)
    }

    /// The sent decisions since `?2` of the users in the JSON array `?1`,
    /// found through `alert_sent_by_user` (a test checks SQLite's plan).
    static let sentSinceSQL = """
        SELECT userID, origin, destination, dealID, decidedAtUnixMs, localDay, quietException, kind FROM alert
        WHERE userID IN (SELECT value FROM json_each(?)) AND decidedAtUnixMs >= ? AND decision = \(AlertDecision.sent.rawValue)
        """

    /// The sent decisions of each user by time, and nothing else (migration
    /// `alerts-002-sent-by-user`): what ``states(of:at:metros:lookingUp:in:)`` reads
    /// for every batch of decisions. Through `alert_by_user_time` it looked
    /// up every recent row of each user in the table to find the few sent
    /// ones; held, capped and deduped rows, most of them, now cost it nothing
    /// and are not written to this index.
    static func migrateSentIndex(_ db: Database) throws {
        try db.create(index: "alert_sent_by_user", on: databaseTableName, columns: ["userID", "decidedAtUnixMs"], condition: Column("decision") == AlertDecision.sent.rawValue)
    }

    /// Inserts the row with a cached statement, its values bound through
    /// SQLite's C interface (decisions are recorded by the thousand; GRDB's
    /// arguments cost more than the insert: docs/decisions/0007). In
    /// ``columnNames`` order, with `sequence` (a ``DecisionSequences``'
    /// number) as its rowid.
    func insertFast(_ db: Database, sequence: Int64) throws {
        try insert(with: db.cachedStatement(sql: Self.insertSQL), sequence: sequence)
    }

    /// ``insertFast(_:sequence:)`` with the statement of ``insertSQL`` in hand: a
    /// batch looks it up once, not once a row (hashing the SQL was 3% of
    /// the writer's time).
    func insert(with statement: Statement, sequence: Int64) throws {
        try statement.executeBinding { values in
            values.bind(sequence)
            values.bind(alertID); values.bind(userID); values.bind(kind); values.bind(decision); values.bind(reason)
            values.bind(origin); values.bind(destination); values.bind(dealID); values.bind(watchlistID); values.bind(currency)
            values.bind(priceMinorUnits); values.bind(dealScore); values.bind(queueScore); values.bind(title); values.bind(body)
            values.bind(actions); values.bind(decidedAtUnixMs); values.bind(localDay); values.bind(quietException)
            values.bind(deliveryState); values.bind(deliveryError); values.bind(attempts); values.bind(deliveredAtUnixMs)
            values.bind(digestDueAtUnixMs); values.bind(digestAlertID); values.bind(departureDate); values.bind(returnDate)
            values.bind(cabin); values.bind(tier); values.bind(simulated); values.bind(recheck); values.bind(expiresAtUnixMs)
        }
    }

    static let insertSQL = "INSERT INTO alert (rowid, \(columnNames.joined(separator: ", "))) VALUES (?, \(Array(repeating: "?", count: columnNames.count).joined(separator: ", ")))"

    static let columnNames = [
        "alertID", "userID", "kind", "decision", "reason", "origin", "destination", "dealID", "watchlistID", "currency", "priceMinorUnits",
        "dealScore", "queueScore", "title", "body", "actions", "decidedAtUnixMs", "localDay", "quietException", "deliveryState", "deliveryError",
        "attempts", "deliveredAtUnixMs", "digestDueAtUnixMs", "digestAlertID", "departureDate", "returnDate", "cabin", "tier", "simulated",
        "recheck", "expiresAtUnixMs",
    ]

    /// What the policy must remember about each of `recipients` at `now`
    /// (sent in the last 12 hours, counts of their local day, mutes and
    /// pause), read with one cached statement per table for the whole batch.
    /// Only the users in `lookingUp` — recipients' ids — are looked up (all
    /// when nil): the others start with an empty state (``UsersWithPolicyState``).
    static func states(of recipients: [AlertRecipient], at now: Date, metros: [String: String] = [:], lookingUp: [String]? = nil, in db: Database) throws -> [String: RecipientState] {
        var states: [String: RecipientState] = [:]
        states.reserveCapacity(recipients.count)
        for recipient in recipients {
            states[recipient.userID] = RecipientState(day: QuietHoursWindow.localDay(now, in: recipient.zone), metros: metros)
        }
        let userIDs = lookingUp ?? recipients.map(\.userID)
        guard !userIDs.isEmpty else { return states }
        let users = JSONText.array(userIDs)
        let nowMs = now.unixMilliseconds
        let since = now.addingTimeInterval(-AlertPolicy.dedupeWindow).unixMilliseconds
        // Columns by position, not name: this runs for every batch of decisions.
        let sent = try db.cachedStatement(sql: sentSinceSQL)
        // Two days back covers today in any zone, and the 12-hour window.
        let cursor = try Row.fetchCursor(sent, arguments: [users, UsersWithPolicyState.lookBack(at: now)])
        while let row = try cursor.next() {
            // Digests and trial notices are service messages: they count against no cap and dedupe nothing.
            let kind: Int = row[7]
            guard kind != AlertKind.dailyDigest.rawValue, kind != AlertKind.trialEnding.rawValue else { continue }
            // Changed in place: a copy taken out of the dictionary shared its dictionaries with the one left in,
            // so the first change to `lastSent` copied it whole, for every row (docs/performance.md).
            states[row[0] as String]?.rememberSent(
                origin: row[1], destination: row[2], dealID: row[3], at: row[4], localDay: row[5], quietException: row[6], dedupingSince: since)
        }
        let mutes = try db.cachedStatement(sql: "SELECT userID, origin, destination, mutedUntilUnixMs FROM route_mute WHERE userID IN (SELECT value FROM json_each(?)) AND mutedUntilUnixMs > ?")
        for row in try Row.fetchAll(mutes, arguments: [users, nowMs]) {
            guard let key = states[row[0] as String]?.muteKey(row[1], row[2]) else { continue }
            states[row[0] as String]?.mutedRoutes[key] = Date(unixMilliseconds: row[3])
        }
        let pauses = try db.cachedStatement(sql: "SELECT userID, pausedUntilUnixMs FROM alert_pause WHERE userID IN (SELECT value FROM json_each(?)) AND pausedUntilUnixMs > ?")
        for row in try Row.fetchAll(pauses, arguments: [users, nowMs]) {
            states[row[0] as String]?.pausedUntil = Date(unixMilliseconds: row[1])
        }
        return states
    }
}
