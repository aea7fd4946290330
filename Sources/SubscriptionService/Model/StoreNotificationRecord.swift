import FareLensMessages
import GRDB

/// One App Store notification as received, as the `storeNotification` table
/// stores it (migration `subscription-006-app-store`): written in the
/// transaction that applies it, so a notification is either applied and
/// recorded or neither (the App Store retries it). Its UUID is the key: a
/// retry finds it and changes nothing. A deleted user's rows keep no user id.
struct StoreNotificationRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "storeNotification"

    var notificationUUID: String
    var notificationType: String
    var subtype: String
    var environment: String
    var signedAtUnixMs: Int64
    var receivedAtUnixMs: Int64
    /// ``StoreNotificationOutcome``'s raw value.
    var outcome: Int
    var userID: String
    var transactionID: String
    var originalTransactionID: String
    /// ``PurchaseKind``'s raw value; 0 when not applied.
    var kind: Int
    var detail: String

    init(_ notification: VerifiedNotification, receivedAt: Int64) {
        let payload = notification.payload
        notificationUUID = payload.notificationUUID
        notificationType = payload.notificationType
        subtype = payload.subtype ?? ""
        environment = payload.data?.environment ?? ""
        signedAtUnixMs = payload.signedDate
        receivedAtUnixMs = receivedAt
        outcome = StoreNotificationOutcome.unspecified.rawValue
        userID = ""
        transactionID = notification.transaction?.transactionId ?? ""
        originalTransactionID = notification.transaction?.originalTransactionId ?? ""
        kind = 0
        detail = ""
    }

    var outcomeValue: StoreNotificationOutcome { StoreNotificationOutcome(rawValue: outcome) ?? .unspecified }

    /// The wire form.
    var message: StoreNotification {
        var message = StoreNotification()
        message.notificationUuid = notificationUUID
        message.notificationType = notificationType
        message.subtype = subtype
        message.environment = environment
        message.signedAtUnixMs = signedAtUnixMs
        message.receivedAtUnixMs = receivedAtUnixMs
        message.outcome = outcomeValue
        message.userID = userID
        message.transactionID = transactionID
        message.originalTransactionID = originalTransactionID
        message.kind = PurchaseKind(rawValue: kind) ?? .unspecified
        message.detail = detail
        return message
    }

    /// The answer to the App Store (and to a retry of the same notification, as `duplicate`).
    func response(outcome: StoreNotificationOutcome) -> AppStoreNotificationResponse {
        var response = AppStoreNotificationResponse()
        response.notificationUuid = notificationUUID
        response.notificationType = notificationType
        response.subtype = subtype
        response.outcome = outcome
        response.detail = detail
        response.kind = PurchaseKind(rawValue: kind) ?? .unspecified
        return response
    }

    /// The table, created by migration `subscription-006-app-store`.
    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("notificationUUID", .text).primaryKey()
            table.column("notificationType", .text).notNull()
            table.column("subtype", .text).notNull()
            table.column("environment", .text).notNull()
            table.column("signedAtUnixMs", .integer).notNull()
            table.column("receivedAtUnixMs", .integer).notNull().indexed()
            table.column("outcome", .integer).notNull()
            table.column("userID", .text).notNull().indexed()
            table.column("transactionID", .text).notNull()
            table.column("originalTransactionID", .text).notNull()
            table.column("kind", .integer).notNull()
            table.column("detail", .text).notNull()
        }
    }
}
