/// Every failure the bus reports. A request either returns its response or
/// throws exactly one of these; it never hangs and never crashes the caller.
///
/// Modelled on swift-nio's error style: a public struct around a private code
/// enum, with static constructors, so new cases do not break clients.
public struct BusError: Error, Hashable, Sendable, CustomStringConvertible {
    fileprivate enum Code: String, Hashable, Sendable {
        case timeout
        case serviceUnavailable = "service-unavailable"
        case overloaded
        case cancelled
        case remote
        case badMessage = "bad-message"
        case forbidden
    }

    /// The kind of failure, for matching with `==` against the static members.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        fileprivate let code: Code
        /// The deadline passed before a response arrived.
        public static let timeout = Kind(code: .timeout)
        /// No node hosts the address, or the node hosting it went away.
        public static let serviceUnavailable = Kind(code: .serviceUnavailable)
        /// The service already has its maximum number of requests in flight.
        public static let overloaded = Kind(code: .overloaded)
        /// The caller's task was cancelled.
        public static let cancelled = Kind(code: .cancelled)
        /// The handler failed; ``BusError/remoteCode`` says how.
        public static let remote = Kind(code: .remote)
        /// A message could not be decoded, or no handler knows its type.
        public static let badMessage = Kind(code: .badMessage)
        /// The caller may not use this address (admin-only addresses over the bridge).
        public static let forbidden = Kind(code: .forbidden)
        /// Whether the same request may be answered if it is sent again
        /// later: `timeout`, `serviceUnavailable`, `overloaded` and
        /// `cancelled` (the handler's side stopped). `remote`, `badMessage`
        /// and `forbidden` are the answer itself: sending again gets them again.
        public var isTransient: Bool {
            switch code {
            case .timeout, .serviceUnavailable, .overloaded, .cancelled: true
            case .remote, .badMessage, .forbidden: false
            }
        }
        /// The stable wire name of the kind (`timeout`, `service-unavailable`, …).
        public var name: String { code.rawValue }
        public var description: String { code.rawValue }
        /// The kind with the given wire name, if any.
        public init?(name: String) {
            guard let code = Code(rawValue: name) else { return nil }
            self.code = code
        }
        private init(code: Code) { self.code = code }
    }

    /// What went wrong.
    public let kind: Kind
    /// For ``Kind/remote``: the handler's error code (e.g. `invalid-field`).
    public let remoteCode: String?
    /// A one-line reason naming the address, type or field at fault.
    public let message: String

    private init(_ kind: Kind, remoteCode: String? = nil, _ message: String) {
        self.kind = kind
        self.remoteCode = remoteCode
        self.message = message
    }

    /// Rebuilds an error from its wire parts (used by transports).
    public init(kind: Kind, remoteCode: String?, message: String) {
        self.init(kind, remoteCode: remoteCode, message)
    }

    public static func timeout(_ what: String, after budget: Duration) -> BusError {
        BusError(.timeout, "\(what): no response within \(budget)")
    }
    /// The deadline had already passed when the bus looked at the request.
    public static func deadlineExpired(_ what: String) -> BusError {
        BusError(.timeout, "\(what): deadline passed before a response")
    }
    public static func serviceUnavailable(_ address: ServiceAddress, reason: String = "no node hosts it") -> BusError {
        BusError(.serviceUnavailable, "service '\(address)' unavailable: \(reason)")
    }
    public static func overloaded(_ address: ServiceAddress, limit: Int) -> BusError {
        BusError(.overloaded, "service '\(address)' overloaded: \(limit) requests already in flight")
    }
    public static func cancelled(_ what: String) -> BusError {
        BusError(.cancelled, "\(what): cancelled by the caller")
    }
    public static func remote(code: String, message: String) -> BusError {
        BusError(.remote, remoteCode: code, message)
    }
    public static func badMessage(_ reason: String) -> BusError {
        BusError(.badMessage, "bad message: \(reason)")
    }

    /// A non-admin peer asked for an admin-only address.
    public static func forbidden(_ address: ServiceAddress) -> BusError {
        BusError(.forbidden, "service '\(address)' is admin-only and the caller is not an admin peer")
    }

    /// For ``Kind/remote``: the field the service's message names first
    /// (`"email: is required"` → `email`), if it starts with one.
    public var field: String? {
        guard kind == .remote, let colon = message.firstIndex(of: ":") else { return nil }
        let name = message[..<colon]
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0 == "_" || $0 == "." || $0.isNumber) }) else { return nil }
        return String(name)
    }

    public var description: String {
        if let remoteCode { return "\(kind) [\(remoteCode)]: \(message)" }
        return "\(kind): \(message)"
    }
}

/// An error a service handler throws to tell its caller what went wrong in
/// words the caller can act on. The bus turns it into a ``BusError`` of kind
/// ``BusError/Kind/remote`` carrying ``code`` and ``message``.
public protocol ServiceError: Error {
    /// A stable, machine-readable code, e.g. `invalid-field` or `limit-reached`.
    var code: String { get }
    /// A one-line human reason that names the field or resource at fault.
    var message: String { get }
}

extension BusError {
    /// Maps anything a handler threw to the error its caller sees.
    static func fromHandler(_ error: any Error, type: String) -> BusError {
        switch error {
        case let bus as BusError: return bus
        case let service as any ServiceError: return .remote(code: service.code, message: service.message)
        case is CancellationError: return .cancelled(type)
        default: return .remote(code: "internal", message: "\(type) failed: \(String(describing: error))")
        }
    }
}
