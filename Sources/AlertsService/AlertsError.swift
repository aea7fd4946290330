public import FareLensServiceKit

/// What the alerts service answers when it cannot do what was asked: a
/// stable code (the `remote_code` its callers see) and a message naming the
/// field or alert at fault. Codes are listed in `Protos/alerts.proto`.
public typealias AlertsError = ServiceFailure<AlertsErrorKind>

/// The kinds of ``AlertsError``, each with its code.
public enum AlertsErrorKind: ServiceFailureKind {
    case invalidField
    case unknownUser
    case unknownAirport
    case notFound
    case notDeadLettered
    case notSetAside
    case subscriptionUnavailable
    case storage
    case invalidDeviceToken
    case tooManyDevices

    public var code: String {
        switch self {
        case .invalidField: "invalid-field"
        case .unknownUser: "unknown-user"
        case .unknownAirport: "unknown-airport"
        case .notFound: "not-found"
        case .notDeadLettered: "not-dead-lettered"
        case .notSetAside: "not-set-aside"
        case .subscriptionUnavailable: "subscription-unavailable"
        case .storage: "storage"
        case .invalidDeviceToken: "invalid-device-token"
        case .tooManyDevices: "too-many-devices"
        }
    }
}

extension ServiceFailure where Kind == AlertsErrorKind {
    /// A field is missing or out of range; `field` is its name in the request.
    public static func invalidField(_ field: String, _ reason: String) -> AlertsError {
        .init(.invalidField, field: field, "\(field): \(reason)")
    }
    /// The subscription service does not know this user.
    public static func unknownUser(_ userID: String) -> AlertsError {
        .init(.unknownUser, field: "user_id", "no user '\(userID)'")
    }
    /// Search's airport directory does not know this code.
    public static func unknownAirport(_ code: String, field: String) -> AlertsError {
        .init(.unknownAirport, field: field, "\(field): '\(code)' is not a known IATA airport or metro code")
    }
    /// No alert with this id.
    public static func notFound(_ alertID: String) -> AlertsError {
        .init(.notFound, field: "alert_id", "no alert '\(alertID)'")
    }
    /// The alert was not dead-lettered, so replaying it would send it twice or send a decision that was not to send.
    public static func notDeadLettered(_ alertID: String, state: String) -> AlertsError {
        .init(.notDeadLettered, field: "alert_id", "alert '\(alertID)' is \(state), not dead-lettered; only dead letters are replayed")
    }
    /// No set-aside event with this publisher and sequence (never set aside, or already retried).
    public static func notSetAside(_ publisher: String, sequence: UInt64) -> AlertsError {
        .init(.notSetAside, field: "events", "no set-aside event '\(publisher)/\(sequence)'")
    }
    /// The subscription service could not be asked.
    public static func subscriptionUnavailable(_ reason: String) -> AlertsError {
        .init(.subscriptionUnavailable, "the user's alert settings cannot be asked now: \(reason)")
    }
    /// Subscription failed to answer with `cause` (kept as ``underlying``).
    public static func subscriptionUnavailable(cause: any Error) -> AlertsError {
        .init(.subscriptionUnavailable, "the user's alert settings cannot be asked now: \(cause)", underlying: cause)
    }
    /// A push token that APNs would refuse: not 64 hexadecimal digits.
    public static func invalidDeviceToken(_ field: String) -> AlertsError {
        .init(.invalidDeviceToken, field: field, "\(field): an APNs device token is 64 hexadecimal digits")
    }
    /// The user has as many devices as one may hold.
    public static func tooManyDevices(limit: Int) -> AlertsError {
        .init(.tooManyDevices, field: "token", "\(limit) devices are registered already; remove one first")
    }
    /// The service's database failed.
    public static func storage(_ reason: String) -> AlertsError {
        .init(.storage, "storage: \(reason)")
    }
    /// The service's database failed with `error` (kept as ``underlying``).
    public static func storage(_ error: any Error) -> AlertsError {
        .init(.storage, "storage: \(error)", underlying: error)
    }
}
