public import FareLensMessages
public import Foundation

/// One accepted alert on its way to a channel. Every attempt sends the same
/// `body`, byte for byte, under the same `alertID` (the idempotency key a
/// receiver de-duplicates on, e.g. the webhook's `webhook-id`).
public struct OutboundAlert: Sendable, Equatable {
    /// Unique per alert and stable across retries, restarts and replays.
    public let alertID: String
    public let userID: String
    public let kind: AlertKind
    /// The JSON payload, fixed when the alert was accepted into the outbox.
    public let body: Data
    /// This attempt, from 1.
    public let attempt: Int
    /// The phone, for push (one outbox row per alert and device); nil on other channels.
    public let device: PushDevice?
    /// Push: pushes with the same id replace each other on the phone — the
    /// route (`JFK-NRT`) for alerts, `watchlist.<id>` for silent updates;
    /// empty for digests and notices.
    public let collapseID: String
    /// When the alert is no longer worth showing; nil: no limit (APNs then tries once).
    public let expiresAt: Date?

    /// Creates an alert ready for a channel.
    public init(alertID: String, userID: String, kind: AlertKind, body: Data, attempt: Int, device: PushDevice? = nil, collapseID: String = "", expiresAt: Date? = nil) {
        self.alertID = alertID
        self.userID = userID
        self.kind = kind
        self.body = body
        self.attempt = attempt
        self.device = device
        self.collapseID = collapseID
        self.expiresAt = expiresAt
    }
}

/// A registered phone an alert is pushed to.
public struct PushDevice: Sendable, Equatable {
    /// 64 lowercase hexadecimal digits.
    public let token: String
    /// Which APNs gateway knows the token.
    public let environment: PushEnvironment

    /// A device with its token and environment.
    public init(token: String, environment: PushEnvironment) {
        self.token = token
        self.environment = environment
    }
}

/// What one delivery attempt came to; the outbox decides what follows.
public enum DeliveryOutcome: Sendable, Equatable {
    /// The channel took it (HTTP 2xx; a log line written).
    case delivered
    /// Worth another attempt, and the alert did not arrive: the receiver
    /// answered (HTTP 5xx, 408, 429), or the request never left (a refused
    /// connection, no connection in time). `retryAfter` is the receiver's
    /// `Retry-After`, if any.
    case retry(reason: String, retryAfter: Duration?)
    /// The request left but no answer came (a timeout after sending, a
    /// connection closed or reset before the answer): the receiver may have
    /// taken it. Retried with the same id and body, never judged again (no
    /// stale-price re-check), and never recorded as "never sent".
    case uncertain(reason: String)
    /// Will never succeed as sent (other 4xx): dead-lettered at once.
    case failed(reason: String)
    /// The endpoint is gone (HTTP 410): the channel is disabled and the alert
    /// kept for replay.
    case endpointGone(reason: String)
    /// The device is gone (APNs 410 Unregistered, 400 BadDeviceToken): its
    /// row is finished, the device removed unless it registered again after
    /// `invalidSince` (APNs' timestamp for 410), and the channel stays on.
    case deviceGone(reason: String, invalidSince: Date?)
}

/// A way of reaching users: the webhook, the log, and later APNs push.
///
/// A channel never throws and never retries on its own: it makes exactly one
/// attempt and says how it went; the outbox owns retries, backoff and dead
/// letters, so every channel gets them alike. Reasons are one line and never
/// contain a secret.
public protocol AlertDeliveryChannel: Sendable {
    /// Which channel this is, as recorded in `AlertDelivered`.
    var channel: AlertChannel { get }
    /// Makes one attempt to hand `alert` over.
    func deliver(_ alert: OutboundAlert) async -> DeliveryOutcome
}
