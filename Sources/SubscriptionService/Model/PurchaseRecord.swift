import FareLensMessages
import Foundation
import GRDB

/// One purchase notification in the append-only ledger, as the `purchase`
/// table stores it (migration `subscription-002-purchases`). Rows are
/// inserted, never updated; they are deleted only with their user.
///
/// Two unique keys make a notification idempotent: `notificationID` (when
/// the store sent one) and `transactionKey` (transaction id and kind: the
/// App Store reuses a transaction id for the REFUND of that transaction, so
/// the id alone would swallow the refund).
struct PurchaseRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "purchase"

    /// Insertion order; the ledger is read in this order.
    var sequence: Int64?
    /// The store's notification id, or nil when none was sent.
    var notificationID: String?
    /// `<transaction id>/<kind>`; for the kinds that can recur on one
    /// transaction (CANCEL, RESUME, BILLING_RETRY: auto-renew switched off,
    /// on and off again) `<transaction id>/<kind>/<notification id>` when
    /// there is a notification id.
    var transactionKey: String
    var transactionID: String
    var originalTransactionID: String
    var userID: String
    var kind: Int
    var product: Int
    var occurredAtUnixMs: Int64
    var expiresAtUnixMs: Int64
    var graceEndsAtUnixMs: Int64
    var priceMinorUnits: Int64
    var priceCurrency: String
    var appliedAtUnixMs: Int64
    var tierBefore: Int
    var tierAfter: Int
    /// Older than the latest notification applied for the user: kept, but it changed nothing.
    var stale: Bool

    static func transactionKey(_ request: ApplyPurchaseNotificationRequest) -> String {
        let key = "\(request.transactionID)/\(request.kind.rawValue)"
        let recurring: Set<PurchaseKind> = [.cancel, .resume, .billingRetry]
        return recurring.contains(request.kind) && !request.notificationID.isEmpty ? key + "/" + request.notificationID : key
    }

    init(_ request: ApplyPurchaseNotificationRequest, appliedAt: Int64, tierBefore: Tier, tierAfter: Tier, stale: Bool) {
        notificationID = request.notificationID.isEmpty ? nil : request.notificationID
        transactionKey = Self.transactionKey(request)
        transactionID = request.transactionID
        originalTransactionID = request.originalTransactionID
        userID = request.userID
        kind = request.kind.rawValue
        product = request.product.rawValue
        occurredAtUnixMs = request.occurredAtUnixMs
        expiresAtUnixMs = request.expiresAtUnixMs
        graceEndsAtUnixMs = request.gracePeriodEndsAtUnixMs
        priceMinorUnits = request.price.minorUnits
        priceCurrency = request.price.currency
        appliedAtUnixMs = appliedAt
        self.tierBefore = tierBefore.rawValue
        self.tierAfter = tierAfter.rawValue
        self.stale = stale
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { sequence = inserted.rowID }

    /// The notification as it arrived.
    var notification: ApplyPurchaseNotificationRequest {
        var request = ApplyPurchaseNotificationRequest()
        request.notificationID = notificationID ?? ""
        request.transactionID = transactionID
        request.originalTransactionID = originalTransactionID
        request.userID = userID
        request.kind = PurchaseKind(rawValue: kind) ?? .unspecified
        request.product = SubscriptionProduct(rawValue: product) ?? .unspecified
        request.occurredAtUnixMs = occurredAtUnixMs
        request.expiresAtUnixMs = expiresAtUnixMs
        request.gracePeriodEndsAtUnixMs = graceEndsAtUnixMs
        if !priceCurrency.isEmpty {
            request.price.currency = priceCurrency
            request.price.minorUnits = priceMinorUnits
        }
        return request
    }

    /// The ledger entry on the wire.
    var entry: PurchaseLedgerEntry {
        var entry = PurchaseLedgerEntry()
        entry.notification = notification
        entry.appliedAtUnixMs = appliedAtUnixMs
        entry.tierBefore = Tier(rawValue: tierBefore) ?? .unspecified
        entry.tierAfter = Tier(rawValue: tierAfter) ?? .unspecified
        entry.stale = stale
        return entry
    }

    /// The table, created by migration `subscription-002-purchases`.
    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("sequence", .integer).primaryKey(autoincrement: true)
            table.column("notificationID", .text).unique()
            table.column("transactionKey", .text).notNull().unique()
            table.column("transactionID", .text).notNull()
            table.column("originalTransactionID", .text).notNull()
            table.column("userID", .text).notNull().indexed()
            table.column("kind", .integer).notNull()
            table.column("product", .integer).notNull()
            table.column("occurredAtUnixMs", .integer).notNull()
            table.column("expiresAtUnixMs", .integer).notNull()
            table.column("graceEndsAtUnixMs", .integer).notNull()
            table.column("priceMinorUnits", .integer).notNull()
            table.column("priceCurrency", .text).notNull()
            table.column("appliedAtUnixMs", .integer).notNull()
            table.column("tierBefore", .integer).notNull()
            table.column("tierAfter", .integer).notNull()
            table.column("stale", .boolean).notNull()
        }
    }
}
