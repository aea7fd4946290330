public import FareLensBus

/// The cases of one service's errors; each names its stable code (the
/// `remote_code` the service's callers see).
public protocol ServiceFailureKind: Sendable, Equatable {
    var code: String { get }
}

/// A service's error: what kind it is (its code), the request field at
/// fault when there is one, a one-line message naming it, and the failure
/// that caused it. Every service's error is one of these
/// (`typealias WatchlistError = ServiceFailure<WatchlistErrorKind>`), made
/// through its own named factories (`.invalidField("origin", …)`,
/// `.storage(error)`).
public struct ServiceFailure<Kind: ServiceFailureKind>: ServiceError, Equatable, CustomStringConvertible {
    public let kind: Kind
    /// The request field at fault, when one is (e.g. `destination`).
    public let field: String?
    public let message: String
    /// The failure that caused this one (the database's error behind a
    /// `storage`), kept for logs and tests; never sent to a caller, and not
    /// part of equality.
    public let underlying: (any Error)?

    public init(_ kind: Kind, field: String? = nil, _ message: String, underlying: (any Error)? = nil) {
        self.kind = kind
        self.field = field
        self.message = message
        self.underlying = underlying
    }

    public var code: String { kind.code }
    public var description: String { "\(code): \(message)" }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.kind == rhs.kind && lhs.field == rhs.field && lhs.message == rhs.message
    }
}
