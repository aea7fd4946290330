import FareLensMessages
import Foundation
import GRDB

/// Push in the outbox pass: what a push row hands to the APNs channel, rows
/// whose device left, and the devices APNs says are gone (docs/push.md).
extension AlertDelivery {
    /// How long an undelivered push is worth showing after its decision when its event gave the fare no
    /// expiry (a watchlist's crossing or drop): APNs keeps it until then for a phone that is off. A day is
    /// the policy's horizon (a route's next drop may be alerted 12 hours later). A deal's push is kept
    /// until the deal's own expiry instead.
    static let pushLifetime: TimeInterval = 24 * 3_600

    /// The alert `row` hands to its channel: for push with its device,
    /// collapse id (the route; the watchlist for a silent update) and expiry.
    static func outbound(_ row: OutboxRow, alert: AlertRow?, device: DeviceRow?) -> OutboundAlert {
        let kind = AlertKind(rawValue: row.kind) ?? .unspecified
        guard row.channel == AlertChannel.push.rawValue, let device else {
            return OutboundAlert(alertID: row.alertID, userID: row.userID, kind: kind, body: row.body, attempt: row.attempts + 1)
        }
        let collapseID: String
        let expiresAt: Date
        if kind == .watchlistUpdate {
            collapseID = Self.watchlistID(ofSilentPush: row.alertID).map { $0 == SilentPushPayload.accountSubject ? "account" : "watchlist.\($0)" } ?? ""
            expiresAt = Date(unixMilliseconds: row.createdAtUnixMs).addingTimeInterval(silentPushLifetime)
        } else {
            collapseID = alert.map { $0.origin.isEmpty ? "" : "\($0.origin)-\($0.destination)" } ?? ""
            if let alert, alert.expiresAtUnixMs > 0 {
                expiresAt = Date(unixMilliseconds: alert.expiresAtUnixMs)
            } else {
                expiresAt = Date(unixMilliseconds: alert?.decidedAtUnixMs ?? row.createdAtUnixMs).addingTimeInterval(pushLifetime)
            }
        }
        return OutboundAlert(
            alertID: row.alertID, userID: row.userID, kind: kind, body: row.body, attempt: row.attempts + 1,
            device: PushDevice(token: device.token, environment: device.environmentValue), collapseID: collapseID, expiresAt: expiresAt)
    }

    /// A push row whose device was removed, or moved to another user, since the alert was accepted.
    static func deviceLeft(_ row: OutboxRow, _ devices: [String: DeviceRow]) -> Bool {
        guard row.channel == AlertChannel.push.rawValue else { return false }
        return devices[row.address]?.userID != row.userID
    }

    /// A device APNs said is gone.
    struct DeviceGone: Sendable {
        var userID: String
        var token: String
        /// APNs' words, e.g. "APNs 410 Unregistered".
        var reason: String
        /// 410's timestamp: a device registered again after it stays.
        var invalidSinceUnixMs: Int64?

        /// `DeviceRemoved.reason`.
        var eventReason: String { reason.contains("410") ? "apns-unregistered" : "apns-bad-device-token" }
    }

    /// In the outcomes' transaction: each pushed device's last outcome, and
    /// the devices APNs said are gone removed — unless registered again
    /// after APNs' timestamp. Returns those removed.
    static func recordDevices(_ rows: [OutboxRow], gone: [DeviceGone], at nowMs: Int64, in db: Database) throws -> [DeviceGone] {
        let note = try db.cachedStatement(sql: "UPDATE device SET lastOutcome = ?, lastOutcomeAtUnixMs = ? WHERE token = ? AND userID = ?")
        for row in rows where row.channel == AlertChannel.push.rawValue && row.attempts > 0 {
            let outcome = row.status == .delivered ? "delivered" : row.lastError
            try note.execute(arguments: [outcome, nowMs, row.address, row.userID])
        }
        var removed: [DeviceGone] = []
        for device in gone {
            try db.execute(
                sql: "DELETE FROM device WHERE token = ? AND userID = ? AND updatedAtUnixMs <= ?",
                arguments: [device.token, device.userID, device.invalidSinceUnixMs ?? Int64.max])
            if db.changesCount > 0 { removed.append(device) }
        }
        return removed
    }
}
