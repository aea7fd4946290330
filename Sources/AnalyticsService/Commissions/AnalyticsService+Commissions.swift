import FareLensMessages
import Foundation
import GRDB

extension AnalyticsService {
    /// Reconciles a commission notification with the click that carried its
    /// sub-id. Idempotent by `notification_id`: the same status again is a
    /// duplicate (nothing changes); another status (or amount) replaces it,
    /// and the `conversions` roll-up follows — a CANCELLED booking no longer
    /// counts. A booking counts on its booking day, in its placement, when
    /// matched; an unmatched one is kept and counts from the first click
    /// with its sub-id, should that come later. A sub-id that does not parse
    /// is not an error: `matched` is false. The sub-id is parsed by
    /// ``AttributionSubID``, the definition search builds it with (a `-` in
    /// the deal id, watchlist id or variant arrives written `__`).
    ///
    /// - Throws: ``AnalyticsError`` `invalid-field` naming `notification_id`,
    ///   `status`, `commission`, `booking_value` or `booked_at_unix_ms`.
    func reconcile(_ request: CommissionNotificationRequest) throws(AnalyticsError) -> CommissionNotificationResponse {
        try Self.validate(request)
        let nowMs = clock.now().unixMilliseconds
        let subID = AttributionSubID(parsing: request.subID)
        let incoming = CommissionRecord(
            notificationID: request.notificationID, subID: request.subID, provider: request.provider, status: request.status.rawValue,
            commissionMinor: request.commission.minorUnits, commissionCurrency: request.commission.currency,
            bookingValueMinor: request.bookingValue.minorUnits, bookingValueCurrency: request.bookingValue.currency,
            bookedAtUnixMs: request.bookedAtUnixMs, day: Dimensions.day(unixMs: request.bookedAtUnixMs > 0 ? request.bookedAtUnixMs : nowMs),
            dealID: subID?.dealID ?? "", placement: subID.map { Dimensions.placement($0.placement) } ?? "", matched: false, updatedAtUnixMs: nowMs
        )
        let (record, duplicate) = try write { db throws(AnalyticsError) -> (CommissionRecord, Bool) in
            try Self.catching {
                var record = incoming
                record.matched = try subID != nil && ClickAttributionRecord.exists(db, key: request.subID)
                let existing = try CommissionRecord.fetchOne(db, key: request.notificationID)
                if let existing {
                    if request.bookedAtUnixMs == 0 { record.day = existing.day }
                    record.matched = record.matched || existing.matched
                    if Self.sameNotification(existing, record) { return (existing, true) }
                }
                var rollups = RollupBatch()
                existing?.contribute(-1, to: &rollups)
                record.contribute(1, to: &rollups)
                try record.save(db)
                try rollups.write(db)
                return (record, false)
            }
        }
        var response = CommissionNotificationResponse()
        response.matched = record.matched
        response.duplicate = duplicate
        response.dealID = subID?.dealID ?? ""
        response.placement = subID?.placement ?? .unspecified
        return response
    }

    /// A repeat: everything the network sent is as before.
    private static func sameNotification(_ old: CommissionRecord, _ new: CommissionRecord) -> Bool {
        old.subID == new.subID && old.status == new.status && old.commissionMinor == new.commissionMinor
            && old.commissionCurrency == new.commissionCurrency && old.bookingValueMinor == new.bookingValueMinor
            && old.bookingValueCurrency == new.bookingValueCurrency && old.day == new.day && old.provider == new.provider
    }

    static func validate(_ request: CommissionNotificationRequest) throws(AnalyticsError) {
        guard !request.notificationID.isEmpty, request.notificationID.count <= 128 else {
            throw .invalidField("notification_id", "is required, at most 128 characters")
        }
        switch request.status {
        case .pending, .confirmed, .cancelled: break
        default: throw .invalidField("status", "must be PENDING, CONFIRMED or CANCELLED")
        }
        for (field, money, present) in [("commission", request.commission, request.hasCommission), ("booking_value", request.bookingValue, request.hasBookingValue)] {
            guard present else { continue }
            guard money.minorUnits >= 0, money.currency.count == 3, money.currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                throw .invalidField(field, "must be a non-negative amount with a three-letter upper-case currency code")
            }
        }
        guard request.bookedAtUnixMs >= 0 else { throw .invalidField("booked_at_unix_ms", "must not be negative") }
    }
}
