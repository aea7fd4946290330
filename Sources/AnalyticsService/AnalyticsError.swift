public import FareLensBus

/// What the analytics service answers when it cannot do what was asked: a
/// stable code (the `remote_code` its callers see) and a message naming the
/// field at fault. Codes are listed in `Protos/analytics.proto`.
public struct AnalyticsError: ServiceError, Equatable, CustomStringConvertible {
    private enum Kind: Equatable, Sendable {
        case invalidField
        case unknownUser
        case storage
    }

    private let kind: Kind
    /// The request field at fault, when one is (e.g. `to_date`).
    public let field: String?
    public let message: String

    private init(_ kind: Kind, field: String? = nil, _ message: String) {
        self.kind = kind
        self.field = field
        self.message = message
    }

    public var code: String {
        switch kind {
        case .invalidField: "invalid-field"
        case .unknownUser: "unknown-user"
        case .storage: "storage"
        }
    }

    public var description: String { "\(code): \(message)" }

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
}
