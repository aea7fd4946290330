import Synchronization

/// Whether this bus instance has begun shutting down: from then on a durable
/// event from another node that no subscriber finished handling is never
/// acknowledged, so its sender redelivers it to the node's next life.
final class ShutdownFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    /// Marks the start of shutdown (cannot be undone).
    func raise() { raised.store(true, ordering: .releasing) }

    /// Whether shutdown has begun.
    var isRaised: Bool { raised.load(ordering: .acquiring) }
}
