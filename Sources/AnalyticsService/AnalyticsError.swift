public import FareLensServiceKit

/// What the analytics service answers when it cannot do what was asked: a
/// stable code (the `remote_code` its callers see) and a message naming the
/// field at fault. Codes are listed in `Protos/analytics.proto`.
public typealias AnalyticsError = ServiceFailure<AnalyticsErrorKind>

/// The kinds of ``AnalyticsError``, each with its code.
public enum AnalyticsErrorKind: ServiceFailureKind {
    case invalidField
    case unknownUser
    case storage

    public var code: String {
        switch self {
        case .invalidField: "invalid-field"
        case .unknownUser: "unknown-user"
        case .storage: "storage"
        }
    }
}

extension ServiceFailure where Kind == AnalyticsErrorKind {
    /// A field is missing or out of range; `field` is its name in the request.
    public static func invalidField(_ field: String, _ reason: String) -> AnalyticsError {
        .init(.invalidField, field: field, "\(field): \(reason)")
    }

    /// The subscription service answered that it has no such user.
    public static func unknownUser(_ userID: String) -> AnalyticsError {
        .init(.unknownUser, field: "user_id", "no user '\(userID)'")
    }

    /// The service's database failed.
    public static func storage(_ reason: String) -> AnalyticsError {
        .init(.storage, "storage: \(reason)")
    }
    /// The service's database failed with `error` (kept as ``underlying``).
    public static func storage(_ error: any Error) -> AnalyticsError {
        .init(.storage, "storage: \(error)", underlying: error)
    }
}
