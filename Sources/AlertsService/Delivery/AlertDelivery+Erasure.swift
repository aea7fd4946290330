import FareLensStore
import Foundation
import GRDB

/// Delivery's part of erasing a deleted user and of retention: its own
/// tables (`outbox`, `device`), asked by intake before it erases its own
/// (so nothing is sent for a user or an alert that is being deleted).
extension AlertDelivery {
    /// Deletes `userID`'s outbox rows and devices, and announces each device
    /// removed (`DeviceRemoved`, reason `user-deleted`).
    func erase(_ userID: String) async throws {
        let devices = try await database.writeToEnd { db in
            _ = try OutboxRow.filter(Column("userID") == userID).deleteAll(db)
            let devices = try DeviceRow.tokens(of: userID, in: db)
            _ = try DeviceRow.filter(Column("userID") == userID).deleteAll(db)
            return devices
        }
        announceRemoved(devices.map { (userID, $0) }, reason: "user-deleted")
    }

    /// Deletes the outbox rows of alerts whose id sorts before `cutoff` ("a"
    /// and 12 hex digits of milliseconds: decided before that instant) —
    /// delivered, dead-lettered or still pending: after that long a fare
    /// alert is worthless — and silent pushes queued as long ago. Ids begin
    /// with their time, so the old rows are a prefix of the primary key.
    func applyRetention(cutoff: String) async throws {
        try await database.writeToEnd { db in
            try db.execute(sql: "DELETE FROM outbox WHERE alertID < ?", arguments: [cutoff])
            // Silent pushes: "s" and the same 12 hex digits of milliseconds.
            try db.execute(sql: "DELETE FROM outbox WHERE alertID >= 's' AND alertID < ?", arguments: ["s" + cutoff.dropFirst()])
        }
    }
}
