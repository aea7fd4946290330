import FareLensMessages
import Foundation

/// The time zones and quiet hours of the recipients of one batch, each
/// distinct pair made once with its ``AlertRecipient/heldReason``: a
/// batch's thousand users share a few zones and windows, and making the
/// zone and the reason for each user cost a tenth of deciding a held alert
/// (docs/performance.md).
struct RecipientZones {
    private struct Key: Hashable {
        var identifier: String
        var window: QuietHoursWindow
    }

    private var made: [Key: (zone: TimeZone, heldReason: String)] = [:]

    /// `user`'s recipient; an unknown time zone is taken as GMT.
    mutating func recipient(_ user: User, entitlements: Entitlements) -> AlertRecipient {
        let key = Key(identifier: user.timeZone, window: QuietHoursWindow(user.hasQuietHours ? user.quietHours : nil))
        let settings: (zone: TimeZone, heldReason: String)
        if let known = made[key] {
            settings = known
        } else {
            let zone = TimeZone(identifier: user.timeZone) ?? .gmt
            settings = (zone, AlertRecipient.quietHoursReason(key.window, in: zone))
            made[key] = settings
        }
        return AlertRecipient(user: user, entitlements: entitlements, zone: settings.zone, quietHours: key.window, heldReason: settings.heldReason)
    }
}
