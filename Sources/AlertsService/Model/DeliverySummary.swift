import FareLensMessages

/// An alert's delivery state from its outbox rows (one per channel; per device for push):
/// pending while any is; delivered once a channel delivered and none is
/// pending (a disabled channel beside a delivered one does not undo it);
/// otherwise the worst of dropped, dead-lettered, disabled, where a dead
/// letter one of whose attempts left without an answer is "maybe
/// delivered", never "never sent". The delivery time is set only when the
/// state is delivered (the proto's rule: 0 unless delivered).
struct DeliverySummary: Sendable, Equatable {
    var state: DeliveryState
    /// The first undelivered row's last error.
    var error: String
    var attempts: Int
    /// The first delivery, 0 when none.
    var deliveredAtUnixMs: Int64

    init(_ rows: [OutboxRow]) {
        self.init(rows.map(\.outcome))
    }

    /// From the outcomes of an alert's rows, in channel order.
    init(_ rows: [OutboxRow.Outcome]) {
        attempts = rows.map(\.attempts).max() ?? 0
        error = rows.first { !$0.lastError.isEmpty && $0.status != .delivered }?.lastError ?? ""
        let statuses = Set(rows.map(\.status))
        let maybe = rows.contains { $0.status == .deadLettered && $0.uncertainAttempts > 0 }
        state =
            if statuses.contains(.pending) { .pending }
            else if statuses.contains(.droppedStale) { .droppedStale }
            else if statuses.contains(.deadLettered) { maybe ? .maybeDelivered : .deadLettered }
            else if statuses.contains(.endpointDisabled) || statuses.contains(.deviceRemoved) { statuses.contains(.delivered) ? .delivered : .endpointDisabled }
            else { .delivered }
        // A dead letter on one channel beside a delivery on another is not "delivered" (#58: dead letters carried a time).
        deliveredAtUnixMs = state == .delivered ? rows.filter { $0.status == .delivered }.map(\.finishedAtUnixMs).min() ?? 0 : 0
    }
}

extension AlertRow {
    /// Takes the delivery state, error, attempts and delivery time from `summary`.
    mutating func apply(_ summary: DeliverySummary) {
        attempts = summary.attempts
        deliveryError = summary.error
        if summary.deliveredAtUnixMs > 0 { deliveredAtUnixMs = summary.deliveredAtUnixMs }
        deliveryState = summary.state.rawValue
    }
}
