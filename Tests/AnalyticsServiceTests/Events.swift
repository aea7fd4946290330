import FareLensMessages
import Foundation

/// Builders of the events and requests the tests script.
enum Make {
    static func search(_ user: String = "", _ purpose: SearchPurpose, cacheHit: Bool, at: Int64) -> SearchCompleted {
        var event = SearchCompleted()
        event.userID = user
        event.purpose = purpose
        event.cacheHit = cacheHit
        event.origin = "JFK"
        event.destination = "NRT"
        event.atUnixMs = at
        return event
    }

    static func call(_ provider: String, success: Bool, used: Int64, limit: Int64, at: Int64) -> ProviderCalled {
        var event = ProviderCalled()
        event.provider = provider
        event.success = success
        event.quotaUsed = used
        event.quotaLimit = limit
        event.atUnixMs = at
        return event
    }

    static func decided(_ alertID: String, _ user: String, _ decision: AlertDecision, at: Int64) -> AlertDecided {
        var event = AlertDecided()
        event.alert.alertID = alertID
        event.alert.userID = user
        event.alert.decision = decision
        event.alert.reason = "decided for \(user)"
        event.alert.decidedAtUnixMs = at
        return event
    }

    static func tier(_ user: String, _ previous: Tier, _ current: Tier, at: Int64) -> TierChanged {
        var event = TierChanged()
        event.userID = user
        event.previous = previous
        event.current = current
        event.atUnixMs = at
        return event
    }

    static func deleted(_ user: String, at: Int64 = 0) -> UserDeleted {
        var event = UserDeleted()
        event.userID = user
        event.atUnixMs = at
        return event
    }

    static func client(
        _ id: String, _ user: String, _ kind: ClientEventKind, at: Int64 = 0, placement: BookingPlacement = .unspecified,
        alert: String = "", subID: String = "", deal: String = ""
    ) -> RecordClientEventRequest {
        var request = RecordClientEventRequest()
        request.clientEventID = id
        request.userID = user
        request.kind = kind
        request.occurredAtUnixMs = at
        request.placement = placement
        request.alertID = alert
        request.subID = subID
        request.dealID = deal
        return request
    }

    static func commission(
        _ id: String, subID: String, _ status: CommissionStatus, cents: Int64, currency: String = "USD", bookedAt: Int64
    ) -> CommissionNotificationRequest {
        var request = CommissionNotificationRequest()
        request.notificationID = id
        request.subID = subID
        request.provider = "travelpayouts"
        request.status = status
        request.commission = Money(minorUnits: cents, currency: currency)
        request.bookingValue = Money(minorUnits: cents * 20, currency: currency)
        request.bookedAtUnixMs = bookedAt
        return request
    }
}
