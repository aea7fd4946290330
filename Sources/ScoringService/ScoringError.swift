public import FareLensServiceKit

/// What the scoring service answers when it cannot do what was asked: a
/// stable code (the `remote_code` its callers see) and a message naming the
/// field at fault. Codes are listed in `Protos/scoring.proto`.
public typealias ScoringError = ServiceFailure<ScoringErrorKind>

/// The kinds of ``ScoringError``, each with its code.
public enum ScoringErrorKind: String, ServiceFailureKind {
    case invalidField = "invalid-field"
    case invalidCursor = "invalid-cursor"
    case unknownAirport = "unknown-airport"
    case unknownUser = "unknown-user"
    case unavailable = "service-unavailable"
    case storage = "storage"

    public var code: String { rawValue }
}

extension ServiceFailure where Kind == ScoringErrorKind {
    /// A field is missing or out of range; `field` is its name in the request.
    public static func invalidField(_ field: String, _ reason: String) -> ScoringError {
        .init(.invalidField, field: field, "\(field): \(reason)")
    }
    /// A feed cursor the feed did not give (or one past its 1,000 deals).
    public static func invalidCursor(_ cursor: String) -> ScoringError {
        .init(.invalidCursor, field: "cursor", "cursor: '\(cursor.prefix(40))' is not a cursor this feed gave")
    }
    /// Search's directory knows no airport or metro with this code.
    public static func unknownAirport(_ code: String, field: String) -> ScoringError {
        .init(.unknownAirport, field: field, "\(field): '\(code)' is not a known IATA airport or metro code")
    }
    /// The subscription service does not know this user.
    public static func unknownUser(_ userID: String) -> ScoringError {
        .init(.unknownUser, field: "user_id", "no user '\(userID)'")
    }
    /// A service this answer needs (search's directory, subscription) could not be asked.
    public static func unavailable(_ service: String, _ reason: String) -> ScoringError {
        .init(.unavailable, "\(service) cannot be asked now: \(reason)")
    }
    /// `service` failed to answer with `cause` (kept as ``underlying``).
    public static func unavailable(_ service: String, cause: any Error) -> ScoringError {
        .init(.unavailable, "\(service) cannot be asked now: \(cause)", underlying: cause)
    }
    /// The service's database failed.
    public static func storage(_ reason: String) -> ScoringError {
        .init(.storage, "storage: \(reason)")
    }
    /// The service's database failed with `error` (kept as ``underlying``).
    public static func storage(_ error: any Error) -> ScoringError {
        .init(.storage, "storage: \(error)", underlying: error)
    }
}
