import FareLensMessages
import Foundation
import GRDB

/// A phone registered for push, as the `device` table keeps it (migration
/// `alerts-007-devices`). The APNs token is the key: the same phone signed
/// in as another user moves to that user. Removed when its user removes it,
/// when APNs says the token is gone (400 BadDeviceToken, 410 Unregistered)
/// and with its user's data on `UserDeleted`.
struct DeviceRow: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "device"

    /// 64 lowercase hexadecimal digits.
    var token: String
    var userID: String
    var platform: String
    /// `PushEnvironment` raw value.
    var environment: Int
    var appVersion: String
    var locale: String
    var timeZone: String
    var registeredAtUnixMs: Int64
    var updatedAtUnixMs: Int64
    /// "delivered", or the last error; empty before the first push.
    var lastOutcome: String
    var lastOutcomeAtUnixMs: Int64

    /// Devices one user may hold at once (SPEC has no number; a traveller has a phone or two).
    static let limitPerUser = 20

    var environmentValue: PushEnvironment { PushEnvironment(rawValue: environment) ?? .production }

    /// The message form.
    var message: Device {
        var device = Device()
        device.token = token
        device.platform = platform
        device.environment = environmentValue
        device.appVersion = appVersion
        device.locale = locale
        device.timeZone = timeZone
        device.registeredAtUnixMs = registeredAtUnixMs
        device.updatedAtUnixMs = updatedAtUnixMs
        device.lastOutcome = lastOutcome
        device.lastOutcomeAtUnixMs = lastOutcomeAtUnixMs
        return device
    }

    /// The tokens of `userID`'s devices, in token order (the order their outbox rows are written in).
    static func tokens(of userID: String, in db: Database) throws -> [String] {
        try String.fetchAll(db.cachedStatement(sql: "SELECT token FROM device WHERE userID = ? ORDER BY token"), arguments: [userID])
    }

    /// Migration `alerts-007-devices`.
    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("token", .text).notNull().primaryKey()
            table.column("userID", .text).notNull()
            table.column("platform", .text).notNull()
            table.column("environment", .integer).notNull()
            table.column("appVersion", .text).notNull()
            table.column("locale", .text).notNull()
            table.column("timeZone", .text).notNull()
            table.column("registeredAtUnixMs", .integer).notNull()
            table.column("updatedAtUnixMs", .integer).notNull()
            table.column("lastOutcome", .text).notNull()
            table.column("lastOutcomeAtUnixMs", .integer).notNull()
        }
        try db.create(index: "device_by_user", on: databaseTableName, columns: ["userID"])
    }
}
