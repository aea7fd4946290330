/// A failure of ``EventOutbox``, named by a stable code.
public struct EventOutboxError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: String, Hashable, Sendable {
        case unregisteredType = "unregistered-type"
    }
    private let code: Code
    /// A one-line reason.
    public let message: String

    /// Stable code, e.g. `unregistered-type`.
    public var codeName: String { code.rawValue }

    /// An event of a type the outbox was not given, so it could not decode it.
    public static func unregisteredType(_ typeName: String, owner: String) -> EventOutboxError {
        EventOutboxError(code: .unregisteredType, message: "the \(owner) event outbox was not given the event type \(typeName)")
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
