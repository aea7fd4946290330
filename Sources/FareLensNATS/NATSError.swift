/// Why the NATS transport could not start or carry a message: a stable code,
/// a message naming what is at fault and, for start-up failures, the
/// configuration key to look at.
public struct NATSError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Equatable, Sendable {
        case notBuilt
        case unreachable
        case authentication
        case jetStream
        case publish
        case tooLarge
        case subscribe
    }

    private let kind: Kind
    /// A one-line reason.
    public let message: String
    /// The configuration key at fault, when one is (`nats.urls`, `nats.user`, …).
    public let key: String?

    private init(_ kind: Kind, _ message: String, key: String? = nil) {
        self.kind = kind
        self.message = message
        self.key = key
    }

    /// The stable code: `not-built`, `unreachable`, `authentication`,
    /// `jetstream`, `publish`, `too-large` or `subscribe`.
    public var code: String {
        switch kind {
        case .notBuilt: "not-built"
        case .unreachable: "unreachable"
        case .authentication: "authentication"
        case .jetStream: "jetstream"
        case .publish: "publish"
        case .tooLarge: "too-large"
        case .subscribe: "subscribe"
        }
    }

    public var description: String { "\(code): \(message)" }

    /// This executable was built without the `NATS` trait.
    public static let notBuilt = NATSError(
        .notBuilt, "this build of farelens has no NATS transport: build it with `swift build --traits NATS` (needs libnats-dev)", key: "bus.transport")

    /// No server of `urls` answered.
    static func unreachable(_ urls: [String], reason: String) -> NATSError {
        .init(.unreachable, "no NATS server answered at \(urls.joined(separator: ", ")): \(reason)", key: "nats.urls")
    }

    /// The server refused the credentials.
    static func authentication(key: String, reason: String) -> NATSError {
        .init(.authentication, "the NATS server refused the credentials (\(key)): \(reason)", key: key)
    }

    /// JetStream is off on the server or refused the stream or consumer.
    static func jetStream(_ what: String, reason: String) -> NATSError {
        .init(.jetStream, "\(what): \(reason) (is the server started with JetStream, `nats-server -js`?)")
    }

    /// A publish failed.
    static func publish(_ subject: String, reason: String) -> NATSError {
        .init(.publish, "cannot publish on '\(subject)': \(reason)")
    }

    /// A message larger than the server's `max_payload`: sending it again
    /// will not help.
    static func tooLarge(_ subject: String, bytes: Int, maximum: Int64) -> NATSError {
        .init(.tooLarge, "cannot publish on '\(subject)': \(bytes) bytes is over the NATS server's max_payload of \(maximum) bytes")
    }

    /// A subscription failed.
    static func subscribe(_ subject: String, reason: String) -> NATSError {
        .init(.subscribe, "cannot subscribe to '\(subject)': \(reason)")
    }
}
